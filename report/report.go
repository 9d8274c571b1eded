package report

import (
	"time"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Analysis is everything `kcmtrace analyze` shows.
type Analysis struct {
	Timeline *timeline.Timeline
	Result   rules.Result
	Rules    []rules.Rule // rules that ran (for coverage/explain)
	Events   int          // total events
}

// Options shape every renderer.
type Options struct {
	Color  bool // lipgloss colour; false → plain text, no ANSI at all
	Width  int  // terminal width; 0 → 100; stays readable at 80
	Redact bool // consistent pseudonyms for nodes, IPs, pods, namespaces, disks, request IDs

	Wide      bool // tables: every column, no name shortened whatever the width (-o wide)
	NoHeaders bool // tables: no header line (--no-headers)
	NoRule    bool // tables: no rule under the header (the CLI sets it when not on a terminal)

	// Rerun are the arguments that make a suggested command read what this
	// run read: the inputs and the flags that change what is read
	// (--since, --year, --tz, …), unquoted. Suggestions such as
	// "kcmtrace timeline --volume X" end with them, shell-quoted.
	Rerun []string

	// Version is the tool version the JSON's "tool" object names (the CLI
	// sets what --version prints); "" leaves "tool" out, as tests do.
	Version string
	// Filters are the selections the run applied, echoed as the JSON's
	// "filters" object; nil leaves it out.
	Filters *Filters
	// Zone is the zone the human renderers (text, Markdown) write times in
	// (--display-tz); nil is UTC. JSON and YAML stay UTC.
	Zone *time.Location
	// FlaggedOnly lists, in analyze's JSON, YAML and HTML, only the
	// volumes a finding names (--flagged-only); the others are counted
	// (summary.volumes_omitted). False lists every volume, the v1
	// contract. Text and Markdown list flagged volumes only either way.
	FlaggedOnly bool
}

// DefaultWidth is the width used when Options.Width is 0.
const DefaultWidth = 100

// MinWidth is the narrowest layout the text renderers attempt.
const MinWidth = 60

func (o Options) width() int {
	switch {
	case o.Width <= 0:
		return DefaultWidth
	case o.Width < MinWidth:
		return MinWidth
	}
	return o.Width
}
