package report

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// EventsText writes one line per event in aligned columns: time, kind,
// node, volume (short), code, origin (eventOrigin), path:line.
func EventsText(w io.Writer, evs []parser.Event, o Options) error {
	if o.Redact {
		evs = newRedactorFor(nil, evs).events(evs)
	}
	st := newStyles(w, o)
	// The rows follow the width given (the terminal's, or $COLUMNS); with
	// none, a wide default: the code and source are what give way.
	width := max(o.Width, MinWidth)
	if o.Width <= 0 {
		width = eventsDefaultWidth
	}
	t := newTextWriter(w)
	t.displayZone = o.zone()
	c := eventColumnWidths(evs)
	c.time = len("2006-01-02T15:04:05.000Z")
	if !t.isUTC() {
		c.time += len("+08:00") - 1
	}
	if !o.NoHeaders {
		t.line(st.Dim(strings.Join([]string{padRight("TIME", c.time), padRight("KIND", c.kind), padRight("NODE", c.node),
			padRight("VOLUME", c.vol), padRight("CODE", c.code), padRight("ORIGIN", c.origin), "SOURCE"}, "  ")))
	}
	if err := t.flush(); err != nil {
		return err
	}
	// A large cluster's day is 100k events and more: the rows are made on
	// every core (renderBatches), in order.
	return renderBatches(w, len(evs), eventBatch, func(dst []byte, from, to int) ([]byte, error) {
		var rest []byte
		for i := from; i < to; i++ {
			dst, rest = appendEventRow(dst, rest, &evs[i], t.displayZone, c, width, o.Wide)
			dst = append(dst, '\n')
		}
		return dst, nil
	})
}

// eventBatch is how many events' rows one goroutine makes at a time.
const eventBatch = 512

// eventColumns are the widths of the events table's columns.
type eventColumns struct{ time, kind, node, vol, code, origin int }

// eventColumnWidths measures the columns of the events table but TIME
// (whose width is the zone's), in consecutive parts on every core for a
// long list.
func eventColumnWidths(evs []parser.Event) eventColumns {
	measure := func(evs []parser.Event) eventColumns {
		c := eventColumns{kind: 4, node: 4, vol: 6, code: 4, origin: len("ORIGIN")}
		for i := range evs {
			e := &evs[i]
			c.kind = max(c.kind, len(e.Kind.String()))
			c.node = max(c.node, displayWidth(shorten(oneLine(e.Node), 20)))
			c.vol = max(c.vol, displayWidth(eventVolume(*e)))
			c.code = max(c.code, len(oneLine(e.Code)))
			c.origin = max(c.origin, displayWidth(eventOrigin(*e)))
		}
		return c
	}
	parts := min(runtime.GOMAXPROCS(0), len(evs)/eventBatch+1)
	widths := make([]eventColumns, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { widths[p] = measure(evs[len(evs)*p/parts : len(evs)*(p+1)/parts]) })
	}
	wg.Wait()
	c := widths[0]
	for _, w := range widths[1:] {
		c = eventColumns{kind: max(c.kind, w.kind), node: max(c.node, w.node), vol: max(c.vol, w.vol), code: max(c.code, w.code), origin: max(c.origin, w.origin)}
	}
	c.code = min(c.code, 18)
	return c
}

