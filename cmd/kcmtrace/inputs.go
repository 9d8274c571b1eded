package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// inputFlags are the flags every command that reads logs shares.
type inputFlags struct {
	Paths []string `arg:"" name:"source" help:"Log files, .gz files, directories (walked), - for stdin, or log-store URLs (vlogs+http://HOST:PORT, loki+http://HOST:PORT, es+http://HOST:PORT/INDEX, opensearch+…). Roles (kcm, kubelet, events) are detected from content."`

	liveFlags `embed:""`

	Since       string   `help:"Only lines at or after this time: RFC 3339, '2006-01-02 15:04[:05]' (UTC), a duration such as 2h or 1d meaning that long before the newest line (before now for log-store sources, which fetch the last 24 h by default), or today/yesterday (the start of the newest line's UTC day, or of the day before)." placeholder:"TIME"`
	Until       string   `help:"Only lines at or before this time (same forms as --since)." placeholder:"TIME"`
	Volume      string   `help:"Only volumes matching this fuzzy query (UniqueName, PV, handle, VolumeAttachment name)." placeholder:"QUERY"`
	Node        string   `help:"Only volumes seen on a node matching this fuzzy query." placeholder:"QUERY"`
	Pod         string   `help:"Only volumes used by a pod matching this fuzzy query." placeholder:"QUERY"`
	Year        int      `help:"Year of klog timestamps (klog headers carry none); two digits mean 20YY (24 is 2024); default: resolved from the logs."`
	TZ          string   `name:"tz" help:"Time zone of klog timestamps: a name (Asia/Shanghai) or an offset (+08:00); default: resolved from the logs." placeholder:"ZONE"`
	InputFormat string   `help:"Force the input wrapper or format instead of detecting it (auto, klog, journald, cri, docker-json, kubectl-timestamps, ui-timestamp, pod-prefix, k9s, json, describe, get-events) or log export (gcp, cloudwatch, azure, loki, elasticsearch, victorialogs, journald-json, journald-export)." default:"auto" placeholder:"FORMAT"`
	Skew        []string `help:"Clock offset added to FILE's times, overriding the estimate (repeatable), e.g. kubelet.log=-3s." placeholder:"FILE=DURATION"`
	NoProgress  bool     `help:"Never show a progress bar (it only shows on a terminal for large inputs)."`
	Color       string   `help:"Colour: auto (only on a terminal, and never with NO_COLOR set), always or never." enum:"auto,always,never" default:"auto"`
}

// loaded is everything read from the inputs. The parse results themselves
// are not kept: timeline.Build takes their events (Options.Consume), so the
// events exist once, in the timeline.
type loaded struct {
	events   int // events within --since/--until, before de-duplication
	timeline *timeline.Timeline
	readErrs int             // inputs that could not be read, or only in part (exit 3)
	yielded  bool            // some input gave at least one event (before --since/--until)
	window   timeline.Window // --since/--until resolved
}

// load parses the inputs, reports unreadable inputs and input problems on
// stderr (one line each), applies --since/--until and builds the timeline.
func (f *inputFlags) load(e env) (*loaded, error) {
	year, err := resolveYear(f.Year)
	if err != nil {
		return nil, err
	}
	opt := parser.Options{Year: year, Stdin: e.stdin}
	if f.InputFormat != "auto" && f.InputFormat != "" {
		if !slices.Contains(parser.InputFormats, f.InputFormat) {
			return nil, usageErr("--input-format %s: want auto or one of %s", f.InputFormat, strings.Join(parser.InputFormats, ", "))
		}
		opt.Format = f.InputFormat
	}
	if f.TZ != "" {
		loc, err := parseZone(f.TZ)
		if err != nil {
			return nil, usageErr("--tz %s: %v", f.TZ, err)
		}
		opt.Location = loc
	}
	skews, err := parseSkews(f.Skew)
	if err != nil {
		return nil, err
	}
	if n := countStdin(f.Paths); n > 1 {
		// two readers of one stream would each get some of its lines
		return nil, usageErr("- (stdin) is given %d times: stdin can be read only once; give - once", n)
	}
	in, err := f.fetchInputs(e)
	if err != nil {
		return nil, err
	}
	defer in.cleanup()
	if countStdin(f.Paths) == 1 && e.stdinIsTerminal() {
		fmt.Fprintln(e.stderr, stdinHint) // else the run seems to hang
	}
	opt.Streams = in.streams
	heap := e.memPolicy(in.paths) // the run's memory policy
	bar := newProgress(e, in.paths, f.NoProgress)
	if bar != nil {
		opt.Progress = bar.add
	}
	paths, snap := routeState(in.paths, opt.Format != "")
	region := phase("parse")
	results, errs := parser.ParseAll(paths, opt)
	region.End()
	heap.Parsed()
	errs = append(in.errs, errs...)
	bar.finish()

	l := &loaded{readErrs: parser.ReadFailures(errs)}
	for _, err := range errs {
		fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(err.Error()))
	}
	for _, r := range results {
		reportProblems(e, r.Input)
		if r.Input.Truncated {
			l.readErrs++ // read only in part (truncated gzip, read error): exit 3
		}
	}
	results = append(results, eventResults(snap, len(results))...)
	if len(results) == 0 && snap == nil {
		if len(errs) == 0 {
			return nil, &codeError{code: exitInput, msg: "no input: give at least one log file, directory or -"}
		}
		return nil, &codeError{code: exitInput, msg: "no input could be read"}
	}
	for _, r := range results {
		l.yielded = l.yielded || len(r.Events) > 0
	}
	win, err := f.window(results)
	if err != nil {
		return nil, err
	}
	win.Filter(results)
	l.window = win
	if skews, err = resolveSkews(skews, results); err != nil {
		return nil, err
	}
	for _, r := range results {
		l.events += len(r.Events)
	}
	region = phase("timeline")
	l.timeline = timeline.Build(results, timeline.Options{Skew: skews, Consume: true, State: snap, Collect: heap.Collect, CollectTables: heap.CollectTables})
	region.End()
	heap.Built()
	reportStateProblems(e, snap)
	return l, nil
}

