package rules

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/parser/textstore"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Config selects rules and sets their parameters (the CLI's --enable,
// --disable and --set flags).
type Config struct {
	// Enable, when not empty, runs only the named rules. "all" names every rule.
	Enable []string
	// Disable removes the named rules from the selection.
	Disable []string
	// Set maps "rule.key" to a value, overriding the parameter's default.
	Set map[string]string
}

// Run checks cfg, runs the selected rules over tl and groups the findings into
// incidents. The error is only for a bad cfg (unknown rule, unknown parameter,
// unparseable value); a rule that panics is reported in Result.Errors and the
// other rules still run.
func Run(tl *timeline.Timeline, cfg Config) (Result, error) {
	selected, settings, err := resolve(cfg)
	if err != nil {
		return Result{}, err
	}
	if tl == nil {
		tl = &timeline.Timeline{}
	}
	var res Result
	res.Findings, res.Errors = runSelected(tl, selected, settings)
	res.Findings = separateInputs(tl, res.Findings, func(one *timeline.Timeline) []Finding {
		fs, _ := runSelected(one, selected, settings) // errors: reported by the first run
		return fs
	})
	SortFindings(res.Findings)
	res.Incidents = Incidents(res.Findings)
	return res, nil
}

// runSelected runs the selected rules over tl and returns their findings
// (normalised, checked against the cluster state) and errors.
func runSelected(tl *timeline.Timeline, selected []Rule, settings map[string]map[string]string) (findings []Finding, errs []string) {
	// Rules only read the timeline: they run side by side, and their
	// results are gathered in registry order.
	type outcome struct {
		fs  []Finding
		err error
	}
	facts := sharedFacts(tl, runtime.GOMAXPROCS(0))
	outs := make([]outcome, len(selected))
	next := make(chan int, len(selected))
	for i := range selected {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(len(selected), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				r := &selected[i]
				outs[i].fs, outs[i].err = runRule(r, tl, settings[r.Name], facts)
			}
		})
	}
	wg.Wait()
	each := make([][]Finding, len(outs))
	for i := range outs {
		each[i] = outs[i].fs
	}
	readEvidence(each)
	for i, o := range outs {
		if o.err != nil {
			errs = append(errs, o.err.Error())
			continue
		}
		for _, f := range o.fs {
			f = normalize(f, &selected[i])
			if err := verifyFinding(&selected[i], tl, settings[selected[i].Name], facts, &f); err != nil {
				errs = append(errs, err.Error())
			}
			f.settle()
			findings = append(findings, f)
		}
	}
	return findings, errs
}

// runRule calls r.Check and turns a panic into an error.
func runRule(r *Rule, tl *timeline.Timeline, settings map[string]string, facts *runFacts) (fs []Finding, err error) {
	defer func() {
		if p := recover(); p != nil {
			fs, err = nil, fmt.Errorf("rule %s: internal error: %v", r.Name, p)
		}
	}()
	ctx := &Context{Timeline: tl, rule: r, settings: settings, shared: facts}
	return r.Check(ctx), nil
}

// verifyFinding calls r.Verify on f when the timeline has cluster state,
// and turns a panic into an error (f keeps what was recorded before it).
// A finding made from the state alone (stateOnly) is not checked against
// it: the answer would repeat the finding.
func verifyFinding(r *Rule, tl *timeline.Timeline, settings map[string]string, facts *runFacts, f *Finding) (err error) {
	if r.Verify == nil || tl.State == nil || stateOnly(f) {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rule %s: internal error checking the cluster state: %v", r.Name, p)
		}
	}()
	r.Verify(&Context{Timeline: tl, rule: r, settings: settings, shared: facts}, f)
	return nil
}

// stateOnly reports whether all of f's evidence is cluster state (a
// finding no log line shows).
func stateOnly(f *Finding) bool {
	for _, e := range f.Evidence {
		if e.SourceKind != SourceState {
			return false
		}
	}
	return len(f.Evidence) > 0
}

