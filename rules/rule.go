package rules

import (
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/swar"
	"github.com/kcmtrace/kcmtrace/parser/textstore"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Doc is a rule's documentation; `kcmtrace rules`, `kcmtrace explain`, the
// README table and JSON all read it from here.
type Doc struct {
	Title       string // one line
	Explanation string // the mechanism, in the controller's terms
	Next        string // what to check next
}

// Param is one tunable threshold, set with --set rule.key=value.
type Param struct {
	Key     string
	Default string
	Help    string
}

// Rule is a value: everything a rule is — its metadata, its check, and the
// part its findings play in an incident. Register rules from a package-level
// var in their own file, rule_<name>.go; TestRuleComplete fails when a
// registered rule lacks any of the parts below (or its fixtures, or its
// README row).
type Rule struct {
	Name     string // stable kebab-case ID
	Severity Severity
	Doc      Doc
	Params   []Param
	Check    func(*Context) []Finding // log evidence's Text is read by Run, after every Check

	// Rank orders findings on one volume that start together: lower ranks
	// are causes and come first in the incident's chain. Ranks are distinct.
	Rank int
	// Story tells one of the rule's findings as part of incident c: its
	// story lines, in order, and the next steps it adds (usually f.Steps).
	// StorySummary is the plain telling.
	Story func(f *Finding, c *Chain) (story []string, next []Step)
	// Cause names the root cause of incident c, which holds at least one of
	// the rule's findings; false leaves it to the next rule. Rules are asked
	// in CauseOrder, lowest first (distinct, like Rank): the most telling
	// finding names the incident.
	Cause      func(c *Chain) (Cause, bool)
	CauseOrder int
	// Reorder, when set, corrects where another finding f of the chain is
	// placed (at, its start on the chain's clock) relative to own, one of
	// this rule's findings: clocks of different components must not put an
	// effect before its cause. It returns at unchanged when f is unrelated.
	Reorder func(own, f *Finding, at time.Time) time.Time
	// Verify, when set, asks the cluster state (Context.State, only called
	// when there is one) about one of the rule's findings and records the
	// answers on it (Finding.Checks, evidence lines with SourceKind
	// SourceState, the confirm steps answered); see state_checks.go.
	Verify func(c *Context, f *Finding)
}

// Evidence is one input line behind a finding; the first is the primary line.
type Evidence struct {
	Path string
	Line int
	Time time.Time
	// Text is the line as read (its wrapper removed). A log line a Check
	// quotes has it once Run returns: Run reads the lines of all the
	// run's findings at once, after every Check (readEvidence).
	Text string
	Note string // why this line matters, e.g. "attach to B succeeded"
	// SourceKind is "" for a log line, SourceState for a cluster-state
	// object (Path and Line name where it was read, Time when the dump
	// was taken at the earliest).
	SourceKind string
	// text is a log line's text not read yet: a rule quotes its evidence
	// (evidence), and the engine reads the texts of every finding of a
	// run at once, into Text, before anything else reads the findings
	// (readEvidence).
	text textstore.Text
}

// SourceState is the SourceKind of evidence read from cluster state.
const SourceState = "state"

// Verdict is what the cluster state says about a finding's diagnosis.
type Verdict string

// Verdicts.
const (
	Confirmed    Verdict = "confirmed"
	Contradicted Verdict = "contradicted"
	Undecided    Verdict = "unknown" // the state does not tell, or is older than the logs it would answer
)

// Check is one question a rule asked the cluster state about a finding
// ("zone", "attachment", "detach", "driver", "limit", "access") and the
// answer.
type Check struct {
	Check   string
	Verdict Verdict
	Text    string
}

// Finding is one thing a rule found on one volume.
type Finding struct {
	Rule        string
	Severity    Severity
	Volume      string // UniqueName (or Key)
	Input       string // for a finding without a volume: the input its lines are from (see separateInputs)
	PV          string
	Nodes       []string
	Pods        []string
	Start       time.Time
	End         time.Time
	Count       int
	Code        string // error class when the finding is about one
	Summary     string // one line
	Explanation string // the mechanism for this case
	Next        string // what to check next, for this case: Steps joined
	Steps       []Step // the same, as ordered steps; see SetNext
	Evidence    []Evidence
	Checks      []Check // what the cluster state said (Rule.Verify), when given
	// Times are the times written in the texts above (Summary to the
	// evidence notes), as they are written there: in UTC (see TimeMark).
	Times []TimeMark `json:"-"`
}

// Phase orders next steps: get the workload back first, then find and fix
// the cause, then keep it from happening again.
type Phase int

// Phases, in the order an on-call engineer takes them.
const (
	Recover Phase = iota + 1 // make the pod run again now
	Confirm                  // verify the diagnosis
	Fix                      // fix the root cause
	Prevent                  // keep it from recurring
)

// String is the phase's label: "recover", "confirm", "fix", "prevent".
func (p Phase) String() string {
	switch p {
	case Recover:
		return "recover"
	case Confirm:
		return "confirm"
	case Fix:
		return "fix"
	case Prevent:
		return "prevent"
	}
	return "check"
}

// Step is one next step: one action, one sentence or two.
type Step struct {
	Phase Phase
	Text  string
}

// SetNext sets the finding's steps and its Next text (the steps joined).
func (f *Finding) SetNext(steps ...Step) {
	f.Steps = nil
	var b strings.Builder
	for _, s := range steps {
		if s.Text == "" {
			continue
		}
		f.Steps = append(f.Steps, s)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s.Text)
	}
	f.Next = b.String()
}

