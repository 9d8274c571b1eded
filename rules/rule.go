package rules

import (
	"time"

	"github.com/kcmtrace/kcmtrace/timeline"
)

// Severity orders findings. The zero value is "none".
type Severity int

// Severities, least to most severe.
const (
	None Severity = iota
	Info
	Warning
	Critical
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

// Rule is a value: metadata plus a check. Register rules from a package-level
// var in their own file.
type Rule struct {
	Name     string // stable kebab-case ID
	Severity Severity
	Doc      Doc
	Params   []Param
	Check    func(*Context) []Finding
}

// Evidence is one input line behind a finding; the first is the primary line.
type Evidence struct {
	Path string
	Line int
	Time time.Time
	Text string
	Note string // why this line matters, e.g. "attach to B succeeded"
}

// Finding is one thing a rule found on one volume.
type Finding struct {
	Rule        string
	Severity    Severity
	Volume      string // UniqueName (or Key)
	PV          string
	Nodes       []string
	Pods        []string
	Start       time.Time
	End         time.Time
	Count       int
	Code        string // error class when the finding is about one
	Summary     string // one line
	Explanation string // the mechanism for this case
	Next        string // what to check next, for this case
	Evidence    []Evidence
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
	Chain     []int    // indices into Result.Findings, in causal order
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
}