// normalize fills what a rule may leave out and makes lists canonical.
func normalize(f Finding, r *Rule) Finding {
	if f.Rule == "" {
		f.Rule = r.Name
	}
	if f.Severity == None {
		f.Severity = r.Severity
	}
	f.Nodes = uniqOrdered(f.Nodes)
	f.Pods = uniqSorted(f.Pods)
	if f.Count == 0 {
		f.Count = 1
	}
	if len(f.Steps) > 0 && f.Next == "" {
		f.SetNext(f.Steps...)
	}
	if len(f.Steps) == 0 && f.Next == "" {
		f.Next = r.Doc.Next
	}
	if len(f.Steps) == 0 && f.Next != "" {
		// a rule that gave plain text: one diagnostic step
		f.Steps = []Step{{Phase: Confirm, Text: strings.Join(strings.Fields(f.Next), " ")}}
	}
	if f.End.Before(f.Start) {
		f.End = f.Start
	}
	return f
}

// uniqOrdered drops empty and repeated entries, keeping the first order:
// a finding lists its nodes in the order that matters (the node it is about
// first; for attach-before-detach the old node A, then the new node B).
func uniqOrdered(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func uniqSorted(s []string) []string {
	var out []string
	for _, v := range s {
		if v != "" {
			out = append(out, v)
		}
	}
	if len(out) > 1 {
		slices.Sort(out)
	}
	return slices.Compact(out)
}

// SortFindings orders findings by severity (most severe first), then start
// time, volume, rule, first node and summary.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool { return findingLess(&fs[i], &fs[j]) })
}

func findingLess(a, b *Finding) bool {
	if a.Severity != b.Severity {
		return a.Severity > b.Severity
	}
	if !a.Start.Equal(b.Start) {
		return a.Start.Before(b.Start)
	}
	if a.Volume != b.Volume {
		return a.Volume < b.Volume
	}
	if a.Rule != b.Rule {
		return a.Rule < b.Rule
	}
	an, bn := strings.Join(a.Nodes, ","), strings.Join(b.Nodes, ",")
	if an != bn {
		return an < bn
	}
	return a.Summary < b.Summary
}

// Validate reports what is wrong with cfg (unknown rule or key, bad value)
// without running anything, so a CLI can reject flags before reading input.
func (cfg Config) Validate() error {
	_, _, err := resolve(cfg)
	return err
}

// Select returns the rules cfg runs, sorted by name: every rule, or only
// those named in Enable ("all" names every rule), less those named in
// Disable ("all" again names every rule). The error is Validate's: a CLI
// that calls Select before reading input needs no separate Validate.
func Select(cfg Config) ([]Rule, error) {
	selected, _, err := resolve(cfg)
	return selected, err
}

