package report

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
)

// maxEvidence caps the evidence lines shown per incident or finding in text
// output; JSON and Markdown carry them all.
const maxEvidence = 12

// textWriter collects output lines and remembers the first write error.
type textWriter struct {
	w   *bufio.Writer
	err error
}

func newTextWriter(w io.Writer) *textWriter { return &textWriter{w: bufio.NewWriter(w)} }

func (t *textWriter) line(parts ...string) {
	if t.err != nil {
		return
	}
	for _, p := range parts {
		if _, err := t.w.WriteString(p); err != nil {
			t.err = err
			return
		}
	}
	if err := t.w.WriteByte('\n'); err != nil {
		t.err = err
	}
}

func (t *textWriter) flush() error {
	if t.err != nil {
		return t.err
	}
	return t.w.Flush()
}

// hanging writes text wrapped to width with label in front of the first
// line and the rest indented under the text.
func (t *textWriter) hanging(indent, label string, labelPaint paint, text string, width int) {
	lw := ansi.StringWidth(label)
	avail := width - len(indent) - lw
	lines := wrap(text, avail)
	for i, l := range lines {
		if i == 0 {
			t.line(indent, labelPaint(label), l)
			continue
		}
		t.line(indent, strings.Repeat(" ", lw), l)
	}
}

// Text writes the analyze report for a terminal (or plain text when
// o.Color is false): header, input coverage, incidents by severity with
// their timeline, evidence, mechanism and next steps, then the findings
// outside any incident, then a one-line summary.
func Text(w io.Writer, a *Analysis, o Options) error {
	a = prepare(a, o)
	st := newStyles(w, o)
	width := o.width()
	t := newTextWriter(w)

	writeCoverage(t, st, a, width)

	res := a.Result
	inIncident := incidentOf(res)
	for _, in := range res.Incidents {
		t.line()
		writeIncident(t, st, a, in, width)
	}
	var loose []int
	for i := range res.Findings {
		if _, ok := inIncident[i]; !ok {
			loose = append(loose, i)
		}
	}
	if len(loose) > 0 {
		t.line()
		if len(res.Incidents) > 0 {
			t.line(st.Title("Other findings"))
		} else {
			t.line(st.Title("Findings"))
		}
		for _, i := range loose {
			t.line()
			writeFinding(t, st, a, res.Findings[i], width)
		}
	}
	if len(res.Errors) > 0 {
		t.line()
		for _, e := range res.Errors {
			t.hanging("", "internal error: ", st.Critical, oneLine(e), width)
		}
	}
	t.line()
	t.line(summaryLine(a))
	return t.flush()
}

func summaryLine(a *Analysis) string {
	res := a.Result
	var parts []string
	if n := len(res.Incidents); n > 0 {
		by := map[rules.Severity]int{}
		for _, in := range res.Incidents {
			by[in.Severity]++
		}
		var sev []string
		for _, s := range []rules.Severity{rules.Critical, rules.Warning, rules.Info} {
			if by[s] > 0 {
				sev = append(sev, fmt.Sprintf("%d %s", by[s], SeverityName(s)))
			}
		}
		parts = append(parts, plural(n, "incident")+" ("+strings.Join(sev, ", ")+")")
	}
	if n := len(res.Findings); n > 0 {
		parts = append(parts, plural(n, "finding"))
	} else {
		parts = append(parts, "no findings")
	}
	unknown := 0
	vols := 0
	if a.Timeline != nil {
		for _, in := range a.Timeline.Inputs {
			unknown += in.Unknown
		}
		vols = len(a.Timeline.Volumes)
	}
	parts = append(parts, plural(vols, "volume"), plural(a.Events, "event"), plural(unknown, "unknown line"))
	return strings.Join(parts, " · ")
}

