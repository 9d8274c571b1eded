package report

// Provenance: the "tool" and "filters" objects that head the JSON (and YAML)
// of analyze, timeline and volumes, so a saved report says which build wrote
// it and what it was restricted to.

import "time"

// ToolName is the "name" of the "tool" object.
const ToolName = "kcmtrace"

// Filters are the selections a run applied, as the CLI took them.
type Filters struct {
	Since, Until string    // --since/--until as given ("" when not)
	Start, End   time.Time // the window actually used; zero: open on that side
	Volume       string    // --volume, --node, --pod queries
	Node, Pod    string
	Enable       []string // analyze's rule selection and thresholds (RULE.KEY=VALUE)
	Disable      []string
	Set          []string
	InputFormat  string // --input-format ("auto" when detected)
	FlaggedOnly  bool   // --flagged-only: volumes[] lists the flagged volumes only
}

type wireTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type wireFilters struct {
	Since       string     `json:"since"`
	Until       string     `json:"until"`
	Window      wireWindow `json:"window"`
	Volume      string     `json:"volume"`
	Node        string     `json:"node"`
	Pod         string     `json:"pod"`
	Enable      []string   `json:"enable"`
	Disable     []string   `json:"disable"`
	Set         []string   `json:"set"`
	InputFormat string     `json:"input_format"`
	FlaggedOnly bool       `json:"flagged_only,omitempty"`
}

type wireWindow struct {
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
}

// redactedQuery stands for a selector query under --redact: a fuzzy query
// is a fragment of a name and has no pseudonym of its own.
const redactedQuery = "[redacted]"

func toWireFilters(f *Filters, redact bool) wireFilters {
	query := func(q string) string {
		if redact && q != "" {
			return redactedQuery
		}
		return Sanitize(q)
	}
	clean := func(ss []string) []string {
		out := strs(ss)
		for i, s := range out {
			out[i] = Sanitize(s)
		}
		return out
	}
	return wireFilters{
		Since: Sanitize(f.Since), Until: Sanitize(f.Until),
		Window: wireWindow{Start: ts(f.Start), End: ts(f.End)},
		Volume: query(f.Volume), Node: query(f.Node), Pod: query(f.Pod),
		Enable: clean(f.Enable), Disable: clean(f.Disable), Set: clean(f.Set),
		InputFormat: Sanitize(f.InputFormat), FlaggedOnly: f.FlaggedOnly,
	}
}

// provenance writes "tool" (when Options.Version is set) and "filters" (when
// Options.Filters is set) after "schema".
func provenance(out *objectWriter, o Options) {
	if o.Version != "" {
		out.field("tool", wireTool{Name: ToolName, Version: Sanitize(o.Version)})
	}
	if o.Filters != nil {
		out.field("filters", toWireFilters(o.Filters, o.Redact))
	}
}
