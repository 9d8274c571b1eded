package rules

import (
	"slices"
	"sort"
	"strings"
	"time"
)

// linkGap is the longest quiet stretch between two findings on one volume
// that still reads as one chain of events.
const linkGap = 2 * time.Hour

// Incidents groups findings (already in Result order) into incidents: the
// findings on one volume that follow each other without a long gap form one
// causal chain; a finding without a volume is an incident of its own. Chain
// holds indices into fs in causal order. Incidents are ordered by severity
// (most severe first), then first finding's start, then volume.
func Incidents(fs []Finding) []Incident {
	reg := registered()
	byVol := map[string][]int{}
	var vols []string
	var out []Incident
	for i, f := range fs {
		if f.Volume == "" {
			out = append(out, buildIncident(fs, []int{i}, reg))
			continue
		}
		if byVol[f.Volume] == nil {
			vols = append(vols, f.Volume)
		}
		byVol[f.Volume] = append(byVol[f.Volume], i)
	}
	for _, v := range vols {
		idx := byVol[v]
		orderCausally(fs, idx, reg)
		var chain []int
		var chainEnd time.Time
		for _, i := range idx {
			f := &fs[i]
			if len(chain) > 0 && f.Start.Sub(chainEnd) > linkGap {
				out = append(out, buildIncident(fs, chain, reg))
				chain, chainEnd = nil, time.Time{}
			}
			chain = append(chain, i)
			if f.End.After(chainEnd) {
				chainEnd = f.End
			}
			if f.Start.After(chainEnd) {
				chainEnd = f.Start
			}
		}
		if len(chain) > 0 {
			out = append(out, buildIncident(fs, chain, reg))
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		ia, ib := &out[a], &out[b]
		if ia.Severity != ib.Severity {
			return ia.Severity > ib.Severity
		}
		sa, sb := fs[ia.Chain[0]].Start, fs[ib.Chain[0]].Start
		if !sa.Equal(sb) {
			return sa.Before(sb)
		}
		if ia.Volume != ib.Volume {
			return ia.Volume < ib.Volume
		}
		return ia.Chain[0] < ib.Chain[0]
	})
	return out
}

// orderCausally sorts idx by start time, then causal rank (Rule.Rank),
// except that the clocks of different components (and describe rows'
// relative ages) must not put an effect before its cause: each finding's
// rule may correct where the others are placed (Rule.Reorder).
func orderCausally(fs []Finding, idx []int, reg map[string]Rule) {
	at := map[int]time.Time{}
	for _, i := range idx {
		at[i] = fs[i].Start
	}
	for _, j := range idx {
		reorder := reg[fs[j].Rule].Reorder
		if reorder == nil {
			continue
		}
		for _, i := range idx {
			if i != j {
				at[i] = reorder(&fs[j], &fs[i], at[i])
			}
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ta, tb := at[idx[a]], at[idx[b]]
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return reg[fs[idx[a]].Rule].Rank < reg[fs[idx[b]].Rule].Rank
	})
}

// related reports whether two findings on one volume share a node.
func related(a, b *Finding) bool {
	for _, n := range a.Nodes {
		if slices.Contains(b.Nodes, n) {
			return true
		}
	}
	return len(a.Nodes) == 0 || len(b.Nodes) == 0
}

// Chain is one incident's findings in causal order, as a rule's Story and
// Cause see them.
type Chain struct {
	Findings []*Finding // in causal order
	Volume   string     // the volume's UniqueName (or key); "" for a finding without one
	PV       string
	by       map[string][]*Finding
}

// First returns the chain's first finding of the named rule, or nil.
func (c *Chain) First(rule string) *Finding { return first(c.by[rule]) }

// Name is how stories name the volume: its PV, else its UniqueName.
func (c *Chain) Name() string { return firstNonEmpty(c.PV, c.Volume) }

// Driver is the volume plugin or CSI driver read out of the UniqueName, or "".
func (c *Chain) Driver() string { return driverOfName(c.Volume) }

// Cause is what an incident says about its root cause.
type Cause struct {
	Summary   string // one line naming the likely root cause
	Component string // where to look
	RootCause string // the mechanism, a few sentences
}

// buildIncident makes one incident of the findings chain (indices into fs,
// in causal order): each finding's rule tells its part of the story and its
// next steps, and the rules are asked in CauseOrder for the root cause.
func buildIncident(fs []Finding, chain []int, reg map[string]Rule) Incident {
	inc := Incident{Chain: chain}
	c := &Chain{by: map[string][]*Finding{}}
	for _, i := range chain {
		f := &fs[i]
		inc.Volume, inc.PV = f.Volume, firstNonEmpty(inc.PV, f.PV)
		if f.Severity > inc.Severity {
			inc.Severity = f.Severity
		}
		c.Findings = append(c.Findings, f)
		c.by[f.Rule] = append(c.by[f.Rule], f)
	}
	c.Volume, c.PV = inc.Volume, inc.PV

	// The story: each finding's lines, in causal order. Next steps: every
	// finding's, ordered by phase, each said once; within a phase the
	// symptom's steps come first (the last finding in causal order is what
	// the on-call engineer sees).
	nexts := make([][]Step, len(c.Findings))
	for k, f := range c.Findings {
		tell := reg[f.Rule].Story
		if tell == nil {
			tell = summaryStory
		}
		var story []string
		story, nexts[k] = tell(f, c)
		inc.Story = append(inc.Story, story...)
	}
	var next []Step
	for k := len(nexts) - 1; k >= 0; k-- {
		next = append(next, nexts[k]...)
	}
	inc.Next = MergeSteps(next)

	cause, ok := causeOf(c, reg)
	if !ok {
		f := c.Findings[0]
		cause = Cause{Summary: f.Summary, RootCause: f.Explanation}
	}
	inc.Summary, inc.Component, inc.RootCause = cause.Summary, cause.Component, cause.RootCause
	inc.settle(c.Findings)
	return inc
}

// causeOf asks the rules with findings in c for the root cause, in
// CauseOrder; false when none names it.
func causeOf(c *Chain, reg map[string]Rule) (Cause, bool) {
	var ask []Rule
	for name := range c.by {
		if r, ok := reg[name]; ok && r.Cause != nil {
			ask = append(ask, r)
		}
	}
	slices.SortFunc(ask, func(a, b Rule) int { return a.CauseOrder - b.CauseOrder })
	for _, r := range ask {
		if cause, ok := r.Cause(c); ok {
			return cause, true
		}
	}
	return Cause{}, false
}

// summaryStory is the plain telling of a finding: its summary at its start,
// and its own next steps.
func summaryStory(f *Finding, _ *Chain) ([]string, []Step) {
	return []string{stamp(f.Start, f.Summary)}, f.Steps
}

func first(fs []*Finding) *Finding {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

func nodeAt(f *Finding, i int) string {
	if i < len(f.Nodes) {
		return f.Nodes[i]
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// driverOfName reads the driver out of a UniqueName.
func driverOfName(u string) string {
	if rest, ok := strings.CutPrefix(u, "kubernetes.io/csi/"); ok {
		d, _, _ := strings.Cut(rest, "^")
		return d
	}
	if strings.HasPrefix(u, "kubernetes.io/") {
		if i := strings.Index(u[len("kubernetes.io/"):], "/"); i >= 0 {
			return u[:len("kubernetes.io/")+i]
		}
	}
	return ""
}