// writeCoverage writes the header line and one block per input.
func writeCoverage(t *textWriter, st *styles, a *Analysis, width int) {
	tl := a.Timeline
	if tl == nil {
		t.line(st.Title("kcmtrace"), " · no inputs")
		return
	}
	t.line(st.Title("kcmtrace"), " · ", plural(len(tl.Inputs), "input"), " · ", spanText(tl.Start, tl.End))
	pathW := 0
	fmtW := 0
	for _, in := range tl.Inputs {
		pathW = max(pathW, ansi.StringWidth(shorten(oneLine(in.Path), 32)))
		fmtW = max(fmtW, ansi.StringWidth(formatText(in)))
	}
	for _, in := range tl.Inputs {
		comp := in.Component
		if comp == "" {
			comp = "unknown"
		}
		line := "  " + padRight(shorten(oneLine(in.Path), 32), pathW) + "  " + padRight(comp, 8) + " " +
			padRight(formatText(in), fmtW) + "  " + plural(in.Events, "event") + fmt.Sprintf(" · %d unknown", in.Unknown)
		t.line(truncate(line, width))
		var det []string
		det = append(det, spanText(in.First, in.Last))
		det = append(det, yearZoneText(in))
		det = append(det, plural(in.Lines, "line"))
		for _, k := range sortedKeys(in.Skipped) {
			det = append(det, fmt.Sprintf("%d skipped (%s)", in.Skipped[k], k))
		}
		if in.Truncated {
			det = append(det, "input ended early")
		}
		indent := "  " + strings.Repeat(" ", pathW+2)
		if pathW+2 > 24 {
			indent = "      "
		}
		for _, l := range wrap(strings.Join(det, " · "), width-len(indent)) {
			t.line(indent, st.Dim(l))
		}
		for i, p := range in.Problems {
			if i == 3 {
				t.line(indent, st.Dim(fmt.Sprintf("… %d more problems", len(in.Problems)-3)))
				break
			}
			loc := oneLine(in.Path)
			if p.Line > 0 {
				loc += fmt.Sprintf(":%d", p.Line)
			}
			t.line(indent, truncate("! "+loc+": "+oneLine(p.Message), width-len(indent)))
		}
	}
	if missing := nodesWithoutKubelet(a); len(missing) > 0 {
		t.hanging("  ", "no kubelet log for ", st.Warning, strings.Join(missing, ", ")+" (named in findings)", width)
	}
	for _, r := range tl.Restarts {
		t.line(truncate(fmt.Sprintf("  controller restart %s  %s  %s:%d", clock(r.Time, !sameDay(r.Time, tl.Start)), r.Reason, oneLine(r.Source.Path), r.Source.Line), width))
	}
	for _, s := range tl.Skews {
		if s.Offset == 0 || s.From == "none" {
			continue
		}
		t.line(truncate(fmt.Sprintf("  clock skew  %s %s against the kcm (%s, %s)", oneLine(s.Path), signed(s.Offset), s.From, plural(s.Pairs, "pair")), width))
	}
	if tl.Dupes > 0 {
		t.line("  ", st.Dim(fmt.Sprintf("%s read twice, counted once", plural(tl.Dupes, "duplicate line"))))
	}
}

// signed is "+1.5s" / "-200ms".
func signed(d time.Duration) string {
	if d < 0 {
		return "-" + (-d).String()
	}
	return "+" + d.String()
}

// formatText is "journald › klog-text", or just the format without a wrapper.
func formatText(in parser.Input) string {
	f := in.Format
	if f == "" {
		f = "unknown"
	}
	if in.Wrapper != "" && in.Wrapper != "none" {
		return in.Wrapper + " › " + f
	}
	return f
}

func yearZoneText(in parser.Input) string {
	year := "year ?"
	if in.Year != 0 {
		year = fmt.Sprint(in.Year)
	}
	zone := in.Zone
	if zone == "" {
		zone = "zone ?"
	}
	if in.YearFrom == in.ZoneFrom && in.YearFrom != "" {
		return year + " / " + zone + " from " + in.YearFrom
	}
	yf, zf := in.YearFrom, in.ZoneFrom
	if yf == "" {
		yf = "?"
	}
	if zf == "" {
		zf = "?"
	}
	return year + " from " + yf + " / " + zone + " from " + zf
}

