package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// analyzeCmd is `kcmtrace analyze`.
type analyzeCmd struct {
	inputFlags `embed:""`

	Format  string   `help:"Output format: text, json, markdown or html (default text, or from the -o file's extension: .json, .md, .html)." enum:"text,json,markdown,md,html," default:""`
	Output  string   `short:"o" help:"Write the report to FILE atomically instead of stdout." placeholder:"FILE"`
	FailOn  string   `help:"Exit 1 when a finding is at least this severe: none, info, warning or critical." enum:"none,info,warning,critical" default:"none"`
	Enable  []string `help:"Run only these rules (repeatable, comma-separated)." placeholder:"RULE"`
	Disable []string `help:"Skip these rules (repeatable, comma-separated)." placeholder:"RULE"`
	Set     []string `help:"Change a rule threshold, e.g. attach-retry-storm.min-failures=5 (repeatable)." placeholder:"RULE.KEY=VALUE"`
	Redact  bool     `help:"Replace node names, IPs, pods, namespaces, disk and request IDs with consistent pseudonyms."`
}

func (c *analyzeCmd) run(e env) error {
	format := c.Format
	if format == "" {
		format = formatFromExt(c.Output, "text")
	}
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
	l, vols, err := c.loadSelected(e, "")
	if err != nil {
		return err
	}
	tl := withVolumes(l.timeline, vols)
	res, err := rules.Run(tl, cfg)
	if err != nil {
		return usageErr("%v", err)
	}
	for _, msg := range res.Errors {
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(msg))
	}
	a := &report.Analysis{Timeline: tl, Result: res, Rules: selected, Events: l.events}
	err = c.write(e, func(w io.Writer, o report.Options) error {
		o.Redact = c.Redact
		return report.AnalysisFormats.For(format).Render(w, a, o)
	})
	if err != nil {
		return err
	}
	if l.readErrs > 0 {
		return &codeError{code: exitInput}
	}
	if !l.yielded {
		// nothing to analyse: the inputs' problems above say why
		return &codeError{code: exitInput, msg: "no input yielded any event"}
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

// write renders to -o FILE (atomically, never coloured) or to stdout.
func (c *inputFlags) writeTo(e env, output string, render func(io.Writer, report.Options) error) error {
	if output == "" || output == "-" {
		o := report.Options{Color: useColor(c.Color, e.stdout, e.getenv), Width: outputWidth(e.stdout, e.getenv)}
		w := &errWriter{w: e.stdout}
		if err := render(w, o); err != nil {
			if w.err != nil {
				return outputErr("stdout", w.err)
			}
			return err
		}
		return nil
	}
	f, err := createOutput(output, c.Paths)
	if err != nil {
		var ce *codeError
		if errors.As(err, &ce) {
			return err
		}
		return &codeError{code: exitUsage, msg: fmt.Sprintf("-o %s: %v", output, err)}
	}
	w := &errWriter{w: f}
	if err := render(w, report.Options{Color: c.Color == "always", Width: defaultWidth}); err != nil {
		f.abort()
		if w.err != nil {
			return outputErr("-o "+output, w.err)
		}
		return err
	}
	if err := f.commit(); err != nil {
		return outputErr("-o "+output, err)
	}
	return nil
}

func (c *analyzeCmd) write(e env, render func(io.Writer, report.Options) error) error {
	return c.writeTo(e, c.Output, render)
}

// formatFromExt infers a format from an output file name.
func formatFromExt(path, def string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".md", ".markdown":
		return "markdown"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".html", ".htm":
		return "html"
	}
	return def
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
	inputFlags `embed:""`

	Format string `help:"Output format: text, json, markdown or html." enum:"text,json,markdown,md,html" default:"text"`
	Output string `short:"o" help:"Write to FILE atomically instead of stdout." placeholder:"FILE"`
}

func (c *timelineCmd) run(e env) error {
	l, vols, err := c.loadSelected(e, "")
	if err != nil {
		return err
	}
	err = c.writeTo(e, c.Output, func(w io.Writer, o report.Options) error {
		return report.TimelineFormats.For(c.Format).Render(w, report.TimelineView{Timeline: l.timeline, Volumes: vols}, o)
	})
	if err == nil && l.readErrs > 0 {
		return &codeError{code: exitInput}
	}
	return err
}