// appendEventRow appends the events table's row of e (without its
// newline) to dst, with no allocation for a plain row: rows are made by
// the hundred thousand, and the strings they were joined from were most
// of the collector's work. rest is scratch room for the cells that give
// way to the width.
func appendEventRow(dst, rest []byte, e *parser.Event, z displayZone, c eventColumns, width int, wide bool) (row, scratch []byte) {
	start := len(dst)
	// The names come first and are never cut; the code and source
	// give way to the width (-o wide: nothing gives way).
	var namesW int
	cell := func(s string, w int) {
		dst = appendPadded(dst, s, w)
		namesW += max(displayWidth(s), w)
	}
	if e.Time.IsZero() {
		tm := ageText(*e)
		if e.Relative {
			tm += "~"
		}
		cell(tm, c.time)
	} else {
		at := len(dst)
		dst = z.in(e.Time.UTC()).AppendFormat(dst, "2006-01-02T15:04:05.000Z07:00")
		if e.Relative {
			dst = append(dst, '~')
		}
		n := len(dst) - at // ASCII
		dst = appendSpaces(dst, c.time-n)
		namesW += max(n, c.time)
	}
	dst = append(dst, "  "...)
	if kind := e.Kind.String(); e.Count > 1 {
		at := len(dst)
		dst = append(append(dst, kind...), " ×"...)
		dst = strconv.AppendInt(dst, int64(e.Count), 10)
		n := len(dst) - at - 1 // "×" is two bytes, one cell
		dst = appendSpaces(dst, c.kind-n)
		namesW += max(n, c.kind)
	} else {
		cell(kind, c.kind)
	}
	dst = append(dst, "  "...)
	cell(shorten(oneLine(e.Node), 20), c.node)
	dst = append(dst, "  "...)
	cell(eventVolume(*e), c.vol)
	namesW += 3 * len("  ")

	rest = appendPadded(rest[:0], truncate(oneLine(e.Code), c.code), c.code)
	rest = appendPadded(append(rest, "  "...), eventOrigin(*e), c.origin)
	rest = append(append(rest, "  "...), oneLine(e.Source.Path())...)
	rest = strconv.AppendInt(append(rest, ':'), int64(e.Source.Line), 10)
	dst = append(dst, "  "...)
	if r := unsafe.String(unsafe.SliceData(rest), len(rest)); wide {
		dst = append(dst, r...)
	} else {
		dst = appendTruncated(dst, r, max(width-namesW-2, 16))
	}
	return dst[:start+len(bytes.TrimRight(dst[start:], " "))], rest
}

// appendPadded appends s and spaces up to width cells.
func appendPadded(dst []byte, s string, width int) []byte {
	return appendSpaces(append(dst, s...), width-displayWidth(s))
}

