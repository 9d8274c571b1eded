package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sahilm/fuzzy"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// analyzeCmd is `kcmtrace analyze`.
type analyzeCmd struct {
	inputFlags `embed:""`

	Format  string   `help:"Output format: text, json or markdown (default text, or from the -o file's extension: .json, .md)." enum:"text,json,markdown,md," default:""`
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
	if err := validateRuleNames(append(slices.Clone(cfg.Enable), cfg.Disable...)); err != nil {
		return err
	}
	l, err := c.load(e)
	if err != nil {
		return err
	}
	vols, err := c.selectVolumes(l.timeline, "")
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
	a := &report.Analysis{Timeline: tl, Result: res, Rules: selectedRules(cfg), Events: countEvents(l.results)}
	err = c.write(e, func(w io.Writer, o report.Options) error {
		o.Redact = c.Redact
		switch format {
		case "json":
			return report.JSON(w, a, o)
		case "markdown", "md":
			return report.Markdown(w, a, o)
		default:
			return report.Text(w, a, o)
		}
	})
	if err != nil {
		return err
	}
	if l.readErrs > 0 {
		return &codeError{code: exitInput}
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
		return render(e.stdout, o)
	}
	f, err := createAtomic(output)
	if err != nil {
		return &codeError{code: exitUsage, msg: fmt.Sprintf("-o %s: %v", output, err)}
	}
	if err := render(f, report.Options{Color: c.Color == "always", Width: defaultWidth}); err != nil {
		f.abort()
		return err
	}
	if err := f.commit(); err != nil {
		return &codeError{code: exitUsage, msg: fmt.Sprintf("-o %s: %v", output, err)}
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

// validateRuleNames rejects unknown rule names with a suggestion.
func validateRuleNames(names []string) error {
	for _, n := range names {
		if _, ok := rules.Lookup(n); !ok {
			return unknownRule(n)
		}
	}
	return nil
}

func ruleNames() []string {
	var names []string
	for _, r := range rules.All() {
		names = append(names, r.Name)
	}
	return names
}

// unknownRule is the usage error for a rule name that does not exist,
// suggesting the closest names (sahilm/fuzzy, then a prefix/substring fallback).
func unknownRule(name string) error {
	names := ruleNames()
	var sugg []string
	for _, m := range fuzzy.Find(name, names) {
		sugg = append(sugg, m.Str)
		if len(sugg) == 3 {
			break
		}
	}
	if len(sugg) == 0 {
		sugg = closestByEdits(name, names, 3)
	}
	msg := fmt.Sprintf("unknown rule %q", name)
	if len(sugg) > 0 {
		msg += "; did you mean " + oneOf(quoteAll(sugg)) + "?"
	}
	return usageErr("%s (kcmtrace rules lists them)", msg)
}

// closestByEdits ranks candidates by Levenshtein distance, for typos that a
// subsequence matcher cannot see (transposed or wrong letters).
func closestByEdits(q string, cands []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	var ss []scored
	for _, c := range cands {
		if d := editDistance(q, c); d <= max(3, len(q)/3) {
			ss = append(ss, scored{c, d})
		}
	}
	slices.SortStableFunc(ss, func(a, b scored) int { return a.d - b.d })
	var out []string
	for i := 0; i < len(ss) && i < n; i++ {
		out = append(out, ss[i].s)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// selectedRules lists the rules a config runs.
func selectedRules(cfg rules.Config) []rules.Rule {
	var out []rules.Rule
	for _, r := range rules.All() {
		if len(cfg.Enable) > 0 && !slices.Contains(cfg.Enable, r.Name) {
			continue
		}
		if slices.Contains(cfg.Disable, r.Name) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func countEvents(results []parser.Result) int {
	n := 0
	for _, r := range results {
		n += len(r.Events)
	}
	return n
}

// timelineCmd is `kcmtrace timeline`.
type timelineCmd struct {
	inputFlags `embed:""`

	Format string `help:"Output format: text, json or markdown." enum:"text,json,markdown,md" default:"text"`
	Output string `short:"o" help:"Write to FILE atomically instead of stdout." placeholder:"FILE"`
}

func (c *timelineCmd) run(e env) error {
	l, err := c.load(e)
	if err != nil {
		return err
	}
	vols, err := c.selectVolumes(l.timeline, "")
	if err != nil {
		return err
	}
	err = c.writeTo(e, c.Output, func(w io.Writer, o report.Options) error {
		switch c.Format {
		case "json":
			return report.TimelineJSON(w, l.timeline, vols, o)
		case "markdown", "md":
			return report.TimelineMarkdown(w, l.timeline, vols, o)
		default:
			return report.TimelineText(w, l.timeline, vols, o)
		}
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
	l, err := c.load(e)
	if err != nil {
		return err
	}
	filtered := c.Volume != "" || c.Node != "" || c.Pod != ""
	vols, err := c.selectVolumes(l.timeline, "")
	if err != nil {
		return err
	}
	evs := allEvents(l.timeline, vols, !filtered)
	if len(kinds) > 0 {
		evs = slices.DeleteFunc(evs, func(ev parser.Event) bool { return !slices.Contains(kinds, string(ev.Kind)) })
	}
	err = c.writeTo(e, c.Output, func(w io.Writer, o report.Options) error {
		if c.Format == "text" {
			return report.EventsText(w, evs, o)
		}
		return report.EventsJSONL(w, evs, o)
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
	l, err := c.load(e)
	if err != nil {
		return err
	}
	vols, err := c.selectVolumes(l.timeline, c.Query)
	if err != nil {
		return err
	}
	o := report.Options{Color: useColor(c.Color, e.stdout, e.getenv), Width: outputWidth(e.stdout, e.getenv)}
	if c.Format == "json" {
		err = report.VolumesJSON(e.stdout, vols, o)
	} else {
		err = report.VolumesTable(e.stdout, vols, o)
	}
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
