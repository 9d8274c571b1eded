package report

import (
	"sort"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Schema identifiers carried in the "schema" field of machine output.
const (
	SchemaAnalyze  = "kcmtrace/analyze/v1"
	SchemaEvents   = "kcmtrace/events/v1"
	SchemaTimeline = "kcmtrace/timeline/v1"
	SchemaVolumes  = "kcmtrace/volumes/v1"
)

// The wire structs below are the JSON contract; internal types stay free to
// change. Every slice is non-nil so that it encodes as [] and never null.

type wireAnalyze struct {
	Schema    string         `json:"schema"`
	Tool      *wireTool      `json:"tool,omitempty"`    // provenance.go
	Filters   *wireFilters   `json:"filters,omitempty"` // provenance.go
	Inputs    []wireInput    `json:"inputs"`
	Volumes   []wireVolume   `json:"volumes"`
	Findings  []wireFinding  `json:"findings"`
	Incidents []wireIncident `json:"incidents"`
	Restarts  []wireRestart  `json:"restarts"`
	Skews     []wireSkew     `json:"skews"`
	Summary   wireSummary    `json:"summary"`
	Errors    []string       `json:"errors"`
}

type wireSummary struct {
	Incidents  int            `json:"incidents"`
	Findings   int            `json:"findings"`
	Events     int            `json:"events"`
	Unknown    int            `json:"unknown"`
	Severities map[string]int `json:"severities"` // finding counts by severity name
	Start      string         `json:"start,omitempty"`
	End        string         `json:"end,omitempty"`
	Duplicates int            `json:"duplicates"`
	// VolumesOmitted: the volumes no finding names, left out of volumes[]
	// (Options.FlaggedOnly); 0, and absent, when every volume is listed.
	VolumesOmitted int `json:"volumes_omitted,omitempty"`
}

type wireInput struct {
	Path       string         `json:"path"`
	Component  string         `json:"component"`
	Wrapper    string         `json:"wrapper"`
	Format     string         `json:"format"`
	Bytes      int64          `json:"bytes"`
	Lines      int            `json:"lines"`
	Relevant   int            `json:"relevant"`
	EventLines int            `json:"event_lines"`
	Irrelevant int            `json:"irrelevant"`
	Events     int            `json:"events"`
	Unknown    int            `json:"unknown"`
	Skipped    map[string]int `json:"skipped"`
	First      string         `json:"first,omitempty"`
	Last       string         `json:"last,omitempty"`
	Year       int            `json:"year"`
	YearSource string         `json:"year_source"`
	Zone       string         `json:"zone"`
	ZoneSource string         `json:"zone_source"`
	Truncated  bool           `json:"truncated"`
	Dropped    int            `json:"dropped,omitempty"` // events past the run's event budget (parser.Input.Dropped)
	Problems   []wireProblem  `json:"problems"`
	// log exports (wrapper names the envelope): records read, records
	// without a usable time, duplicate records dropped
	Records    int `json:"records,omitempty"`
	NoTime     int `json:"no_time,omitempty"`
	Duplicates int `json:"duplicates,omitempty"`
	// cluster-state inputs (state.go): role state or events, the objects
	// read, when the dump was taken
	Role      string `json:"role,omitempty"`
	Objects   int    `json:"objects,omitempty"`
	Taken     string `json:"taken,omitempty"`
	TakenFrom string `json:"taken_from,omitempty"`
	// fetched from a log store (kcmtrace analyze STORE-URL): how
	Fetch *wireFetch `json:"fetch,omitempty"`
}

// wireFetch is how an input was fetched from a log store.
type wireFetch struct {
	Source        string `json:"source"`
	Selector      string `json:"selector"`
	Query         string `json:"query"`
	Pushdown      string `json:"pushdown"`
	Fallback      string `json:"fallback,omitempty"`
	Since         string `json:"since"`
	Until         string `json:"until"`
	DefaultWindow bool   `json:"default_window"`
	Records       int    `json:"records"`
	Requests      int    `json:"requests"`
	Joined        int    `json:"joined,omitempty"`
	Truncated     string `json:"truncated,omitempty"`
}

func toWireFetch(f *parser.Fetch) *wireFetch {
	if f == nil {
		return nil
	}
	return &wireFetch{
		Source: Sanitize(f.Source), Selector: Sanitize(f.Selector), Query: Sanitize(f.Query),
		Pushdown: f.Pushdown, Fallback: Sanitize(f.Fallback), Since: ts(f.Since), Until: ts(f.Until),
		DefaultWindow: f.DefaultWindow, Records: f.Records, Requests: f.Requests, Joined: f.Joined, Truncated: Sanitize(f.Truncated),
	}
}

type wireProblem struct {
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

type wireVolume struct {
	Volume      string         `json:"volume"`
	PV          string         `json:"pv"`
	Handle      string         `json:"handle"`
	Driver      string         `json:"driver"`
	Names       []string       `json:"names"`
	Attachments []string       `json:"attachments"`
	Nodes       []string       `json:"nodes"`
	Pods        []string       `json:"pods"`
	Multi       bool           `json:"multi"`
	Events      int            `json:"events"`
	First       string         `json:"first,omitempty"`
	Last        string         `json:"last,omitempty"`
	Failures    wireFailures   `json:"failures"`
	Kinds       map[string]int `json:"kinds"`
	Objects     []wireObject   `json:"objects,omitempty"` // cluster-state objects joined to the volume
}

type wireFailures struct {
	Attach int `json:"attach"`
	Detach int `json:"detach"`
	Mount  int `json:"mount"`
}

type wireFinding struct {
	Index       int            `json:"index"`
	Rule        string         `json:"rule"`
	Severity    string         `json:"severity"`
	Volume      string         `json:"volume"`
	PV          string         `json:"pv"`
	Handle      string         `json:"handle,omitempty"` // the volume's disk id, as in volumes[]
	Driver      string         `json:"driver,omitempty"` // the volume's driver, as in volumes[]
	Input       string         `json:"input,omitempty"`  // a finding without a volume: the input its lines are from
	Nodes       []string       `json:"nodes"`
	Pods        []string       `json:"pods"`
	Start       string         `json:"start,omitempty"`
	End         string         `json:"end,omitempty"`
	Count       int            `json:"count"`
	Code        string         `json:"code,omitempty"`
	Summary     string         `json:"summary"`
	Explanation string         `json:"explanation"`
	Next        string         `json:"next,omitempty"`
	Incident    *int           `json:"incident"` // index into incidents, null when standalone
	Evidence    []wireEvidence `json:"evidence"`
	Checks      []wireCheck    `json:"checks,omitempty"` // what the cluster state said
}

type wireEvidence struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Time string `json:"time,omitempty"`
	Text string `json:"text"`
	Note string `json:"note,omitempty"`
	// SourceKind is "state" for a cluster-state object, absent for a log line.
	SourceKind string `json:"source_kind,omitempty"`
}

// wireStep is one next step: phase (recover, confirm, fix, prevent) and text.
type wireStep struct {
	Phase string `json:"phase"`
	Text  string `json:"text"`
}

type wireIncident struct {
	Volume    string     `json:"volume"`
	PV        string     `json:"pv"`
	Severity  string     `json:"severity"`
	Summary   string     `json:"summary"`
	RootCause string     `json:"root_cause,omitempty"`
	Component string     `json:"component,omitempty"`
	Story     []string   `json:"story"`
	Next      []wireStep `json:"next"`
	Chain     []int      `json:"chain"`
	Start     string     `json:"start,omitempty"`
	End       string     `json:"end,omitempty"`
	Nodes     []string   `json:"nodes"`
	Pods      []string   `json:"pods"`
}

type wireRestart struct {
	Time   string `json:"time,omitempty"`
	Path   string `json:"path"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type wireSkew struct {
	Path     string  `json:"path"`
	Offset   string  `json:"offset"`
	OffsetMS float64 `json:"offset_ms"`
	Pairs    int     `json:"pairs"`
	From     string  `json:"from"`
}

// wireEvent is one line of `kcmtrace events` (schema kcmtrace/events/v1).
type wireEvent struct {
	Time       string     `json:"time,omitempty"`
	Relative   bool       `json:"relative,omitempty"`
	Kind       string     `json:"kind"`
	Volume     string     `json:"volume,omitempty"`
	PV         string     `json:"pv,omitempty"`
	Handle     string     `json:"handle,omitempty"`
	Attachment string     `json:"attachment,omitempty"`
	Node       string     `json:"node,omitempty"`
	Pod        string     `json:"pod,omitempty"`
	Error      string     `json:"error,omitempty"`
	Code       string     `json:"code,omitempty"`
	Count      int        `json:"count,omitempty"`
	Span       string     `json:"span,omitempty"`
	Component  string     `json:"component,omitempty"`
	Origin     string     `json:"origin,omitempty"`
	EchoOf     int        `json:"echo_of,omitempty"` // an Event echo: the line of the same file that logged its operation
	Level      string     `json:"level,omitempty"`
	Detail     string     `json:"detail,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Backoff    string     `json:"backoff,omitempty"`
	PID        int        `json:"pid,omitempty"`
	Source     wireSource `json:"source"`
}

type wireSource struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}

