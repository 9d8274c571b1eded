package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Redaction replaces identifying names with pseudonyms so a report can leave
// the company. Known names (nodes, pods, namespaces, PVs, handles,
// VolumeAttachments, pod UIDs) are collected from the data first and given
// pseudonyms in sorted order per class (node-1, node-2, …); then every
// string, log text included, has those names replaced (longest first, at
// word boundaries), and a second pass catches what the data did not name:
// IPv4 addresses (→ 192.0.2.x), request IDs, cloud instance IDs, disk and
// volume IDs, UUIDs, Azure resource groups and disk names. One redactor
// serves one render call, so the same input always maps to the same
// pseudonym within a run.

type redactor struct {
	names   map[string]string // original → pseudonym
	used    map[string]bool   // pseudonyms handed out, and originals (never reuse one as a pseudonym)
	counter map[string]int    // class → last number
	known   map[string]string // the names known before rendering (a snapshot of names)
	lengths []int             // distinct lengths of known names, longest first
	memo    map[string]string // input → redacted, for the many repeated strings
}

type tokenClass struct {
	class string
	tok   string
}

var (
	reIPv4     = lazyRegexp(`\b(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}\b`)
	reIPHost   = lazyRegexp(`\bip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?:\.[a-z0-9-]+)*\b`)
	reReqID    = lazyRegexp(`(?i)(request[ _-]?id["']?\s*[=:]\s*["']?)([0-9A-Za-z][0-9A-Za-z-]{5,})`)
	reInstance = lazyRegexp(`\b(?:ins-[0-9a-z]{8}|i-[0-9a-f]{8}(?:[0-9a-f]{9})?)\b`)
	reDisk     = lazyRegexp(`\b(?:disk-[0-9a-z]{8}|vol-[0-9a-f]{8}(?:[0-9a-f]{9})?)\b`)
	reVA       = lazyRegexp(`\bcsi-[0-9a-f]{64}\b`)
	reUUID     = lazyRegexp(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	reAzureRG  = lazyRegexp(`(?i)(resourceGroups/)([^/\s"'\\]+)`)
	reAzureDsk = lazyRegexp(`(?i)(providers/Microsoft\.Compute/disks/)([^/\s"'\\]+)`)
)

// wellKnown namespaces and names are not identifying; keep them readable.
var wellKnown = map[string]bool{"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true}

func newRedactor(toks []tokenClass) *redactor {
	r := &redactor{names: map[string]string{}, used: map[string]bool{}, counter: map[string]int{}}
	for _, t := range toks {
		r.used[t.tok] = true
	}
	// Assign in sorted order per class, classes in a fixed order.
	byClass := map[string][]string{}
	for _, t := range toks {
		if t.tok == "" || wellKnown[t.tok] || len(t.tok) < 2 {
			continue
		}
		byClass[t.class] = append(byClass[t.class], t.tok)
	}
	for _, c := range []string{"node", "ns", "pod", "pv", "disk", "volume", "va", "uid"} {
		list := uniq(byClass[c])
		sort.Strings(list)
		for _, tok := range list {
			if _, ok := r.names[tok]; !ok {
				r.names[tok] = r.pseudonym(c, tok)
			}
		}
	}
	// Pods as "ns/name": both halves are redacted, keep the pair consistent.
	for _, t := range byClass["podref"] {
		ns, name, ok := strings.Cut(t, "/")
		if !ok {
			continue
		}
		pn, nn := r.names[name], r.names[ns]
		if pn == "" {
			pn = name
		}
		if nn == "" {
			nn = ns
		}
		r.names[t] = nn + "/" + pn
	}
	r.known = make(map[string]string, len(r.names))
	seen := map[int]bool{}
	for k, v := range r.names {
		r.known[k] = v
		if !seen[len(k)] {
			seen[len(k)] = true
			r.lengths = append(r.lengths, len(k))
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(r.lengths)))
	r.memo = map[string]string{}
	return r
}

// pseudonym hands out the next name of a class.
func (r *redactor) pseudonym(class, orig string) string {
	for {
		r.counter[class]++
		n := r.counter[class]
		var p string
		switch class {
		case "ip":
			p = fmt.Sprintf("192.0.2.%d", n)
			if n > 254 {
				p = fmt.Sprintf("198.51.%d.%d", 100+(n-255)/254, 1+(n-255)%254)
			}
		case "ns":
			p = fmt.Sprintf("ns-%d", n)
		default:
			p = fmt.Sprintf("%s-%d", class, n)
		}
		if !r.used[p] {
			r.used[p] = true
			return p
		}
	}
}

func (r *redactor) lookup(class, orig string) string {
	if p, ok := r.names[orig]; ok {
		return p
	}
	p := r.pseudonym(class, orig)
	r.names[orig] = p
	return p
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// s redacts one string.
func (r *redactor) s(in string) string {
	if in == "" {
		return in
	}
	if out, ok := r.memo[in]; ok {
		return out
	}
	out := r.replaceKnown(in)
	out = reVA().ReplaceAllStringFunc(out, func(m string) string { return r.lookup("va", m) })
	out = reUUID().ReplaceAllStringFunc(out, func(m string) string { return r.lookup("uid", strings.ToLower(m)) })
	out = reIPHost().ReplaceAllStringFunc(out, func(m string) string { return r.lookup("host", m) })
	out = reIPv4().ReplaceAllStringFunc(out, func(m string) string {
		if strings.HasPrefix(m, "192.0.2.") || strings.HasPrefix(m, "198.51.") {
			if r.used[m] {
				return m
			}
		}
		return r.lookup("ip", m)
	})
	out = reInstance().ReplaceAllStringFunc(out, func(m string) string { return r.lookup("instance", m) })
	out = reDisk().ReplaceAllStringFunc(out, func(m string) string { return r.lookup("disk", m) })
	out = reReqID().ReplaceAllStringFunc(out, func(m string) string {
		sm := reReqID().FindStringSubmatch(m)
		return sm[1] + r.lookup("req", sm[2])
	})
	out = reAzureRG().ReplaceAllStringFunc(out, func(m string) string {
		sm := reAzureRG().FindStringSubmatch(m)
		return sm[1] + r.lookup("rg", sm[2])
	})
	out = reAzureDsk().ReplaceAllStringFunc(out, func(m string) string {
		sm := reAzureDsk().FindStringSubmatch(m)
		return sm[1] + r.lookup("disk", sm[2])
	})
	r.memo[in] = out
	return out
}

// replaceKnown replaces every known name in s, longest first at each
// position. A name must not start or end inside a word ("node-1" inside
// "node-12" is left alone). Known names are looked up by length in a map, so
// the cost grows with the text and the number of distinct name lengths, not
// with the number of names.
func (r *redactor) replaceKnown(s string) string {
	if len(r.known) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if i > 0 && isWordByte(s[i-1]) && isWordByte(s[i]) {
			i++
			continue
		}
		matched := 0
		for _, n := range r.lengths {
			if i+n > len(s) {
				continue
			}
			if end := i + n; end < len(s) && isWordByte(s[end]) && isWordByte(s[end-1]) {
				continue
			}
			if p, ok := r.known[s[i:i+n]]; ok {
				b.WriteString(s[last:i])
				b.WriteString(p)
				matched = n
				break
			}
		}
		if matched == 0 {
			i++
			continue
		}
		i += matched
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func (r *redactor) list(in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = r.s(s)
	}
	return out
}

// --- token collection ---

func eventTokens(toks []tokenClass, e *parser.Event) []tokenClass {
	toks = append(toks,
		tokenClass{"node", e.Node}, tokenClass{"pv", e.PV}, tokenClass{"disk", e.Handle},
		tokenClass{"va", e.Attachment}, tokenClass{"uid", e.PodUID})
	toks = podTokens(toks, e.Pod)
	if e.Volume != "" && e.Handle == "" && e.PV == "" {
		toks = append(toks, tokenClass{"volume", e.Volume})
	}
	return toks
}

func podTokens(toks []tokenClass, pod string) []tokenClass {
	if pod == "" {
		return toks
	}
	if ns, name, ok := strings.Cut(pod, "/"); ok {
		return append(toks, tokenClass{"ns", ns}, tokenClass{"pod", name}, tokenClass{"podref", pod})
	}
	return append(toks, tokenClass{"pod", pod})
}

func volumeTokens(toks []tokenClass, v *timeline.Volume) []tokenClass {
	toks = append(toks, tokenClass{"pv", v.PV}, tokenClass{"disk", v.Handle})
	if v.Handle == "" && v.PV == "" {
		toks = append(toks, tokenClass{"volume", v.Key()})
	}
	for _, a := range v.Attachments() {
		toks = append(toks, tokenClass{"va", a})
	}
	for _, n := range v.Nodes() {
		toks = append(toks, tokenClass{"node", n})
	}
	for _, p := range v.Pods() {
		toks = podTokens(toks, p)
	}
	for i := range v.Events {
		toks = eventTokens(toks, &v.Events[i])
	}
	return toks
}

func newRedactorFor(tl *timeline.Timeline, evs []parser.Event, vols ...*timeline.Volume) *redactor {
	var toks []tokenClass
	if tl != nil {
		for _, v := range tl.Volumes {
			toks = volumeTokens(toks, v)
		}
		for i := range tl.Other {
			toks = eventTokens(toks, &tl.Other[i])
		}
	}
	for _, v := range vols {
		toks = volumeTokens(toks, v)
	}
	for i := range evs {
		toks = eventTokens(toks, &evs[i])
	}
	return newRedactor(toks)
}

// --- deep copies with every string redacted ---

func (r *redactor) event(ev parser.Event) parser.Event {
	e := ev.Draft() // the tuples are shared: a draft of names of its own
	e.Volume, e.PV, e.Handle, e.Attachment = r.s(e.Volume), r.s(e.PV), r.s(e.Handle), r.s(e.Attachment)
	e.Node, e.Pod, e.PodUID = r.s(e.Node), r.s(e.Pod), r.s(e.PodUID)
	e.Error, e.Detail, e.Reason = r.s(e.Error), r.s(e.Detail), r.s(e.Reason)
	e.Text = parser.TextOf(r.s(e.Text.String())) // a copy: the store's text stays as read
	e.Source.File = parser.InternPath(r.s(e.Source.Path()))
	return e.Event()
}

func (r *redactor) events(evs []parser.Event) []parser.Event {
	if evs == nil {
		return nil
	}
	out := make([]parser.Event, len(evs))
	for i, e := range evs {
		out[i] = r.event(e)
	}
	return out
}

func (r *redactor) intervals(iv []timeline.Interval) []timeline.Interval {
	if iv == nil {
		return nil
	}
	out := make([]timeline.Interval, len(iv))
	for i, x := range iv {
		x.Node = r.s(x.Node)
		out[i] = x
	}
	return out
}

func (r *redactor) volume(v *timeline.Volume) *timeline.Volume {
	c := *v
	c.UniqueName, c.PV, c.Handle = r.s(v.UniqueName), r.s(v.PV), r.s(v.Handle)
	c.SetKey(r.s(v.Key()))
	c.SetDriver(v.Driver())       // not redacted, when the UniqueName it is read from is
	c.SetNames(r.list(v.Names())) // after the UniqueName, PV and Handle
	c.SetNodes(r.list(v.Nodes()))
	c.SetPods(r.list(v.Pods()))
	c.SetAttachments(r.list(v.Attachments()))
	c.Events = r.events(v.Events)
	c.Intervals = r.intervals(v.Intervals)
	c.SetKubelet(r.intervals(v.Kubelet()))
	var overlaps []timeline.Overlap
	for _, o := range v.Overlaps() {
		no := o
		no.Nodes = r.list(o.Nodes)
		no.States = map[string]timeline.State{}
		for k, s := range o.States {
			no.States[r.s(k)] = s
		}
		overlaps = append(overlaps, no)
	}
	c.SetOverlaps(overlaps)
	return &c
}

func (r *redactor) timeline(tl *timeline.Timeline) *timeline.Timeline {
	if tl == nil {
		return nil
	}
	c := *tl
	c.Inputs = nil
	for _, in := range tl.Inputs {
		in.Path = r.s(in.Path)
		var ps []parser.Problem
		for _, p := range in.Problems {
			p.Message = r.s(p.Message)
			ps = append(ps, p)
		}
		in.Problems = ps
		if in.Fetch != nil {
			f := *in.Fetch
			f.Source, f.Selector, f.Query = r.s(f.Source), r.s(f.Selector), r.s(f.Query)
			in.Fetch = &f
		}
		c.Inputs = append(c.Inputs, in)
	}
	c.Volumes = nil
	for _, v := range tl.Volumes {
		c.Volumes = append(c.Volumes, r.volume(v))
	}
	c.Other = r.events(tl.Other)
	c.Restarts = nil
	for _, x := range tl.Restarts {
		x.Source.File = parser.InternPath(r.s(x.Source.Path()))
		c.Restarts = append(c.Restarts, x)
	}
	c.Skews = nil
	for _, x := range tl.Skews {
		x.Path = r.s(x.Path)
		c.Skews = append(c.Skews, x)
	}
	return &c
}

func (r *redactor) finding(f rules.Finding) rules.Finding {
	f.Volume, f.PV = r.s(f.Volume), r.s(f.PV)
	f.Nodes, f.Pods = r.list(f.Nodes), r.list(f.Pods)
	f.Summary, f.Explanation, f.Next = r.s(f.Summary), r.s(f.Explanation), r.s(f.Next)
	var ev []rules.Evidence
	for _, e := range f.Evidence {
		e.Path, e.Text, e.Note = r.s(e.Path), r.s(e.Text), r.s(e.Note)
		ev = append(ev, e)
	}
	f.Evidence = ev
	f.Steps = r.steps(f.Steps)
	return f
}

func (r *redactor) steps(in []rules.Step) []rules.Step {
	var out []rules.Step
	for _, s := range in {
		out = append(out, rules.Step{Phase: s.Phase, Text: r.s(s.Text)})
	}
	return out
}

func (r *redactor) incident(in rules.Incident) rules.Incident {
	in.Volume, in.PV = r.s(in.Volume), r.s(in.PV)
	in.Summary, in.RootCause, in.Component = r.s(in.Summary), r.s(in.RootCause), r.s(in.Component)
	in.Story = r.list(in.Story)
	in.Next = r.steps(in.Next)
	in.Chain = append([]int(nil), in.Chain...)
	return in
}

// redactAnalysis returns a redacted deep copy of a.
func redactAnalysis(a *Analysis) *Analysis {
	var toks []tokenClass
	if a.Timeline != nil {
		for _, v := range a.Timeline.Volumes {
			toks = volumeTokens(toks, v)
		}
		for i := range a.Timeline.Other {
			toks = eventTokens(toks, &a.Timeline.Other[i])
		}
	}
	for _, f := range a.Result.Findings {
		for _, n := range f.Nodes {
			toks = append(toks, tokenClass{"node", n})
		}
		for _, p := range f.Pods {
			toks = podTokens(toks, p)
		}
		toks = append(toks, tokenClass{"pv", f.PV})
	}
	r := newRedactor(toks)
	c := *a
	c.Timeline = r.timeline(a.Timeline)
	c.Result = rules.Result{Errors: r.list(a.Result.Errors)}
	for _, f := range a.Result.Findings {
		c.Result.Findings = append(c.Result.Findings, r.finding(f))
	}
	for _, in := range a.Result.Incidents {
		c.Result.Incidents = append(c.Result.Incidents, r.incident(in))
	}
	return &c
}

// redactTimeline returns redacted copies of tl and vols (vols may be tl's own).
func redactTimeline(tl *timeline.Timeline, vols []*timeline.Volume) (*timeline.Timeline, []*timeline.Volume) {
	r := newRedactorFor(tl, nil, vols...)
	var out []*timeline.Volume
	for _, v := range vols {
		out = append(out, r.volume(v))
	}
	return r.timeline(tl), out
}