// MergeSteps orders steps by phase (stable) and drops repeats: a step whose
// text (case and spacing aside) equals or is contained in one already kept,
// and sentences repeated across steps.
func MergeSteps(steps []Step) []Step { return mergeSteps(steps, true) }

// mergeSteps is MergeSteps; skipMet false looks at a text met before again
// (the definition TestMergeStepsSkipsWhatItWould holds the shortcut to).
func mergeSteps(steps []Step, skipMet bool) []Step {
	sorted := slices.Clone(steps)
	slices.SortStableFunc(sorted, func(a, b Step) int { return int(a.Phase) - int(b.Phase) })
	var out []Step
	var said []string         // out's texts, normalised
	seen := map[string]bool{} // normalised sentences already said
	// A text met before is dropped whatever its phase: the first time it
	// was either dropped as said already or had each of its sentences
	// marked seen, and said and seen only grow. (An incident of a retry
	// storm gives the same steps dozens of times: normalising them again
	// was most of its cost.)
	met := map[string]bool{}
next:
	for _, s := range sorted {
		if skipMet && met[s.Text] {
			continue
		}
		met[s.Text] = true
		n := normStep(s.Text)
		if n == "" {
			continue
		}
		for _, o := range said {
			if strings.Contains(o, n) {
				continue next
			}
		}
		var kept []string
		for _, sent := range sentences(s.Text) {
			if k := normStep(sent); !seen[k] {
				seen[k] = true
				kept = append(kept, sent)
			}
		}
		if len(kept) == 0 {
			continue
		}
		out = append(out, Step{Phase: s.Phase, Text: strings.Join(kept, " ")})
		said = append(said, normStep(out[len(out)-1].Text))
	}
	return out
}

// normStep is a step's text as MergeSteps compares it: lower case, its
// runs of spaces one space, none at the ends —
// strings.ToLower(strings.Join(strings.Fields(s), " ")), in one pass and
// one allocation when s is ASCII (a storm's incident merges hundreds of
// steps).
func normStep(s string) string {
	if !swar.IsASCII(s) {
		return strings.ToLower(strings.Join(strings.Fields(s), " "))
	}
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			space = len(b) > 0
			continue
		}
		if space {
			b = append(b, ' ')
			space = false
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// sentences splits text after ". " (keeping the period); abbreviations
// such as "e.g." are not followed by a capital letter and stay joined.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' && 'A' <= s[i+2] && s[i+2] <= 'Z' {
			out = append(out, strings.TrimSpace(s[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// Incident groups findings on one volume that form one causal chain.
type Incident struct {
	Volume    string
	PV        string
	Severity  Severity
	Summary   string   // one line naming the likely root cause
	RootCause string   // the mechanism, a few sentences
	Component string   // where to look: "CSI driver ControllerUnpublishVolume", …
	Story     []string // the chain as short steps, in order
	Next      []Step   // what to do, distinct steps ordered by phase
	Chain     []int    // indices into Result.Findings, in causal order
	// Times are the times written in the texts above and in the chain's
	// findings (a story line may quote one), in UTC (see TimeMark).
	Times []TimeMark `json:"-"`
}

// Result is what Run returns.
type Result struct {
	Findings  []Finding  // ordered by severity (desc), then start time, volume, rule
	Incidents []Incident // ordered by severity (desc), then first finding
	Errors    []string   // internal errors: a rule that panicked, etc.
}

// Context is what a rule's Check sees.
type Context struct {
	Timeline *timeline.Timeline
	rule     *Rule
	settings map[string]string
	shared   *runFacts // see facts
}
