package report

import (
	"bytes"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Swimlane cells, one character per state; colour (when on) only repaints them.
var laneChar = map[timeline.State]rune{
	timeline.Attaching:    '░',
	timeline.Attached:     '█',
	timeline.Uncertain:    '▒',
	timeline.Detaching:    '▓',
	timeline.Detached:     '·',
	timeline.Mounting:     '-',
	timeline.Mounted:      '=',
	timeline.MountFailing: 'x',
	timeline.Unmounted:    '.',
}

var (
	controllerStates = []timeline.State{timeline.Attaching, timeline.Attached, timeline.Uncertain, timeline.Detaching, timeline.Detached}
	kubeletStates    = []timeline.State{timeline.Mounting, timeline.Mounted, timeline.MountFailing, timeline.Unmounted}
)

// TimelineText writes, for each volume, a swimlane picture (the controller's
// view and the kubelet's view per node, time left to right) and beneath it
// the volume's events with absolute and relative times. vols nil means every
// volume of tl.
func TimelineText(w io.Writer, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	tl, vols = prepareTimeline(tl, vols, o)
	st := newStyles(w, o)
	width := o.width()
	t := newTextWriter(w)
	t.displayZone = o.zone()
	if len(vols) == 0 {
		t.line("no volumes")
		return t.flush()
	}
	// The volumes are rendered in batches on every core and written in
	// order: a large cluster's day (35k volumes, 40 MB of text) is
	// otherwise one core's work.
	legend := legend(st, width)
	render := func(dst []byte, from, to int) ([]byte, error) {
		buf := bytes.NewBuffer(dst)
		bt := newTextWriter(buf)
		bt.displayZone = t.displayZone
		for i := from; i < to; i++ {
			if i > 0 {
				bt.line()
			}
			writeVolumeTimeline(bt, st, vols[i], width, legend)
		}
		err := bt.flush()
		return buf.Bytes(), err
	}
	if err := t.flush(); err != nil {
		return err
	}
	return renderVolumes(w, len(vols), render)
}

// legend is the lanes' legend for this width: one line, or two when it
// does not fit.
func legend(st *styles, width int) []string {
	var parts []string
	for _, s := range controllerStates {
		parts = append(parts, st.state(s, string(laneChar[s]))+" "+s.String())
	}
	ctl := "ctl: " + strings.Join(parts, "  ")
	parts = nil
	for _, s := range kubeletStates {
		parts = append(parts, st.state(s, string(laneChar[s]))+" "+s.String())
	}
	kub := "kub: " + strings.Join(parts, "  ")
	if ansi.StringWidth(ctl)+3+ansi.StringWidth(kub)+2 <= width {
		return []string{"  " + ctl + "   " + kub}
	}
	return []string{"  " + ctl, "  " + kub}
}

// volumeNodes is every node the volume's lanes need, in order of first
// appearance (ties by name), so the node the story starts on comes first.
func volumeNodes(v *timeline.Volume) []string {
	first := map[string]time.Time{}
	see := func(n string, t time.Time) {
		if n == "" {
			return
		}
		if f, ok := first[n]; !ok || (!t.IsZero() && (f.IsZero() || t.Before(f))) {
			first[n] = t
		}
	}
	for _, e := range v.Events {
		see(e.Node, e.Time.UTC())
	}
	for _, iv := range v.Intervals {
		see(iv.Node, iv.Start())
	}
	for _, iv := range v.Kubelet() {
		see(iv.Node, iv.Start())
	}
	for _, n := range v.Nodes() {
		see(n, time.Time{})
	}
	var out []string
	for n := range first {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := first[out[i]], first[out[j]]
		if !a.Equal(b) {
			if a.IsZero() || b.IsZero() {
				return !a.IsZero()
			}
			return a.Before(b)
		}
		return out[i] < out[j]
	})
	return out
}

