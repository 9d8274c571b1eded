package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/livesource"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// analyzeCmd is `kcmtrace analyze`.
type analyzeCmd struct {
	inputFlags  `embed:""`
	outputFlags `embed:""`

	FailOn  string   `help:"Exit 1 when a finding is at least this severe: none, info, warning or critical." enum:"none,info,warning,critical" default:"none"`
	Enable  []string `help:"Run only these rules (repeatable, comma-separated)." placeholder:"RULE" predictor:"rule"`
	Disable []string `help:"Skip these rules (repeatable, comma-separated)." placeholder:"RULE" predictor:"rule"`
	Set     []string `help:"Change a rule threshold, e.g. attach-retry-storm.min-failures=5 (repeatable)." placeholder:"RULE.KEY=VALUE"`
	// FlaggedOnly: a large cluster's report is mostly volumes nothing is
	// wrong with (1 GiB of churn, 35k volumes: all but 45 KB of the JSON's
	// 35 MB).
	FlaggedOnly bool `help:"List only the volumes a finding names in json, yaml and html (the rest are counted: summary.volumes_omitted); by default every volume is listed."`
}

// analyzeFormats are analyze's formats, the default first.
var analyzeFormats = []string{"text", "wide", "json", "yaml", "markdown", "html", "name"}

func (c *analyzeCmd) run(e env) error {
	out, err := c.resolve(analyzeFormats)
	if err != nil {
		return err
	}
	out.inputs = c.Paths
	set := make(map[string]string, len(c.Set))
	for _, s := range c.Set {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return usageErr("--set %s: want RULE.KEY=VALUE", s)
		}
		set[k] = v
	}
	cfg := rules.Config{Enable: splitList(c.Enable), Disable: splitList(c.Disable), Set: set}
	selected, err := rules.Select(cfg)
	if err != nil {
		return usageErr("%v", err) // before reading input: a typo should not cost a 1 GiB parse
	}
	l, vols, err := c.loadView(e, "")
	if err != nil {
		return err
	}
	tl := withVolumes(l.timeline, vols)
	region := phase("rules")
	res, err := rules.Run(tl, cfg)
	region.End()
	if err != nil {
		return usageErr("%v", err)
	}
	for _, msg := range res.Errors {
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(msg))
	}
	a := &report.Analysis{Timeline: tl, Result: res, Rules: selected, Events: l.events}
	err = c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		o.Rerun = c.rerunArgs()
		o.Filters = c.filters(l)
		o.Filters.Enable, o.Filters.Disable, o.Filters.Set = cfg.Enable, cfg.Disable, c.Set
		o.FlaggedOnly, o.Filters.FlaggedOnly = c.FlaggedOnly, c.FlaggedOnly
		defer phase("render").End()
		return report.AnalysisFormats.For(out.format).Render(w, a, o)
	})
	if err != nil {
		return err
	}
	if err := l.exitErr(len(res.Findings) > 0); err != nil {
		return err
	}
	if failOn := mustSeverity(c.FailOn); failOn != rules.None {
		for _, f := range res.Findings {
			if f.Severity >= failOn {
				return &codeError{code: exitFindings}
			}
		}
	}
	return nil
}

func mustSeverity(s string) rules.Severity {
	sev, err := rules.ParseSeverity(s)
	if err != nil {
		return rules.None
	}
	return sev
}

// splitList flattens repeatable, comma-separated flag values.
func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// unknownRule is the usage error for a rule name that does not exist.
func unknownRule(name string) error {
	msg := fmt.Sprintf("unknown rule %q", name)
	if s := rules.Suggest(name); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usageErr("%s (kcmtrace rules lists them)", msg)
}

// timelineCmd is `kcmtrace timeline`.
type timelineCmd struct {
	inputFlags  `embed:""`
	outputFlags `embed:""`
}

var timelineFormats = []string{"text", "json", "yaml", "markdown", "html", "name"}

func (c *timelineCmd) run(e env) error {
	out, err := c.resolve(timelineFormats)
	if err != nil {
		return err
	}
	out.inputs = c.Paths
	l, vols, err := c.loadView(e, "")
	if err != nil {
		return err
	}
	err = c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		o.Rerun = c.rerunArgs()
		o.Filters = c.filters(l)
		return report.TimelineFormats.For(out.format).Render(w, report.TimelineView{Timeline: l.timeline, Volumes: vols}, o)
	})
	if err != nil {
		return err
	}
	return l.exitErr(false)
}

// eventsCmd is `kcmtrace events`.
type eventsCmd struct {
	inputFlags  `embed:""`
	outputFlags `embed:""`

	Kind    []string `help:"Only events of these kinds (repeatable, comma-separated), e.g. attach-failed,detach-started." placeholder:"KIND" predictor:"kind"`
	Unknown bool     `help:"Only the lines that were not understood (kind unknown), with the reason."`
}