// appendSpaces appends n spaces (none when n <= 0).
func appendSpaces(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// eventOrigin is how an event reached the log: "log" (a component's own
// line), "describe" (kubectl describe / get events), "event" (a Kubernetes
// Event echoed into a log), or "event→:N" for an echo linked to line N of
// the same file, the operation line it repeats (counted there, not again).
func eventOrigin(e parser.Event) string {
	switch {
	case e.Origin == 0:
		return "log"
	case e.EchoOf != 0:
		return fmt.Sprintf("%s→:%d", e.Origin, e.EchoOf)
	}
	return oneLine(e.Origin.String())
}

// eventsDefaultWidth is the width of events text when Options.Width is 0.
const eventsDefaultWidth = 160

// eventVolume is the short name an event's volume goes by.
func eventVolume(e parser.Event) string {
	n := e.PV
	if n == "" {
		n = e.Handle
	}
	if n == "" {
		n = e.Volume
	}
	if n == "" {
		n = e.Attachment
	}
	if n == "" {
		return "-"
	}
	return oneLine(n) // never cut: grep pvc-… finds the row at any width
}

// VolumesTable writes a table of volumes: name, PV, driver, nodes, pods,
// first/last seen, and attach/detach/mount failure counts. Below 140
// columns the PV joins the name column (when the volume has a handle, the
// PV is the second name shown in `kcmtrace timeline`) and the counts share
// one column.
func VolumesTable(w io.Writer, vols []*timeline.Volume, o Options) error {
	_, vols = prepareTimeline(nil, vols, o)
	st := newStyles(w, o)
	width := o.width()
	if len(vols) == 0 {
		_, err := io.WriteString(w, "no volumes\n")
		return err
	}
	z := o.zone()
	withDate := false
	for _, v := range vols {
		if !z.sameDay(v.First(), vols[0].First()) || !z.sameDay(v.Last(), vols[0].First()) {
			withDate = true
		}
	}
	seen := func(v *timeline.Volume) (string, string) {
		return z.clock(v.First(), withDate), z.clock(v.Last(), withDate)
	}
	pods := func(v *timeline.Volume, w int) string {
		if len(v.Pods()) == 0 {
			return "-"
		}
		if len(v.Pods()) == 1 {
			return podShort(v.Pods()[0], w)
		}
		more := fmt.Sprintf(" +%d", len(v.Pods())-1)
		return podShort(v.Pods()[0], w-len(more)) + more
	}
	name := func(v *timeline.Volume) string {
		if v.Handle != "" {
			// Path-like handles (Azure disk URIs, vSphere datastore paths):
			// the last segment is the disk's own name.
			if i := strings.LastIndexByte(v.Handle, '/'); i >= 0 && i < len(v.Handle)-1 {
				return v.Handle[i+1:]
			}
			return v.Handle
		}
		return volumeLabel(v)
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return oneLine(s)
	}
	if o.Wide {
		tb := newTable(st, o, "VOLUME", "PV", "DRIVER", "NODES", "PODS", "FIRST", "LAST", "ATTACH✗", "DETACH✗", "MOUNT✗")
		for _, v := range vols {
			f := failures(v)
			first, last := seen(v)
			tb.Row(dash(name(v)), dash(v.PV), dash(v.Driver()), nodeList(v.Nodes(), 1<<20),
				pods(v, 1<<20), first, last, strconv.Itoa(f.Attach), strconv.Itoa(f.Detach), strconv.Itoa(f.Mount))
		}
		return tb.render(w)
	}
	if width >= 140 {
		tb := newTable(st, o, "VOLUME", "PV", "DRIVER", "NODES", "PODS", "FIRST", "LAST", "ATTACH✗", "DETACH✗", "MOUNT✗")
		for _, v := range vols {
			f := failures(v)
			first, last := seen(v)
			tb.Row(dash(name(v)), dash(v.PV), shorten(dash(v.Driver()), 24), nodeList(v.Nodes(), 24),
				pods(v, 24), first, last, strconv.Itoa(f.Attach), strconv.Itoa(f.Detach), strconv.Itoa(f.Mount))
		}
		return tb.render(w)
	}
	// Narrow: VOLUME DRIVER NODES PODS SEEN A/D/M✗ within width. The volume
	// name is what people scan for, so it gets the room; SEEN is the first
	// time plus how long the volume was seen, not two full dates.
	seenText := func(v *timeline.Volume) string {
		if v.First().IsZero() {
			return unknownTime
		}
		f, unit := "15:04:05", time.Second
		switch {
		case withDate && width < 100:
			f, unit = "01-02 15:04", time.Minute
		case withDate:
			f = "2006-01-02 15:04"
		case width < 100:
			f, unit = "15:04", time.Minute
		}
		s := z.in(v.First()).Format(f)
		if d := v.Last().Sub(v.First()).Round(unit); !v.Last().IsZero() && d >= unit {
			s += " +" + human(d)
		}
		return s
	}
	// Natural widths first; when they do not fit, shrink the driver, pods
	// and nodes (node lists never cut an IP, so measure what they become)
	// and give the volume column what is left.
	// Start from the header widths: a column is never narrower than its title.
	seenW, volN, drvN, nodeN, podN := len("SEEN ("+z.name()+")"), len("VOLUME"), len("DRIVER"), len("NODES"), len("PODS")
	for _, v := range vols {
		seenW = max(seenW, displayWidth(seenText(v)))
		volN = max(volN, displayWidth(dash(name(v))))
		drvN = max(drvN, displayWidth(dash(driverLabel(v.Driver()))))
		nodeN = max(nodeN, displayWidth(nodeList(v.Nodes(), width)))
		podN = max(podN, displayWidth(pods(v, width)))
	}
	const countsW, gaps = 6, 5 * 2 // "A/D/M✗", two cells between columns
	avail := width - gaps - seenW - countsW
	driverW, nodeW, podW, volW := drvN, nodeN, podN, volN
	if volN+drvN+nodeN+podN > avail {
		// Priority: volume, then nodes, then pods, then the driver.
		volW = volN // names are never cut: grep finds the row at any width
		driverW = min(drvN, 16)
		if width < 100 {
			driverW = min(drvN, 10)
		}
		nodeW = min(nodeN, max(12, (avail-volW-driverW)/2))
		real := 0
		for _, v := range vols {
			real = max(real, displayWidth(nodeList(v.Nodes(), nodeW)))
		}
		nodeW = real
		podW = min(podN, max(avail-volW-driverW-nodeW, 6))
	}
	tb := newTable(st, o, "VOLUME", "DRIVER", "NODES", "PODS", "SEEN ("+z.name()+")", "A/D/M✗")
	for _, v := range vols {
		f := failures(v)
		tb.Row(dash(name(v)), shorten(dash(driverLabel(v.Driver())), driverW), nodeList(v.Nodes(), nodeW), pods(v, podW),
			seenText(v), fmt.Sprintf("%d/%d/%d", f.Attach, f.Detach, f.Mount))
	}
	return tb.render(w)
}

// RulesTable writes the rules: name, default severity, title.
func RulesTable(w io.Writer, rs []rules.Rule, o Options) error {
	st := newStyles(w, o)
	width := o.width()
	nameW := 4
	for _, r := range rs {
		nameW = max(nameW, len(r.Name))
	}
	titleW := width - nameW - 10 - 6
	tb := newTable(st, o, "RULE", "SEVERITY", "TITLE")
	for _, r := range rs {
		tb.Row(r.Name, r.Severity.String(), truncate(r.Doc.Title, titleW))
	}
	return tb.render(w)
}

// Explain writes a rule's full documentation.
func Explain(w io.Writer, r rules.Rule, o Options) error {
	st := newStyles(w, o)
	width := o.width()
	t := newTextWriter(w)
	t.line(st.Title(r.Name), "  ", st.severity(r.Severity))
	for _, l := range wrap(r.Doc.Title, width) {
		t.line(st.Bold(l))
	}
	for _, sec := range []struct{ head, body string }{{"How it happens", r.Doc.Explanation}, {"What to check next", r.Doc.Next}} {
		if strings.TrimSpace(sec.body) == "" {
			continue
		}
		t.line()
		t.line(st.Label(sec.head))
		for _, para := range strings.Split(strings.TrimSpace(sec.body), "\n\n") {
			for _, l := range wrap(strings.Join(strings.Fields(para), " "), width-2) {
				t.line("  ", l)
			}
		}
	}
	if len(r.Params) > 0 {
		t.line()
		t.line(st.Label("Settings"), st.Dim(fmt.Sprintf(" (--set %s.KEY=VALUE)", r.Name)))
		for _, p := range r.Params {
			t.hanging("  ", fmt.Sprintf("%s = %s  ", p.Key, p.Default), st.Key, p.Help, width)
		}
	}
	return t.flush()
}

// podShort fits "ns/name" into w cells, giving up the namespace first.
func podShort(p string, w int) string {
	p = oneLine(p)
	if displayWidth(p) <= w {
		return p
	}
	if _, name, ok := strings.Cut(p, "/"); ok && displayWidth(name)+2 <= w {
		return "…/" + name
	}
	return shorten(p, w)
}

// driverLabel drops the "kubernetes.io/" prefix of in-tree plugin names
// ("aws-ebs", "cinder"); CSI driver names are shown as they are.
func driverLabel(d string) string {
	return strings.TrimPrefix(d, "kubernetes.io/")
}