// eventsCmd is `kcmtrace events`.
type eventsCmd struct {
	inputFlags `embed:""`

	Format  string   `help:"Output format: jsonl or text." enum:"jsonl,text" default:"jsonl"`
	Output  string   `short:"o" help:"Write to FILE atomically instead of stdout." placeholder:"FILE"`
	Kind    []string `help:"Only events of these kinds (repeatable, comma-separated), e.g. attach-failed,detach-started." placeholder:"KIND"`
	Unknown bool     `help:"Only the lines that were not understood (kind unknown), with the reason."`
}

func (c *eventsCmd) run(e env) error {
	kinds := splitList(c.Kind)
	if c.Unknown {
		kinds = append(kinds, string(parser.Unknown))
	}
	known := make(map[string]bool)
	var names []string
	for _, k := range parser.Kinds() {
		known[string(k)] = true
		names = append(names, string(k))
	}
	for _, k := range kinds {
		if !known[k] {
			return usageErr("--kind %s: unknown kind; one of %s", k, strings.Join(names, ", "))
		}
	}
	l, vols, err := c.loadSelected(e, "")
	if err != nil {
		return err
	}
	filtered := c.Volume != "" || c.Node != "" || c.Pod != ""
	evs := allEvents(l.timeline, vols, !filtered)
	if len(kinds) > 0 {
		evs = slices.DeleteFunc(evs, func(ev parser.Event) bool { return !slices.Contains(kinds, string(ev.Kind)) })
	}
	err = c.writeTo(e, c.Output, func(w io.Writer, o report.Options) error {
		return report.EventFormats.For(c.Format).Render(w, evs, o)
	})
	if err == nil && l.readErrs > 0 {
		return &codeError{code: exitInput}
	}
	return err
}

// volumesCmd is `kcmtrace volumes PATH... [QUERY]`.
type volumesCmd struct {
	inputFlags `embed:""`

	Query  string `help:"Fuzzy query over every volume name (a last argument that is not a file is taken as the query too)." placeholder:"QUERY"`
	Format string `help:"Output format: text or json." enum:"text,json" default:"text"`
}

func (c *volumesCmd) run(e env) error {
	// `kcmtrace volumes kcm.log pvc-5d6c`: a last argument that names no
	// file and is not stdin is the query.
	if n := len(c.Paths); n > 1 && c.Query == "" && c.Paths[n-1] != "-" {
		if _, err := os.Stat(c.Paths[n-1]); err != nil {
			c.Query, c.Paths = c.Paths[n-1], c.Paths[:n-1]
		}
	}
	l, vols, err := c.loadSelected(e, c.Query)
	if err != nil {
		return err
	}
	o := report.Options{Color: useColor(c.Color, e.stdout, e.getenv), Width: outputWidth(e.stdout, e.getenv)}
	err = report.VolumeFormats.For(c.Format).Render(e.stdout, vols, o)
	if err == nil && l.readErrs > 0 {
		return &codeError{code: exitInput}
	}
	return err
}

// rulesCmd is `kcmtrace rules`.
type rulesCmd struct {
	Color string `help:"Colour: auto, always or never." enum:"auto,always,never" default:"auto"`
}

func (c *rulesCmd) run(e env) error {
	o := report.Options{Color: useColor(c.Color, e.stdout, e.getenv), Width: outputWidth(e.stdout, e.getenv)}
	return report.RulesTable(e.stdout, rules.All(), o)
}

// explainCmd is `kcmtrace explain RULE`.
type explainCmd struct {
	Rule  string `arg:"" help:"Rule name (kcmtrace rules lists them)."`
	Color string `help:"Colour: auto, always or never." enum:"auto,always,never" default:"auto"`
}

func (c *explainCmd) run(e env) error {
	r, ok := rules.Lookup(c.Rule)
	if !ok {
		return unknownRule(c.Rule)
	}
	o := report.Options{Color: useColor(c.Color, e.stdout, e.getenv), Width: outputWidth(e.stdout, e.getenv)}
	return report.Explain(e.stdout, r, o)
}

// Compile-time checks that every subcommand is a command.
var (
	_ command = (*analyzeCmd)(nil)
	_ command = (*timelineCmd)(nil)
	_ command = (*eventsCmd)(nil)
	_ command = (*volumesCmd)(nil)
	_ command = (*rulesCmd)(nil)
	_ command = (*explainCmd)(nil)
	_         = timeline.Build
)