type wireTimeline struct {
	Schema   string            `json:"schema"`
	Tool     *wireTool         `json:"tool,omitempty"`
	Filters  *wireFilters      `json:"filters,omitempty"`
	Start    string            `json:"start,omitempty"`
	End      string            `json:"end,omitempty"`
	Restarts []wireRestart     `json:"restarts"`
	Skews    []wireSkew        `json:"skews"`
	Volumes  []wireTimelineVol `json:"volumes"`
}

type wireTimelineVol struct {
	wireVolume
	Intervals []wireInterval `json:"intervals"`
	Kubelet   []wireInterval `json:"kubelet"`
	Overlaps  []wireOverlap  `json:"overlaps"`
	EventList []wireEvent    `json:"event_list"`
}

type wireInterval struct {
	Node  string `json:"node"`
	State string `json:"state"`
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"` // absent: still open when the logs end
}

type wireOverlap struct {
	Start  string            `json:"start,omitempty"`
	End    string            `json:"end,omitempty"`
	Nodes  []string          `json:"nodes"`
	States map[string]string `json:"states"`
}

type wireVolumes struct {
	Schema  string       `json:"schema"`
	Tool    *wireTool    `json:"tool,omitempty"`
	Filters *wireFilters `json:"filters,omitempty"`
	Volumes []wireVolume `json:"volumes"`
}

