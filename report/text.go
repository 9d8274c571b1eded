package report

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// maxTextKeyRows caps an incident's key-event timeline in the terminal.
const maxTextKeyRows = 14

// maxEvidenceLines is how many terminal lines one evidence message may wrap to.
const maxEvidenceLines = 4

// maxEvidence caps the evidence lines shown per incident or finding in text
// output; JSON and Markdown carry them all.
const maxEvidence = 12

// textWriter collects output lines and remembers the first write error.
type textWriter struct {
	w           *bufio.Writer
	err         error
	displayZone // the zone times are written in (Options.Zone)
	// room the timeline's lanes are painted in, reused (lane), and its
	// event rows are appended in (writeEventRows)
	scratch []byte
	states  []timeline.State
	rows    []byte
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

// lineBytes writes b and a line break.
func (t *textWriter) lineBytes(b []byte) {
	if t.err != nil {
		return
	}
	if _, err := t.w.Write(b); err != nil {
		t.err = err
		return
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
	for i, l := range wrap(text, width-len(indent)-lw) {
		if i == 0 {
			t.line(indent, labelPaint(label), l)
			continue
		}
		t.line(indent, strings.Repeat(" ", lw), l)
	}
}

// sentence is hanging for a label that begins the sentence text ends:
// each line painted whole in p.
func (t *textWriter) sentence(indent, label, text string, p paint, width int) {
	lw := ansi.StringWidth(label)
	for i, l := range wrap(text, width-len(indent)-lw) {
		if i == 0 {
			t.line(indent, p(label+l))
			continue
		}
		t.line(indent, strings.Repeat(" ", lw), p(l))
	}
}

// Text writes the analyze report for a terminal (or plain text when
// o.Color is false): header, input coverage, incidents by severity with
// their timeline, evidence, mechanism and next steps, then the findings
// outside any incident, then a one-line summary.
func Text(w io.Writer, a *Analysis, o Options) error {
	a = prepareHuman(a, o)
	st := newStyles(w, o)
	width := o.width()
	t := newTextWriter(w)
	t.displayZone = o.zone()

	writeCoverage(t, st, a, width)

	res := a.Result
	inIncident := incidentOf(res)
	for _, in := range res.Incidents {
		t.line()
		writeIncident(t, st, a, in, width, o)
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
	for _, l := range joinFit(strings.Split(summaryLine(a), " · "), " · ", width) {
		t.line(l)
	}
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
				sev = append(sev, fmt.Sprintf("%d %s", by[s], s.String()))
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

// writeCoverageDetails writes an input's details, dimmed, joined by " · "
// and wrapped under indent.
func writeCoverageDetails(t *textWriter, st *styles, indent string, det []string, width int) {
	for _, l := range joinFit(det, " · ", width-len(indent)) {
		for _, w := range wrap(l, width-len(indent)) {
			t.line(indent, st.Dim(w))
		}
	}
}

// writeCoverageProblems writes the first three problems of the input at
// path, then how many more there are.
func writeCoverageProblems(t *textWriter, st *styles, indent, path string, probs []parser.Problem, width int) {
	for i, p := range probs {
		if i == 3 {
			t.line(indent, st.Dim(fmt.Sprintf("… %d more problems", len(probs)-3)))
			break
		}
		loc := oneLine(path)
		if p.Line > 0 {
			loc += fmt.Sprintf(":%d", p.Line)
		}
		t.hanging(indent, "! ", st.Warning, loc+": "+oneLine(p.Message), width)
	}
}

// writeCoverage writes the header line and one block per input.
func writeCoverage(t *textWriter, st *styles, a *Analysis, width int) {
	tl := a.Timeline
	if tl == nil {
		t.line(st.Title("kcmtrace"), " · no inputs")
		return
	}
	snap := stateOf(tl)
	extra := stateOnlyFiles(tl, snap)
	paths := make([]string, len(tl.Inputs), len(tl.Inputs)+len(extra))
	for i, in := range tl.Inputs {
		paths[i] = oneLine(in.Path)
	}
	for _, f := range extra {
		paths = append(paths, oneLine(f.Path))
	}
	dir := commonDir(paths)
	where := ""
	if dir != "" {
		where = " in " + dir
		for i := range paths {
			paths[i] = strings.TrimPrefix(paths[i], dir)
		}
	}
	zone := ""
	if !t.isUTC() {
		zone = " · times in " + oneLine(t.name())
	}
	t.line(st.Title("kcmtrace"), " · ", plural(len(paths), "input"), where, " · ", t.spanText(tl.Start, tl.End), zone)
	for _, l := range fetchLines(tl) {
		t.hanging("  ", "", st.Dim, l, width)
	}
	// One line per input (path, role, format, counts) when every input
	// fits; else the path alone on its line and the rest below it. A file
	// name is never cut.
	pathW, fmtW, cntW := 0, 0, 0
	for i, in := range tl.Inputs {
		pathW = max(pathW, ansi.StringWidth(paths[i]))
		fmtW = max(fmtW, ansi.StringWidth(formatText(in)))
		cntW = max(cntW, ansi.StringWidth(countsText(in)))
	}
	for i, f := range extra {
		pathW = max(pathW, ansi.StringWidth(paths[len(tl.Inputs)+i]))
		fmtW = max(fmtW, ansi.StringWidth(f.Format))
		cntW = max(cntW, ansi.StringWidth(plural(f.Objects, "object")))
	}
	columns := 2+pathW+2+8+1+fmtW+2+cntW <= width
	const indent = "      "
	anchors := describeAnchors(tl)
	for i, in := range tl.Inputs {
		comp := in.Component
		if comp == "" {
			comp = "unknown"
		}
		var det []string
		if columns {
			t.line("  " + padRight(paths[i], pathW) + "  " + padRight(comp, 8) + " " + padRight(formatText(in), fmtW) + "  " + countsText(in))
		} else {
			// A path is one token: a path wider than the terminal is left
			// whole (the terminal folds it) so it can still be copied.
			t.line("  ", paths[i])
			det = append(det, comp, formatText(in), countsText(in))
		}
		det = append(det, t.spanText(in.First, in.Last))
		det = append(det, clockText(in, anchors))
		det = append(det, plural(in.Lines, "line"))
		if f := fetchText(in); f != "" {
			det = append(det, f)
		}
		if in.Records > 0 || in.NoTime > 0 || in.Duplicates > 0 {
			rec := plural(in.Records, "record")
			if in.NoTime > 0 {
				rec += fmt.Sprintf(" (%d without time)", in.NoTime)
			}
			if in.Duplicates > 0 {
				rec += fmt.Sprintf(", %d duplicates dropped", in.Duplicates)
			}
			det = append(det, rec)
		}
		for _, k := range sortedKeys(in.Skipped) {
			det = append(det, fmt.Sprintf("%d skipped (%s)", in.Skipped[k], k))
		}
		if in.Truncated {
			det = append(det, "input ended early")
		}
		probs := in.Problems
		if f := snap.File(in.Path); f != nil {
			det = append(det, "role "+f.Role, plural(f.Objects, "object"), stateTakenText(f, t.displayZone))
			probs = append(probs[:len(probs):len(probs)], stateProblems(snap, f)...)
		}
		writeCoverageDetails(t, st, indent, det, width)
		writeCoverageProblems(t, st, indent, in.Path, probs, width)
	}
	// The state files no log input was made of: role, format and objects
	// on the input's line, when the dump was taken below it.
	for i, f := range extra {
		path := paths[len(tl.Inputs)+i]
		var det []string
		if columns {
			t.line("  " + padRight(path, pathW) + "  " + padRight(f.Role, 8) + " " + padRight(f.Format, fmtW) + "  " + plural(f.Objects, "object"))
		} else {
			t.line("  ", path)
			det = append(det, f.Role, f.Format, plural(f.Objects, "object"))
		}
		det = append(det, stateTakenText(f, t.displayZone))
		writeCoverageDetails(t, st, indent, det, width)
		writeCoverageProblems(t, st, indent, f.Path, stateProblems(snap, f), width)
	}
	if missing := nodesWithoutKubelet(a); len(missing) > 0 {
		// one sentence, styled whole (a badge on its first words would cut it)
		t.sentence("  ", "no kubelet log for ", oneLine(strings.Join(missing, ", ")+" (named in findings)"), st.Warn, width)
	}
	for _, r := range tl.Restarts {
		t.hanging("  ", "controller restart ", st.Warning, fmt.Sprintf("%s  %s  %s:%d", t.clock(r.Time, !t.sameDay(r.Time, tl.Start)), r.Reason, strings.TrimPrefix(oneLine(r.Source.Path()), dir), r.Source.Line), width)
	}
	for _, s := range tl.Skews {
		if s.Offset == 0 || s.From == "none" || s.From == "matched-events" {
			continue // describe re-anchoring is shown on the input's own line
		}
		t.hanging("  ", "clock skew  ", st.Warning, fmt.Sprintf("%s %s against the kcm (%s, %s)", strings.TrimPrefix(oneLine(s.Path), dir), signed(s.Offset), s.From, plural(s.Pairs, "pair")), width)
	}
	if tl.Dupes > 0 {
		t.line("  ", st.Dim(fmt.Sprintf("%s read twice, counted once", plural(tl.Dupes, "duplicate line"))))
	}
}

// countsText is "111 events · 0 unknown".
func countsText(in parser.Input) string {
	return plural(in.Events, "event") + fmt.Sprintf(" · %d unknown", in.Unknown)
}

// commonDir is the directory prefix (ending in "/") shared by every path
// of several, or "".
func commonDir(paths []string) string {
	if len(paths) < 2 {
		return ""
	}
	p := paths[0]
	for _, q := range paths[1:] {
		for !strings.HasPrefix(q, p) {
			p = p[:len(p)-1]
		}
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// clockText says how an input's times were placed: year and zone and
// where they came from; for a describe / get-events input, what its
// relative ages were anchored to (anchors, see describeAnchors).
func clockText(in parser.Input, anchors map[string]timeline.Skew) string {
	if in.Format != "describe" && in.Format != "get-events" {
		return yearZoneText(in)
	}
	if s, ok := anchors[in.Path]; ok {
		return fmt.Sprintf("ages anchored by %s with the logs (%s)", plural(s.Pairs, "matching event"), signed(s.Offset))
	}
	if in.First.IsZero() {
		return "ages only (no time to anchor them to)"
	}
	return "ages anchored to the newest log time"
}

// describeAnchors are the describe re-anchorings by input path (the first
// of a path), looked up once per input rather than searched for.
func describeAnchors(tl *timeline.Timeline) map[string]timeline.Skew {
	m := map[string]timeline.Skew{}
	for _, s := range tl.Skews {
		if _, seen := m[s.Path]; s.From == "matched-events" && !seen {
			m[s.Path] = s
		}
	}
	return m
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
		if e.Component == parser.ComponentKubelet && e.Origin == 0 && e.Node != "" {
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

// volumeHeader is the names a finding's or an incident's header gives its
// volume: its label (the PV, else the handle, else its key), its handle,
// its first pod ("db/redis-master-0 +2"), each on one line.
func volumeHeader(a *Analysis, volume, pv string, pods []string) []string {
	var parts []string
	v := findVolume(a.Timeline, volume, pv)
	switch {
	case v != nil:
		parts = append(parts, volumeLabel(v))
		if v.Handle != "" && v.Handle != volumeLabel(v) {
			parts = append(parts, v.Handle)
		}
		if len(pods) == 0 {
			pods = v.Pods()
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
	parts = slices.DeleteFunc(parts, func(p string) bool { return p == "" })
	if len(parts) == 0 {
		parts = append(parts, unnamedVolume)
	}
	for i := range parts {
		parts[i] = oneLine(parts[i])
	}
	return parts
}

// writeHeader writes a finding's or an incident's header: the severity
// badge, lead (a rule name, or nothing) and the names (volumeHeader), two
// cells apart. Names are not cut: one that does not fit on the line goes
// on the next, under the header's text; only a name wider than a whole
// line is shortened (its UUIDs, then in the middle).
func writeHeader(t *textWriter, st *styles, badge, lead string, names []string, width int) {
	head := lead
	indent := ansi.StringWidth(badge) + 2
	room := width - indent
	var lines []string
	for _, n := range names {
		if w := ansi.StringWidth(n); w > room {
			n = shorten(reUUIDShort().ReplaceAllString(n, "${1}…"), room)
		}
		switch {
		case head == "":
			head = n
		case ansi.StringWidth(head)+2+ansi.StringWidth(n) <= room:
			head += "  " + n
		default:
			lines = append(lines, head)
			head = n
		}
	}
	lines = append(lines, head)
	for i, l := range lines {
		if i == 0 {
			t.line(badge, "  ", st.Bold(l))
			continue
		}
		t.line(strings.Repeat(" ", indent), st.Bold(l))
	}
}

func writeIncident(t *textWriter, st *styles, a *Analysis, in rules.Incident, width int, o Options) {
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
	writeHeader(t, st, st.severity(in.Severity), "", volumeHeader(a, in.Volume, in.PV, pods), width)
	if in.Summary != "" {
		for _, l := range wrap(oneLine(in.Summary), width-2) {
			t.line("  ", l)
		}
	}
	writeFindingRows(t, st, chain, oneLine(in.Summary), width)
	if v := findVolume(a.Timeline, in.Volume, in.PV); v != nil {
		writeKeyRows(t, st, v, width, o)
	}
	if len(chain) == 0 {
		for _, s := range in.Story {
			t.hanging("  ", "· ", plain, oneLine(s), width)
		}
	}
	var ev []rules.Evidence
	var keys []string
	var checks []rules.Check
	for _, f := range chain {
		logs, objs := splitEvidence(f.Evidence)
		ev = append(ev, keyEvidence(logs, 4)...)
		ev = append(ev, objs...)
		keys = append(keys, f.Code)
		checks = append(checks, f.Checks...)
	}
	writeEvidence(t, st, ev, width, keys...)
	writeChecks(t, st, checks, width)
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
	writeSteps(t, st, incidentSteps(a, in, chain), width)
}

// incidentSteps are an incident's next steps; for an incident built
// without them, its findings' steps merged.
func incidentSteps(a *Analysis, in rules.Incident, chain []rules.Finding) []rules.Step {
	if len(in.Next) > 0 {
		return in.Next
	}
	var all []rules.Step
	for _, f := range chain {
		all = append(all, findingSteps(a, f)...)
	}
	return rules.MergeSteps(all)
}

// findingSteps are a finding's next steps, or its rule's documented ones.
func findingSteps(a *Analysis, f rules.Finding) []rules.Step {
	if len(f.Steps) > 0 {
		return f.Steps
	}
	next := f.Next
	if next == "" {
		if r, ok := ruleByName(a.Rules, f.Rule); ok {
			next = r.Doc.Next
		}
	}
	if next == "" {
		return nil
	}
	return []rules.Step{{Phase: rules.Confirm, Text: oneLine(next)}}
}

// writeSteps writes numbered next steps under a "next" label:
// "next 1. recover  Delete the pod …", each wrapped under its own text.
func writeSteps(t *textWriter, st *styles, steps []rules.Step, width int) {
	phaseW := 0
	for _, s := range steps {
		phaseW = max(phaseW, len(s.Phase.String()))
	}
	for i, s := range steps {
		label := "next "
		if i > 0 {
			label = "     "
		}
		num := fmt.Sprintf("%d. ", i+1)
		if len(steps) == 1 {
			num = ""
		}
		head := num + padRight(s.Phase.String(), phaseW) + "  "
		lines := wrap(oneLine(s.Text), width-2-len(label)-ansi.StringWidth(head))
		for j, l := range lines {
			if j == 0 {
				t.line("  ", st.Label(label), st.Dim(head), l)
				continue
			}
			t.line("  ", strings.Repeat(" ", len(label)+ansi.StringWidth(head)), l)
		}
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
// A summary equal to said (the incident's, printed above) is not repeated.
func writeFindingRows(t *textWriter, st *styles, fs []rules.Finding, said string, width int) {
	summary := func(f rules.Finding) string {
		s := oneLine(f.Summary)
		if strings.EqualFold(strings.TrimSuffix(s, "."), strings.TrimSuffix(said, ".")) {
			return ""
		}
		return reUUIDShort().ReplaceAllString(s, "${1}…")
	}
	if len(fs) == 0 {
		return
	}
	withDate := false
	for _, f := range fs {
		if !f.Start.IsZero() && !t.sameDay(f.Start, fs[0].Start) {
			withDate = true
		}
	}
	nodeW, ruleW := 0, 0
	for _, f := range fs {
		nodeW = max(nodeW, ansi.StringWidth(nodeList(f.Nodes, 18)))
		ruleW = max(ruleW, len(f.Rule))
	}
	timeW := 0
	for _, f := range fs {
		timeW = max(timeW, ansi.StringWidth(t.clock(f.Start, withDate)))
	}
	whatW := width - 2 - timeW - 2 - nodeW - 2 - 2 - ruleW
	if whatW < 40 {
		indent := strings.Repeat(" ", 2+timeW+2)
		for _, f := range fs {
			t.line("  ", padRight(t.clock(f.Start, withDate), timeW), "  ", padRight(nodeList(f.Nodes, 18), nodeW), "  ", st.Rule(f.Rule))
			if text := summary(f); text != "" {
				for _, l := range wrap(text, width-len(indent)) {
					t.line(indent, l)
				}
			}
		}
		return
	}
	indent := strings.Repeat(" ", 2+timeW+2+nodeW+2)
	for _, f := range fs {
		lines := wrap(summary(f), whatW)
		t.line("  ", padRight(t.clock(f.Start, withDate), timeW), "  ", padRight(nodeList(f.Nodes, 18), nodeW), "  ",
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
		return nodeShort(nodes[0], max)
	case 2:
		if both := oneLine(nodes[0]) + "," + oneLine(nodes[1]); ansi.StringWidth(both) <= max {
			return both
		}
	}
	return nodeShort(nodes[0], max-3) + fmt.Sprintf(" +%d", len(nodes)-1)
}

// writeEvidence writes evidence lines, deduplicated and in time order, under a path:line gutter.
func writeEvidence(t *textWriter, st *styles, ev []rules.Evidence, width int, keys ...string) {
	ev = dedupEvidence(ev)
	if len(ev) == 0 {
		return
	}
	shown := capEvidence(ev, maxEvidence)
	t.line("  ", st.Label("evidence"))
	locOf := evidenceLoc
	locW := 0
	for _, e := range shown {
		locW = max(locW, ansi.StringWidth(locOf(e)))
	}
	// A long file name is never cut: it gets its own line and the message
	// goes below it.
	stacked := locW > width/3
	if stacked {
		locW = 2
	}
	avail := width - 4 - locW - 3
	said := map[string]string{} // message without numbers → where it was shown
	for _, e := range shown {
		loc, msg := locOf(e), evidenceMessage(oneLine(e.Text))
		key := sameMessage(msg)
		first, repeated := said[key]
		if !repeated {
			said[key] = loc // the whole location: stacked, loc is blanked below
		}
		if stacked {
			t.line("    ", st.Gutter(loc))
			loc = ""
		}
		if repeated {
			t.line("    ", st.Gutter(padRight(loc, locW)+" │ "), st.Dim("same message as "+first))
			continue
		}
		lines := wrap(window(msg, maxEvidenceLines*avail-maxEvidenceLines, keys...), avail)
		for i, l := range lines {
			if i == 0 {
				t.line("    ", st.Gutter(padRight(loc, locW)+" │ "), l)
				continue
			}
			t.line("    ", st.Gutter(strings.Repeat(" ", locW)+" │ "), l)
		}
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

// evidenceLoc is "kcm.log:14": the base name, to keep the gutter narrow.
func evidenceLoc(e rules.Evidence) string {
	return filepath.Base(oneLine(e.Path)) + fmt.Sprintf(":%d", e.Line)
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
	writeHeader(t, st, st.severity(f.Severity), f.Rule, volumeHeader(a, f.Volume, f.PV, f.Pods), width)
	summary := oneLine(f.Summary)
	when := t.clock(f.Start, true)
	if !f.End.IsZero() && !f.End.Equal(f.Start) {
		when += " → " + t.clock(f.End, !t.sameDay(f.Start, f.End)) + " (" + human(f.End.Sub(f.Start)) + ")"
	}
	if len(f.Nodes) > 0 {
		when += " · " + nodeList(f.Nodes, 40)
	}
	t.line("  ", st.Dim(truncate(when, width-2)))
	for _, l := range wrap(summary, width-2) {
		t.line("  ", l)
	}
	writeEvidence(t, st, f.Evidence, width, f.Code)
	writeChecks(t, st, f.Checks, width)
	if f.Explanation != "" {
		t.hanging("  ", "why  ", st.Label, oneLine(f.Explanation), width)
	}
	writeSteps(t, st, findingSteps(a, f), width)
}

// writeKeyRows writes an incident's key events (see keyRows) under a
// "timeline" label: time, node, what happened; loops folded into one row.
func writeKeyRows(t *textWriter, st *styles, v *timeline.Volume, width int, o Options) {
	rows := keyRows(v.Events)
	if len(rows) == 0 {
		return
	}
	omitted := 0
	if len(rows) > maxTextKeyRows {
		omitted = len(rows) - maxTextKeyRows
		rows = rows[:maxTextKeyRows]
	}
	withDate := false
	for _, r := range rows {
		if !r.Time.IsZero() && !rows[0].Time.IsZero() && !t.sameDay(r.Time, rows[0].Time) {
			withDate = true
		}
	}
	timeW, nodeW := 0, 0
	for _, r := range rows {
		timeW = max(timeW, ansi.StringWidth(r.when(t.displayZone, withDate)))
		nodeW = max(nodeW, ansi.StringWidth(nodeShort(r.Node, width/4)))
	}
	t.line("  ", st.Label("timeline"))
	indent := 4 + timeW + 2 + nodeW + 2
	for _, r := range rows {
		lines := wrap(r.step(t.displayZone), width-indent)
		t.line("    ", padRight(r.when(t.displayZone, withDate), timeW), "  ", padRight(nodeShort(r.Node, width/4), nodeW), "  ", lines[0])
		for _, l := range lines[1:] {
			t.line(strings.Repeat(" ", indent), l)
		}
	}
	note := fmt.Sprintf("all %s:", plural(len(v.Events), "event"))
	if omitted > 0 {
		note = fmt.Sprintf("… %d more key rows; ", omitted) + note
	}
	// The command is never cut, so that it can be pasted: on the note's line
	// when it fits, else on a line of its own.
	cmd := oneLine(timelineCommand(v, o))
	if ansi.StringWidth(note)+1+ansi.StringWidth(cmd) <= width-4 {
		t.line("    ", st.Dim(note+" "+cmd))
		return
	}
	t.line("    ", st.Dim(note))
	t.line("    ", st.Dim(cmd))
}

// nodeShort fits a node name into max cells: a host name loses its domain
// first ("ip-10-0-1-5.eu-west-1.compute.internal" → "ip-10-0-1-5…"), then
// its middle; an IP address is never cut.
func nodeShort(n string, max int) string {
	n = oneLine(n)
	if n == "" {
		return unknownTime
	}
	if ansi.StringWidth(n) <= max || net.ParseIP(n) != nil {
		return n
	}
	if host, _, ok := strings.Cut(n, "."); ok && len(host) >= 3 && ansi.StringWidth(host)+1 <= max {
		return host + "…"
	}
	return shorten(n, max)
}

// joinFit joins parts with sep into lines of at most width cells, breaking
// only between parts.
func joinFit(parts []string, sep string, width int) []string {
	var lines []string
	cur := ""
	end := strings.TrimRight(sep, " ")
	for i, p := range parts {
		// A part that is not the last leaves room for the separator
		// ending the line, should the next part not fit.
		tail := end
		if i == len(parts)-1 {
			tail = ""
		}
		switch {
		case cur == "":
			cur = p
		case ansi.StringWidth(cur+sep+p+tail) <= width:
			cur += sep + p
		default:
			lines = append(lines, cur+end)
			cur = p
		}
	}
	return append(lines, cur)
}