var eventsFormats = []string{"jsonl", "text", "wide", "yaml"}

func (c *eventsCmd) run(e env) error {
	out, err := c.resolve(eventsFormats)
	if err != nil {
		return err
	}
	out.inputs = c.Paths
	kinds := splitList(c.Kind)
	if c.Unknown {
		kinds = append(kinds, parser.Unknown.String())
	}
	if err := checkKinds(kinds); err != nil {
		return err
	}
	l, vols, err := c.loadView(e, "")
	if err != nil {
		return err
	}
	filtered := c.Volume != "" || c.Node != "" || c.Pod != ""
	var keep func(*parser.Event) bool
	if len(kinds) > 0 {
		keep = func(ev *parser.Event) bool { return slices.Contains(kinds, ev.Kind.String()) }
	}
	evs := l.timeline.EventsWhere(vols, !filtered, keep)
	err = c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		return report.EventFormats.For(out.format).Render(w, evs, o)
	})
	if err != nil {
		return err
	}
	return l.exitErr(false)
}

// checkKinds is the usage error for an unknown --kind, with a did-you-mean.
func checkKinds(kinds []string) error {
	var names []string
	for _, k := range parser.Kinds() {
		names = append(names, k.String())
	}
	for _, k := range kinds {
		if slices.Contains(names, k) {
			continue
		}
		if s := rules.Closest(k, names); s != "" {
			return usageErr("--kind %s: unknown kind; did you mean %q? (one of %s)", k, s, strings.Join(names, ", "))
		}
		return usageErr("--kind %s: unknown kind; one of %s", k, strings.Join(names, ", "))
	}
	return nil
}

// volumesCmd is `kcmtrace volumes PATH... [QUERY]`.
type volumesCmd struct {
	inputFlags  `embed:""`
	outputFlags `embed:""`

	Query string `help:"Fuzzy query over every volume name (a last argument that is not a file is taken as the query too)." placeholder:"QUERY"`
}

var volumesFormats = []string{"text", "wide", "json", "yaml", "name"}

func (c *volumesCmd) run(e env) error {
	out, err := c.resolve(volumesFormats)
	if err != nil {
		return err
	}
	out.inputs = c.Paths
	// `kcmtrace volumes kcm.log pvc-5d6c`: a last argument that names no
	// file and is not stdin is the query.
	if n := len(c.Paths); n > 1 && c.Query == "" && c.Paths[n-1] != "-" && !livesource.IsURL(c.Paths[n-1]) {
		if _, err := os.Stat(c.Paths[n-1]); err != nil {
			c.Query, c.Paths = c.Paths[n-1], c.Paths[:n-1]
		}
	}
	l, vols, err := c.loadView(e, c.Query)
	if err != nil {
		return err
	}
	err = c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		o.Filters = c.filters(l)
		return report.VolumeFormats.For(out.format).Render(w, vols, o)
	})
	if err != nil {
		return err
	}
	return l.exitErr(false)
}

// rulesCmd is `kcmtrace rules`.
type rulesCmd struct {
	outputFlags `embed:""`

	Color string `help:"Colour: auto, always or never." enum:"auto,always,never" default:"auto"`
}

var rulesFormats = []string{"text", "json", "yaml", "name"}

func (c *rulesCmd) run(e env) error {
	out, err := c.resolve(rulesFormats)
	if err != nil {
		return err
	}
	return c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		return report.RuleFormats.For(out.format).Render(w, rules.All(), o)
	})
}

// explainCmd is `kcmtrace explain RULE`.
type explainCmd struct {
	outputFlags `embed:""`

	Rule  string `arg:"" help:"Rule name (kcmtrace rules lists them)." predictor:"rule"`
	Color string `help:"Colour: auto, always or never." enum:"auto,always,never" default:"auto"`
}

var explainFormats = []string{"text", "json", "yaml"}

func (c *explainCmd) run(e env) error {
	out, err := c.resolve(explainFormats)
	if err != nil {
		return err
	}
	r, ok := rules.Lookup(c.Rule)
	if !ok {
		return unknownRule(c.Rule)
	}
	return c.write(e, out, c.Color, func(w io.Writer, o report.Options) error {
		if out.format == "text" {
			return report.Explain(w, r, o)
		}
		return report.RuleFormats.For(out.format).Render(w, []rules.Rule{r}, o)
	})
}

// Compile-time checks that every subcommand is a command.
var (
	_ command = (*analyzeCmd)(nil)
	_ command = (*timelineCmd)(nil)
	_ command = (*eventsCmd)(nil)
	_ command = (*volumesCmd)(nil)
	_ command = (*rulesCmd)(nil)
	_ command = (*explainCmd)(nil)
	_ command = (*fetchCmd)(nil)
	_         = timeline.Build
)