// resolve validates cfg: it returns the rules to run (sorted by name) and
// the per-rule settings.
func resolve(cfg Config) ([]Rule, map[string]map[string]string, error) {
	all := All()
	names := Names()
	check := func(flag, n string) error {
		if n == "all" {
			return nil
		}
		if _, ok := Lookup(n); !ok {
			msg := fmt.Sprintf("%s: unknown rule %q", flag, n)
			if s := suggest(n, names); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return fmt.Errorf("%s; valid rules: %s", msg, strings.Join(names, ", "))
		}
		return nil
	}
	enable := map[string]bool{}
	for _, n := range cfg.Enable {
		n = strings.TrimSpace(n)
		if err := check("--enable", n); err != nil {
			return nil, nil, err
		}
		enable[n] = true
	}
	disable := map[string]bool{}
	for _, n := range cfg.Disable {
		n = strings.TrimSpace(n)
		if err := check("--disable", n); err != nil {
			return nil, nil, err
		}
		disable[n] = true
	}
	settings := map[string]map[string]string{}
	keys := make([]string, 0, len(cfg.Set))
	for k := range cfg.Set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rule, key, ok := strings.Cut(strings.TrimSpace(k), ".")
		if !ok || key == "" {
			return nil, nil, fmt.Errorf("--set %s: want rule.key=value, e.g. attach-retry-storm.min-failures=5", k)
		}
		if err := check("--set", rule); err != nil || rule == "all" {
			if err == nil {
				err = fmt.Errorf("--set: \"all\" is not a rule")
			}
			return nil, nil, err
		}
		r, _ := Lookup(rule)
		var p *Param
		for i := range r.Params {
			if r.Params[i].Key == key {
				p = &r.Params[i]
			}
		}
		if p == nil {
			if len(r.Params) == 0 {
				return nil, nil, fmt.Errorf("--set %s: rule %s has no parameters", k, rule)
			}
			msg := fmt.Sprintf("--set %s: rule %s has no parameter %q", k, rule, key)
			if s := suggest(key, paramKeys(r)); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, nil, fmt.Errorf("%s; valid: %s", msg, strings.Join(paramKeys(r), ", "))
		}
		v, err := parseParam(*p, cfg.Set[k])
		if err != nil {
			return nil, nil, fmt.Errorf("--set %s: %v (default %s)", k, err, p.Default)
		}
		if settings[rule] == nil {
			settings[rule] = map[string]string{}
		}
		settings[rule][key] = v
	}
	var out []Rule
	for _, r := range all {
		if len(enable) > 0 && !enable["all"] && !enable[r.Name] {
			continue
		}
		if disable[r.Name] || disable["all"] {
			continue
		}
		out = append(out, r)
	}
	return out, settings, nil
}

// Rule returns the rule this context runs.
func (c *Context) Rule() Rule {
	if c.rule == nil {
		return Rule{}
	}
	return *c.rule
}

// String returns the parameter's value: the --set value, else its default.
// Asking for an undeclared key is a bug in the rule; it panics, and Run
// reports it as that rule's internal error.
func (c *Context) String(key string) string {
	if v, ok := c.settings[key]; ok {
		return v
	}
	if c.rule != nil {
		for _, p := range c.rule.Params {
			if p.Key == key {
				return p.Default
			}
		}
	}
	panic(fmt.Sprintf("parameter %q is not declared", key))
}

// Int returns an integer parameter.
func (c *Context) Int(key string) int {
	n, err := strconv.Atoi(c.String(key))
	if err != nil {
		panic(fmt.Sprintf("parameter %q: %v", key, err))
	}
	return n
}

// Duration returns a duration parameter.
func (c *Context) Duration(key string) time.Duration {
	d, err := time.ParseDuration(c.String(key))
	if err != nil {
		panic(fmt.Sprintf("parameter %q: %v", key, err))
	}
	return d
}

// NewContext returns a context for running one rule's Check directly, with
// the given parameter settings (key → value, already valid). Tests and
// tools use it; Run builds its own.
func NewContext(tl *timeline.Timeline, r Rule, settings map[string]string) *Context {
	return &Context{Timeline: tl, rule: &r, settings: settings}
}

// readEvidence reads the text of every log line the findings of outs
// quote (Evidence.text, which evidence leaves unread) in one pass:
// textstore.Strings reads the lines of a file in the order of their
// offsets, each once, neighbours together, on every core. One rule's
// storm of findings quotes lines spread over hours of a log, and another
// rule often quotes the same ones: read one at a time they were a system
// call each (1 GiB of the storm shape: 9,078, a third of its rules' CPU).
func readEvidence(each [][]Finding) {
	var texts []textstore.Text
	for _, fs := range each {
		for _, f := range fs {
			for _, e := range f.Evidence {
				if !e.text.IsZero() {
					texts = append(texts, e.text)
				}
			}
		}
	}
	if len(texts) == 0 {
		return
	}
	strs := textstore.Strings(texts, runtime.GOMAXPROCS(0))
	k := 0
	for _, fs := range each {
		for _, f := range fs {
			for i := range f.Evidence {
				if e := &f.Evidence[i]; !e.text.IsZero() {
					e.Text, e.text = strs[k], textstore.Text{}
					k++
				}
			}
		}
	}
}