func strs(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	out := make([]string, len(ss))
	copy(out, ss)
	return out
}

func toWireInput(in parser.Input) wireInput {
	w := wireInput{
		Path: in.Path, Component: in.Component, Wrapper: in.Wrapper, Format: in.Format,
		Bytes: in.Bytes, Lines: in.Lines, Relevant: in.Relevant, EventLines: in.EventLines, Irrelevant: in.Irrelevant, Events: in.Events, Unknown: in.Unknown,
		Skipped: map[string]int{}, First: ts(in.First), Last: ts(in.Last),
		Year: in.Year, YearSource: in.YearFrom, Zone: in.Zone, ZoneSource: in.ZoneFrom,
		Truncated: in.Truncated, Dropped: in.Dropped, Problems: []wireProblem{},
		Records: in.Records, NoTime: in.NoTime, Duplicates: in.Duplicates,
		Fetch: toWireFetch(in.Fetch),
	}
	for k, v := range in.Skipped {
		w.Skipped[k] = v
	}
	for _, p := range in.Problems {
		w.Problems = append(w.Problems, wireProblem{Line: p.Line, Message: Sanitize(p.Message)})
	}
	return w
}

// failures counts v's failures, each once (timeline.FailureTally).
func failures(v *timeline.Volume) wireFailures {
	var t timeline.FailureTally
	for i := range v.Events {
		t.Add(&v.Events[i])
	}
	return toWireFailures(&t)
}

func toWireFailures(t *timeline.FailureTally) wireFailures {
	var f wireFailures
	f.Attach, f.Detach, f.Mount = t.Counts()
	return f
}

// kindCount is how many of a volume's events are of one kind.
type kindCount struct {
	kind parser.Kind
	n    int
}

// tallyVolume counts v's failures and its events by kind in one pass over
// the events; the kind counts are appended to kinds (scratch space the
// caller may keep on its stack), sorted by kind as a JSON encoder sorts map
// keys.
func tallyVolume(v *timeline.Volume, kinds []kindCount) (wireFailures, []kindCount) {
	var t timeline.FailureTally
	kinds = kinds[:0]
	for i := range v.Events {
		e := &v.Events[i]
		t.Add(e)
		j := 0
		for j < len(kinds) && kinds[j].kind != e.Kind {
			j++
		}
		if j == len(kinds) { // a new kind (rare): move it into order
			kinds = append(kinds, kindCount{kind: e.Kind})
			for ; j > 0 && kinds[j-1].kind.String() > e.Kind.String(); j-- {
				kinds[j], kinds[j-1] = kinds[j-1], kinds[j]
			}
		}
		kinds[j].n++
	}
	return toWireFailures(&t), kinds
}

// wireVolumeName is a volume's "volume" field: its UniqueName, else its key.
func wireVolumeName(v *timeline.Volume) string {
	if v.UniqueName == "" {
		return v.Key()
	}
	return v.UniqueName
}