// volumeSpan is the time range the volume's picture covers.
func volumeSpan(v *timeline.Volume) (time.Time, time.Time) {
	a, b := v.First(), v.Last()
	see := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if a.IsZero() || t.Before(a) {
			a = t
		}
		if b.IsZero() || t.After(b) {
			b = t
		}
	}
	for _, e := range v.Events {
		see(e.Time.UTC())
	}
	for _, iv := range v.Intervals {
		see(iv.Start())
		see(iv.End())
	}
	for _, iv := range v.Kubelet() {
		see(iv.Start())
		see(iv.End())
	}
	return a, b
}

// lane paints the intervals of one node onto cells cells wide, into the
// writer's scratch room (valid until the next lane: a large cluster's
// timeline paints two lanes for each of its 35k volumes' nodes).
func (t *textWriter) lane(st *styles, ivs []timeline.Interval, node string, start, end time.Time, cells int) string {
	states := slices.Grow(t.states[:0], cells)[:cells]
	clear(states)
	t.states = states
	span := end.Sub(start)
	cell := func(t time.Time) int {
		if span <= 0 {
			return 0
		}
		c := int(float64(t.Sub(start)) / float64(span) * float64(cells))
		return min(max(c, 0), cells-1)
	}
	for _, iv := range ivs {
		if iv.Node != node {
			continue
		}
		s := iv.Start()
		if s.IsZero() {
			s = start
		}
		e := iv.End()
		if e.IsZero() {
			e = end
		}
		c0, c1 := cell(s), cell(e)
		if !iv.End().IsZero() && c1 > c0 && e.Before(end) {
			c1-- // the closing event's cell belongs to the next state
		}
		for c := c0; c <= c1; c++ {
			states[c] = iv.State
		}
	}
	b := t.scratch[:0]
	for i := 0; i < cells; {
		j := i
		for j < cells && states[j] == states[i] {
			j++
		}
		ch := ' '
		if r, ok := laneChar[states[i]]; ok && states[i] != 0 {
			ch = r
		}
		if _, painted := st.States[states[i]]; painted {
			b = append(b, st.state(states[i], strings.Repeat(string(ch), j-i))...)
		} else {
			for range j - i {
				b = utf8.AppendRune(b, ch)
			}
		}
		i = j
	}
	t.scratch = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func writeVolumeTimeline(t *textWriter, st *styles, v *timeline.Volume, width int, legend []string) {
	t.line(st.Title(truncate(oneLine(volumeLabel(v)), width)))
	var meta []string
	if v.UniqueName != "" && v.UniqueName != volumeLabel(v) {
		meta = append(meta, oneLine(v.UniqueName))
	}
	if v.Driver() != "" && !strings.Contains(v.UniqueName, v.Driver()) {
		meta = append(meta, oneLine(v.Driver()))
	}
	if len(v.Pods()) > 0 {
		meta = append(meta, oneLine(strings.Join(v.Pods(), ", ")))
	}
	if v.Multi {
		meta = append(meta, "multi-node (RWX/ROX)")
	}
	meta = append(meta, plural(len(v.Events), "event"))
	if s, e := volumeSpan(v); e.Sub(s) > 0 {
		meta = append(meta, human(e.Sub(s)))
	}
	for _, l := range wrap(strings.Join(meta, " · "), width-2) {
		t.line("  ", st.Dim(l))
	}
	start, end := volumeSpan(v)
	nodes := volumeNodes(v)
	if len(nodes) > 0 && !start.IsZero() {
		labelW := 4
		for _, n := range nodes {
			labelW = max(labelW, ansi.StringWidth(shorten(oneLine(n), 20)))
		}
		// "  " label " ctl │" cells "│"
		cells := width - 2 - labelW - 6 - 1
		cells = max(cells, 10)
		pad := strings.Repeat(" ", 2+labelW+6)
		l, r := t.clock(start, false), t.clock(end, !t.sameDay(start, end))
		if !t.sameDay(start, end) {
			l = t.clock(start, true)
		}
		axis := l + strings.Repeat(" ", max(1, cells-len(l)-len(r))) + r
		if span := end.Sub(start); span > 0 {
			t.line(pad, st.Dim(truncate(axis, cells)))
		} else {
			t.line(pad, st.Dim(l))
		}
		hasKubelet := map[string]bool{}
		for _, e := range v.Events {
			if e.Component == parser.ComponentKubelet {
				hasKubelet[e.Node] = true
			}
		}
		for _, iv := range v.Kubelet() {
			hasKubelet[iv.Node] = true
		}
		for _, n := range nodes {
			label := padRight(shorten(oneLine(n), 20), labelW)
			t.line("  ", label, st.Dim(" ctl │"), t.lane(st, v.Intervals, n, start, end, cells), st.Dim("│"))
			kl := t.lane(st, v.Kubelet(), n, start, end, cells)
			if !hasKubelet[n] {
				kl = st.Dim(padRight(truncate("(no kubelet lines)", cells), cells))
			}
			t.line("  ", strings.Repeat(" ", labelW), st.Dim(" kub │"), kl, st.Dim("│"))
		}
		for _, l := range legend { // next to the lanes it explains, not after the events
			t.line(l)
		}
	}
	for _, ov := range mergeOverlaps(v.Overlaps()) {
		var ns []string
		for _, n := range ov.nodes {
			ns = append(ns, oneLine(n)+" "+strings.Join(ov.states[n], "→"))
		}
		end := "open"
		if !ov.end.IsZero() {
			end = t.clock(ov.end, false) + " (" + human(ov.end.Sub(ov.start)) + ")"
		}
		label := "two nodes at once "
		if v.Multi {
			label = "shared (RWX) "
		}
		t.hanging("  ", label, st.Warning, t.clock(ov.start, false)+" → "+end+": "+strings.Join(ns, ", "), width)
	}
	writeEventRows(t, st, v.Events, len(v.Pods()) > 1, width)
}

// overlapRun is consecutive overlaps of the same nodes, told as one: the
// states each node went through.
type overlapRun struct {
	start, end time.Time
	nodes      []string
	states     map[string][]string
}

// mergeOverlaps joins overlaps that follow each other on the same nodes
// (uncertain+attaching, then uncertain+attached, then detaching+attached).
func mergeOverlaps(ovs []timeline.Overlap) []overlapRun {
	var out []overlapRun
	for _, ov := range ovs {
		if n := len(out); n > 0 && out[n-1].end.Equal(ov.Start) && !ov.Start.IsZero() && slices.Equal(out[n-1].nodes, ov.Nodes) {
			r := &out[n-1]
			r.end = ov.End
			for _, nd := range ov.Nodes {
				if st := ov.States[nd].String(); r.states[nd][len(r.states[nd])-1] != st {
					r.states[nd] = append(r.states[nd], st)
				}
			}
			continue
		}
		r := overlapRun{start: ov.Start, end: ov.End, nodes: ov.Nodes, states: map[string][]string{}}
		for _, nd := range ov.Nodes {
			r.states[nd] = []string{ov.States[nd].String()}
		}
		out = append(out, r)
	}
	return out
}

// eventRows are a volume's collapsed events laid out for writeEventRows:
// the rows, their columns' widths and what the columns show.
type eventRows struct {
	rows                            []row
	locs                            []string // each row's source (sourceLoc)
	base                            time.Time
	withDate, showRel               bool
	timeW, relW, nodeW, locW, whatW int
}

// layEventRows collapses evs and measures the columns of their rows at
// width; ok is false when there is no row.
func layEventRows(t *textWriter, evs []parser.Event, width int) (l eventRows, ok bool) {
	rows := collapse(evs)
	if len(rows) == 0 {
		return l, false
	}
	base := rows[0].Time
	for _, r := range rows {
		if !r.Time.IsZero() && (base.IsZero() || r.Time.Before(base)) {
			base = r.Time
		}
	}
	withDate := false
	for _, r := range rows {
		if !r.Time.IsZero() && !t.sameDay(r.Time, base) {
			withDate = true
		}
	}
	timeW := 12
	if withDate {
		timeW = 18
	}
	timeW = max(timeW, ansi.StringWidth("TIME ("+t.name()+")"))
	relW, nodeW, locW := 4, 4, 6
	locs := make([]string, len(rows))
	for i, r := range rows {
		if r.Time.IsZero() {
			timeW = max(timeW, displayWidth(r.when(t.displayZone, false)))
		}
		relW = max(relW, len(rel(r.Time, base)))
		nodeW = max(nodeW, displayWidth(shorten(oneLine(r.Node), 16)))
		locs[i] = r.sourceLoc()
		locW = max(locW, displayWidth(locs[i]))
	}
	locW = min(locW, 22)
	whatW := width - 2 - timeW - 2 - relW - 2 - nodeW - 2 - 2 - locW
	showRel := whatW >= 30 // at 80 columns the event text needs the room
	if !showRel {
		whatW += relW + 2
		relW = 0
	}
	return eventRows{rows: rows, locs: locs, base: base, withDate: withDate, showRel: showRel,
		timeW: timeW, relW: relW, nodeW: nodeW, locW: locW, whatW: whatW}, true
}

// relCol is the REL column's cell s and its gap ("" when not shown).
func (l *eventRows) relCol(s string) string {
	if !l.showRel {
		return ""
	}
	return padRight(s, l.relW) + "  "
}

// header writes the blank line and the column headers above the rows.
func (l *eventRows) header(t *textWriter, st *styles) {
	t.line()
	t.line("  ", st.Dim(padRight("TIME ("+t.name()+")", l.timeW)+"  "+l.relCol("REL")+padRight("NODE", l.nodeW)+"  "+padRight("EVENT", l.whatW)+"  SOURCE"))
}

// writeEventRows writes the collapsed event list with absolute and relative
// times; pods only when the volume has several (the header names one).
// Each row is appended in place (TestEventRowsMatchJoined holds it to the
// row joined from strings): a large cluster's timeline has 100k of them.
func writeEventRows(t *textWriter, st *styles, evs []parser.Event, withPod bool, width int) {
	l, ok := layEventRows(t, evs, width)
	if !ok {
		return
	}
	l.header(t, st)
	layout := "15:04:05.000"
	if l.withDate {
		layout = "01-02 15:04:05.000"
	}
	b := t.rows[:0]
	for i, r := range l.rows {
		b = append(b[:0], ' ', ' ')
		if r.Time.IsZero() {
			b = appendPadded(b, r.when(t.displayZone, false), l.timeW)
		} else {
			n := len(b)
			b = t.in(r.Time).AppendFormat(b, layout)
			b = appendSpaces(b, l.timeW-(len(b)-n))
		}
		b = append(b, ' ', ' ')
		if l.showRel {
			b = append(appendPadded(b, rel(r.Time, l.base), l.relW), ' ', ' ')
		}
		node := r.Node
		if node == "" {
			node = "-"
		}
		b = append(appendPadded(b, shorten(oneLine(node), 16), l.nodeW), ' ', ' ')
		what := r.what(withPod)
		var more []string
		if !wrapsToItself(what, l.whatW) {
			lines := wrap(what, l.whatW)
			what, more = lines[0], lines[1:]
		}
		b = append(appendPadded(b, what, l.whatW), ' ', ' ')
		b = append(b, st.Dim(shorten(l.locs[i], l.locW))...)
		t.lineBytes(b)
		for _, m := range more {
			t.line(strings.Repeat(" ", 2+l.timeW+2+len(l.relCol(""))+l.nodeW+2), m)
		}
	}
	t.rows = b
}