// stdinHint is said when - reads a terminal: nothing is piped, and the
// run waits on what is typed or pasted.
const stdinHint = "kcmtrace: reading stdin (a terminal): paste or pipe the logs, then Ctrl-D"

// filters are the selections of this run for the JSON's "filters" object.
func (f *inputFlags) filters(l *loaded) *report.Filters {
	return &report.Filters{
		Since: f.Since, Until: f.Until, Start: l.window.Since, End: l.window.Until,
		Volume: f.Volume, Node: f.Node, Pod: f.Pod, InputFormat: f.InputFormat,
	}
}

// countStdin is how many of the sources are "-".
func countStdin(paths []string) int {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	return n
}

// maxProblemsShown caps the per-input problem lines on stderr.
const maxProblemsShown = 10

func reportProblems(e env, in parser.Input) {
	for i, p := range in.Problems {
		if i == maxProblemsShown {
			fmt.Fprintf(e.stderr, "kcmtrace: %s: %d more problems not shown\n", oneLine(in.Path), len(in.Problems)-i)
			return
		}
		if p.Line > 0 {
			fmt.Fprintf(e.stderr, "kcmtrace: %s:%d: %s\n", oneLine(in.Path), p.Line, oneLine(p.Message))
		} else {
			fmt.Fprintf(e.stderr, "kcmtrace: %s: %s\n", oneLine(in.Path), oneLine(p.Message))
		}
	}
}

// oneLine keeps what the CLI prints on one terminal line: file names and
// messages go through the report's sanitiser (report.OneLine), the one that
// cleans log text, so a name carrying escape sequences or newlines cannot
// retitle or clear the terminal, nor forge a line.
func oneLine(s string) string { return report.OneLine(s) }

// window is the time window of --since/--until; a duration counts back
// from the newest line of the results.
func (f *inputFlags) window(results []parser.Result) (timeline.Window, error) {
	if f.Since == "" && f.Until == "" {
		return timeline.Window{}, nil
	}
	newest := timeline.Newest(results)
	if !f.fetchedAt.IsZero() {
		newest = f.fetchedAt // a store source: durations count back from now, as in the fetch
	}
	since, err := parseWhen(f.Since, newest)
	if err != nil {
		return timeline.Window{}, usageErr("--since %s: %v", f.Since, err)
	}
	until, err := parseWhen(f.Until, newest)
	if err != nil {
		return timeline.Window{}, usageErr("--until %s: %v", f.Until, err)
	}
	return timeline.Window{Since: since, Until: until}, nil
}

// whenLayouts are the absolute time forms --since/--until accept (UTC unless
// the form carries an offset).
var whenLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04Z07:00",
	"2006-01-02 15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseWhen reads an absolute time (seconds optional), a duration counted
// back from newest (2h, 30m, 1d, 1d12h), or today/yesterday: the start of
// newest's UTC day, or of the day before.
func parseWhen(s string, newest time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range whenLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	back, isDay := map[string]int{"today": 0, "yesterday": 1}[strings.ToLower(s)]
	d, err := parseDays(strings.TrimPrefix(s, "-"))
	if !isDay && err != nil {
		return time.Time{}, fmt.Errorf("not a time ('2006-01-02 15:04[:05]', RFC 3339), a duration (2h, 30m, 1d) nor today or yesterday")
	}
	if newest.IsZero() {
		return time.Time{}, fmt.Errorf("%s counts back from the newest line and the logs have no timestamps", s)
	}
	if isDay {
		y, m, dd := newest.UTC().Date()
		return time.Date(y, m, dd-back, 0, 0, 0, 0, time.UTC), nil
	}
	return newest.Add(-d), nil
}

// parseDays is time.ParseDuration with a leading day count: 1d, 2d12h.
func parseDays(s string) (time.Duration, error) {
	days, rest, ok := strings.Cut(s, "d")
	if !ok {
		return time.ParseDuration(s)
	}
	n, err := strconv.Atoi(days)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad day count %q", days)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest == "" {
		return d, nil
	}
	r, err := time.ParseDuration(rest)
	return d + r, err
}