func toWireFinding(i int, f rules.Finding, incident map[int]int, vols map[string]*timeline.Volume) wireFinding {
	w := wireFinding{
		Index: i, Rule: f.Rule, Severity: f.Severity.String(), Volume: f.Volume, PV: f.PV, Input: f.Input,
		Nodes: strs(f.Nodes), Pods: strs(f.Pods), Start: ts(f.Start), End: ts(f.End), Count: f.Count,
		Code: f.Code, Summary: Sanitize(f.Summary), Explanation: Sanitize(f.Explanation), Next: Sanitize(f.Next),
		Evidence: []wireEvidence{},
	}
	if v := vols[f.Volume]; v != nil {
		w.Handle, w.Driver = v.Handle, v.Driver()
	}
	if n, ok := incident[i]; ok {
		n := n
		w.Incident = &n
	}
	for _, e := range f.Evidence {
		w.Evidence = append(w.Evidence, wireEvidence{Path: e.Path, Line: e.Line, Time: ts(e.Time), Text: Sanitize(e.Text), Note: e.Note, SourceKind: e.SourceKind})
	}
	w.Checks = toWireChecks(f.Checks)
	return w
}

// volumesByName indexes tl's volumes by the names findings use for them
// (Finding.Volume: the UniqueName, else the key), for the names fs uses
// only: a run has a few findings and may have tens of thousands of
// volumes, whose index cost a serial 12 ms and 4 MB on the churn shape's
// 1 GiB. A name two volumes answer to goes to the later one, as indexing
// them all in order gave it.
func volumesByName(tl *timeline.Timeline, fs []rules.Finding) map[string]*timeline.Volume {
	if len(fs) == 0 {
		return nil
	}
	m := make(map[string]*timeline.Volume, len(fs))
	for i := range fs {
		m[fs[i].Volume] = nil
	}
	for _, v := range tl.Volumes {
		for _, n := range [2]string{v.Key(), wireVolumeName(v)} {
			if _, ok := m[n]; ok {
				m[n] = v
			}
		}
	}
	return m
}

func toWireIncident(in rules.Incident, fs []rules.Finding) wireIncident {
	w := wireIncident{
		Volume: in.Volume, PV: in.PV, Severity: in.Severity.String(), Summary: Sanitize(in.Summary),
		RootCause: Sanitize(in.RootCause), Component: in.Component, Story: strs(in.Story), Chain: []int{},
		Nodes: []string{}, Pods: []string{}, Next: []wireStep{},
	}
	for k, s := range w.Story {
		w.Story[k] = Sanitize(s)
	}
	for _, s := range in.Next {
		w.Next = append(w.Next, wireStep{Phase: s.Phase.String(), Text: Sanitize(s.Text)})
	}
	var nodes, pods []string
	for _, c := range in.Chain {
		w.Chain = append(w.Chain, c)
		if c < 0 || c >= len(fs) {
			continue
		}
		f := fs[c]
		if !f.Start.IsZero() && (w.Start == "" || ts(f.Start) < w.Start) {
			w.Start = ts(f.Start)
		}
		end := f.End
		if end.IsZero() {
			end = f.Start
		}
		if !end.IsZero() && ts(end) > w.End {
			w.End = ts(end)
		}
		nodes = append(nodes, f.Nodes...)
		pods = append(pods, f.Pods...)
	}
	sort.Strings(nodes)
	sort.Strings(pods)
	w.Nodes = strs(uniq(nodes))
	w.Pods = strs(uniq(pods))
	return w
}

func toWireRestart(r timeline.Restart) wireRestart {
	return wireRestart{Time: ts(r.Time), Path: r.Source.Path(), Line: int(r.Source.Line), Reason: r.Reason}
}

func toWireSkew(s timeline.Skew) wireSkew {
	return wireSkew{Path: s.Path, Offset: s.Offset.String(), OffsetMS: float64(s.Offset.Microseconds()) / 1000, Pairs: s.Pairs, From: s.From}
}

// toWireOverlaps is the wire form of a volume's overlaps.
func toWireOverlaps(ovs []timeline.Overlap) []wireOverlap {
	out := []wireOverlap{}
	for _, o := range ovs {
		wo := wireOverlap{Start: ts(o.Start), End: ts(o.End), Nodes: strs(o.Nodes), States: map[string]string{}}
		for k, s := range o.States {
			wo.States[k] = s.String()
		}
		out = append(out, wo)
	}
	return out
}