// nodesWithoutKubelet lists nodes named in findings that no kubelet log covers.
func nodesWithoutKubelet(a *Analysis) []string {
	if a.Timeline == nil || len(a.Result.Findings) == 0 {
		return nil
	}
	covered := map[string]bool{}
	see := func(e *parser.Event) {
		if e.Component == parser.ComponentKubelet && e.Origin == "" && e.Node != "" {
			covered[e.Node] = true
		}
	}
	for _, v := range a.Timeline.Volumes {
		for i := range v.Events {
			see(&v.Events[i])
		}
	}
	for i := range a.Timeline.Other {
		see(&a.Timeline.Other[i])
	}
	var out []string
	for _, f := range a.Result.Findings {
		for _, n := range f.Nodes {
			if !covered[n] {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	out = uniq(out)
	for i := range out {
		out[i] = oneLine(out[i])
	}
	return out
}

// volumeHeader is "pvc-2708…3c36  disk-rhtsqync  db/redis-master-0".
func volumeHeader(a *Analysis, volume, pv string, pods []string, width int) string {
	var parts []string
	v := findVolume(a.Timeline, volume, pv)
	switch {
	case v != nil:
		parts = append(parts, volumeLabel(v))
		if v.Handle != "" && v.Handle != volumeLabel(v) {
			parts = append(parts, v.Handle)
		}
		if len(pods) == 0 {
			pods = v.Pods
		}
	case pv != "":
		parts = append(parts, pv)
	default:
		parts = append(parts, volume)
	}
	if len(pods) > 0 {
		p := pods[0]
		if len(pods) > 1 {
			p += fmt.Sprintf(" +%d", len(pods)-1)
		}
		parts = append(parts, p)
	}
	for i := range parts {
		parts[i] = shorten(oneLine(parts[i]), max(20, width/3))
	}
	return strings.Join(parts, "  ")
}

func writeIncident(t *textWriter, st *styles, a *Analysis, in rules.Incident, width int) {
	fs := a.Result.Findings
	var pods []string
	var chain []rules.Finding
	for _, c := range in.Chain {
		if c >= 0 && c < len(fs) {
			chain = append(chain, fs[c])
			pods = append(pods, fs[c].Pods...)
		}
	}
	sort.Strings(pods)
	pods = uniq(pods)
	badge := st.severity(in.Severity)
	head := volumeHeader(a, in.Volume, in.PV, pods, width-ansi.StringWidth(badge)-2)
	t.line(badge, "  ", st.Bold(truncate(head, width-ansi.StringWidth(badge)-2)))
	if in.Summary != "" {
		for _, l := range wrap(oneLine(in.Summary), width-2) {
			t.line("  ", l)
		}
	}
	writeFindingRows(t, st, a, chain, width)
	if len(chain) == 0 {
		for _, s := range in.Story {
			t.hanging("  ", "· ", plain, oneLine(s), width)
		}
	}
	var ev []rules.Evidence
	var keys []string
	for _, f := range chain {
		ev = append(ev, keyEvidence(f.Evidence, 4)...)
		keys = append(keys, f.Code)
	}
	writeEvidence(t, st, ev, width, keys...)
	why := in.RootCause
	if why == "" && len(chain) > 0 {
		why = chain[0].Explanation
	}
	if why != "" {
		t.hanging("  ", "why  ", st.Label, oneLine(why), width)
	}
	if in.Component != "" {
		t.hanging("  ", "look ", st.Label, oneLine(in.Component), width)
	}
	var next []string
	for _, f := range chain {
		next = append(next, f.Next)
	}
	next = uniq(next)
	if len(next) == 0 {
		for _, f := range chain {
			if r, ok := ruleByName(a.Rules, f.Rule); ok {
				next = append(next, r.Doc.Next)
			}
		}
		next = uniq(next)
	}
	for i, n := range next {
		label := "next "
		if i > 0 {
			label = "     "
		}
		t.hanging("  ", label, st.Label, oneLine(n), width)
	}
}

func ruleByName(rs []rules.Rule, name string) (rules.Rule, bool) {
	for _, r := range rs {
		if r.Name == name {
			return r, true
		}
	}
	return rules.Rule{}, false
}

// writeFindingRows writes one row per finding: time, node, summary, rule.
// The summary wraps under itself; when the line is too narrow for four
// columns the rule moves up next to the node and the summary goes below.
func writeFindingRows(t *textWriter, st *styles, a *Analysis, fs []rules.Finding, width int) {
	if len(fs) == 0 {
		return
	}
	withDate := false
	for _, f := range fs {
		if !f.Start.IsZero() && !sameDay(f.Start, fs[0].Start) {
			withDate = true
		}
	}
	nodeW, ruleW := 0, 0
	for _, f := range fs {
		nodeW = max(nodeW, ansi.StringWidth(nodeList(f.Nodes, 18)))
		ruleW = max(ruleW, len(f.Rule))
	}
	timeW := len(clock(fs[0].Start, withDate))
	whatW := width - 2 - timeW - 2 - nodeW - 2 - 2 - ruleW
	if whatW < 40 {
		indent := strings.Repeat(" ", 2+timeW+2)
		for _, f := range fs {
			t.line("  ", padRight(clock(f.Start, withDate), timeW), "  ", padRight(nodeList(f.Nodes, 18), nodeW), "  ", st.Rule(f.Rule))
			for _, l := range wrap(oneLine(f.Summary), width-len(indent)) {
				t.line(indent, l)
			}
		}
		return
	}
	indent := strings.Repeat(" ", 2+timeW+2+nodeW+2)
	for _, f := range fs {
		lines := wrap(oneLine(f.Summary), whatW)
		t.line("  ", padRight(clock(f.Start, withDate), timeW), "  ", padRight(nodeList(f.Nodes, 18), nodeW), "  ",
			padRight(lines[0], whatW), "  ", st.Rule(f.Rule))
		for _, l := range lines[1:] {
			t.line(indent, l)
		}
	}
}

// nodeList is "10.0.3.15", "10.0.3.15 → 10.0.3.27" for two nodes, "a +2" for more.
func nodeList(nodes []string, max int) string {
	switch len(nodes) {
	case 0:
		return "-"
	case 1:
		return shorten(oneLine(nodes[0]), max)
	case 2:
		if both := oneLine(nodes[0]) + "," + oneLine(nodes[1]); ansi.StringWidth(both) <= max {
			return both
		}
	}
	return shorten(oneLine(nodes[0]), max-3) + fmt.Sprintf(" +%d", len(nodes)-1)
}

// writeEvidence writes evidence lines, deduplicated and in time order, under a path:line gutter.
func writeEvidence(t *textWriter, st *styles, ev []rules.Evidence, width int, keys ...string) {
	ev = dedupEvidence(ev)
	if len(ev) == 0 {
		return
	}
	t.line("  ", st.Label("evidence"))
	shown := ev
	if len(shown) > maxEvidence {
		shown = shown[:maxEvidence]
	}
	locW := 0
	for _, e := range shown {
		locW = max(locW, ansi.StringWidth(evidenceLoc(e)))
	}
	for _, e := range shown {
		avail := width - 4 - locW - 3
		t.line("    ", st.Gutter(padRight(evidenceLoc(e), locW)+" │ "), excerpt(oneLine(e.Text), avail, keys...))
	}
	if n := len(ev) - len(shown); n > 0 {
		t.line("    ", st.Dim(fmt.Sprintf("… %s more (--format json or markdown shows all)", plural(n, "line"))))
	}
}

// keyEvidence picks at most n lines of a finding's evidence for the
// terminal: the primary line, then lines with a note, then the last line.
func keyEvidence(ev []rules.Evidence, n int) []rules.Evidence {
	if len(ev) <= n {
		return ev
	}
	pick := map[int]bool{0: true}
	for i, e := range ev {
		if len(pick) >= n-1 {
			break
		}
		if e.Note != "" {
			pick[i] = true
		}
	}
	pick[len(ev)-1] = true
	for i := 1; len(pick) < n && i < len(ev); i++ {
		pick[i] = true
	}
	var out []rules.Evidence
	for i, e := range ev {
		if pick[i] {
			out = append(out, e)
		}
	}
	return out
}

// evidenceLoc is "kcm.log:14" (the base name, to keep the gutter narrow).
func evidenceLoc(e rules.Evidence) string {
	p := oneLine(e.Path)
	if ansi.StringWidth(p) > 24 {
		p = filepath.Base(p)
	}
	return shorten(p, 24) + fmt.Sprintf(":%d", e.Line)
}

func dedupEvidence(ev []rules.Evidence) []rules.Evidence {
	seen := map[string]bool{}
	var out []rules.Evidence
	for _, e := range ev {
		k := fmt.Sprintf("%s:%d", e.Path, e.Line)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) && !out[i].Time.IsZero() && !out[j].Time.IsZero() {
			return out[i].Time.Before(out[j].Time)
		}
		return false
	})
	return out
}

func writeFinding(t *textWriter, st *styles, a *Analysis, f rules.Finding, width int) {
	badge := st.severity(f.Severity)
	head := f.Rule + "  " + volumeHeader(a, f.Volume, f.PV, f.Pods, width)
	t.line(badge, "  ", st.Bold(truncate(head, width-ansi.StringWidth(badge)-2)))
	summary := oneLine(f.Summary)
	when := clock(f.Start, true)
	if !f.End.IsZero() && !f.End.Equal(f.Start) {
		when += " → " + clock(f.End, !sameDay(f.Start, f.End)) + " (" + human(f.End.Sub(f.Start)) + ")"
	}
	if len(f.Nodes) > 0 {
		when += " · " + nodeList(f.Nodes, 40)
	}
	t.line("  ", st.Dim(truncate(when, width-2)))
	for _, l := range wrap(summary, width-2) {
		t.line("  ", l)
	}
	writeEvidence(t, st, f.Evidence, width, f.Code)
	if f.Explanation != "" {
		t.hanging("  ", "why  ", st.Label, oneLine(f.Explanation), width)
	}
	next := f.Next
	if next == "" {
		if r, ok := ruleByName(a.Rules, f.Rule); ok {
			next = r.Doc.Next
		}
	}
	if next != "" {
		t.hanging("  ", "next ", st.Label, oneLine(next), width)
	}
}