// resolveYear reads --year: a four-digit year, or two digits meaning 20YY
// (--year 24 is 2024), as date(1) and most log tools read them.
func resolveYear(y int) (int, error) {
	switch {
	case y == 0 || (y >= 1970 && y <= 9999):
		return y, nil
	case y > 0 && y < 100:
		return 2000 + y, nil
	}
	return 0, usageErr("--year %d: want a year such as 2024 (or 24)", y)
}

// parseZone accepts an IANA name, "UTC", or a numeric offset such as +08:00, +0800 or -7.
func parseZone(s string) (*time.Location, error) {
	if s == "" {
		return nil, nil
	}
	if c := s[0]; c == '+' || c == '-' {
		sign := 1
		if c == '-' {
			sign = -1
		}
		digits := strings.ReplaceAll(s[1:], ":", "")
		var h, m int
		var err error
		switch len(digits) {
		case 1, 2:
			h, err = strconv.Atoi(digits)
		case 4:
			h, err = strconv.Atoi(digits[:2])
			if err == nil {
				m, err = strconv.Atoi(digits[2:])
			}
		default:
			err = fmt.Errorf("bad offset")
		}
		if err != nil || h > 14 || m > 59 {
			return nil, fmt.Errorf("not an offset like +08:00")
		}
		return time.FixedZone(s, sign*(h*3600+m*60)), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone (use a name like Asia/Shanghai or an offset like +08:00)")
	}
	return loc, nil
}

// parseSkews reads --skew FILE=DURATION flags.
func parseSkews(flags []string) (map[string]time.Duration, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	m := make(map[string]time.Duration, len(flags))
	for _, s := range flags {
		file, dur, ok := strings.Cut(s, "=")
		if !ok || file == "" {
			return nil, usageErr("--skew %s: want FILE=DURATION, e.g. kubelet.log=-3s", s)
		}
		d, err := time.ParseDuration(dur)
		if err != nil {
			return nil, usageErr("--skew %s: %v", s, err)
		}
		m[file] = d
	}
	return m, nil
}

// loadSelected loads the inputs and applies the volume filters.
func (f *inputFlags) loadSelected(e env, query string) (*loaded, []*timeline.Volume, error) {
	l, err := f.load(e)
	if err != nil {
		return nil, nil, err
	}
	vols, err := f.selectVolumes(l.timeline, query)
	if err != nil {
		return nil, nil, err
	}
	return l, vols, nil
}

// selectVolumes applies --volume/--node/--pod (fuzzy) and an optional extra
// query. No match is a usage error that suggests the closest names.
func (f *inputFlags) selectVolumes(tl *timeline.Timeline, query string) ([]*timeline.Volume, error) {
	vols := tl.Volumes
	type filter struct {
		flag, q string
		find    func(string) ([]*timeline.Volume, []string)
	}
	for _, flt := range []filter{
		{"--volume", f.Volume, tl.Find},
		{"query", query, tl.Find},
		{"--node", f.Node, tl.FilterNode},
		{"--pod", f.Pod, tl.FilterPod},
	} {
		if flt.q == "" {
			continue
		}
		matches, suggestions := flt.find(flt.q)
		if len(matches) == 0 {
			msg := fmt.Sprintf("%s %q matches nothing", flt.flag, flt.q)
			if len(suggestions) > 0 {
				msg += "; did you mean " + oneOf(quoteAll(suggestions)) + "?"
			}
			return nil, usageErr("%s", msg)
		}
		keep := make(map[*timeline.Volume]bool, len(matches))
		for _, v := range matches {
			keep[v] = true
		}
		vols = slices.DeleteFunc(slices.Clone(vols), func(v *timeline.Volume) bool { return !keep[v] })
	}
	return vols, nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// withVolumes returns a shallow copy of tl restricted to vols.
func withVolumes(tl *timeline.Timeline, vols []*timeline.Volume) *timeline.Timeline {
	c := *tl
	c.Volumes = vols
	return &c
}

func osGetenv(k string) string { return os.Getenv(k) }

// rerunArgs are the arguments that make a suggested command read what this
// run read (report.Options.Rerun): the flags that change what is read or how
// its times are taken, then the sources. Output and selector flags are left
// out: the suggestion brings its own.
func (f *inputFlags) rerunArgs() []string {
	var args []string
	add := func(flag, v string) {
		if v != "" {
			args = append(args, flag+"="+v)
		}
	}
	add("--since", f.Since)
	add("--until", f.Until)
	if f.Year != 0 {
		add("--year", strconv.Itoa(f.Year))
	}
	add("--tz", f.TZ)
	if f.InputFormat != "auto" {
		add("--input-format", f.InputFormat)
	}
	for _, s := range f.Skew {
		add("--skew", s)
	}
	for _, s := range f.Selector {
		add("--selector", s)
	}
	if len(f.Paths) > 0 && strings.HasPrefix(f.Paths[0], "-") && f.Paths[0] != "-" {
		args = append(args, "--") // a source named like a flag
	}
	return append(args, f.Paths...)
}
