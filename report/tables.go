package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

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
	timeW := len("2006-01-02T15:04:05.000Z")
	if !t.isUTC() {
		timeW += len("+08:00") - 1
	}
	kindW, nodeW, volW, codeW := 4, 4, 6, 4
	for _, e := range evs {
		kindW = max(kindW, len(e.Kind.String()))
		nodeW = max(nodeW, ansi.StringWidth(shorten(oneLine(e.Node), 20)))
		volW = max(volW, ansi.StringWidth(eventVolume(e)))
		codeW = max(codeW, len(oneLine(e.Code)))
	}
	codeW = min(codeW, 18)
	originW := len("ORIGIN")
	for _, e := range evs {
		originW = max(originW, ansi.StringWidth(eventOrigin(e)))
	}
	if !o.NoHeaders {
		t.line(st.Dim(strings.Join([]string{padRight("TIME", timeW), padRight("KIND", kindW), padRight("NODE", nodeW),
			padRight("VOLUME", volW), padRight("CODE", codeW), padRight("ORIGIN", originW), "SOURCE"}, "  ")))
	}
	for _, e := range evs {
		tm := ageText(e)
		if !e.Time.IsZero() {
			tm = t.in(e.Time.UTC()).Format("2006-01-02T15:04:05.000Z07:00")
		}
		if e.Relative {
			tm += "~"
		}
		kind := e.Kind.String()
		if e.Count > 1 {
			kind += fmt.Sprintf(" ×%d", e.Count)
		}
		// The names come first and are never cut; the code and source
		// give way to the width (-o wide: nothing gives way).
		names := strings.Join([]string{padRight(tm, timeW), padRight(kind, kindW), padRight(shorten(oneLine(e.Node), 20), nodeW),
			padRight(eventVolume(e), volW)}, "  ")
		rest := strings.Join([]string{padRight(truncate(oneLine(e.Code), codeW), codeW), padRight(eventOrigin(e), originW),
			fmt.Sprintf("%s:%d", oneLine(e.Source.Path()), e.Source.Line)}, "  ")
		row := names + "  " + rest
		if !o.Wide {
			row = names + "  " + truncate(rest, max(width-ansi.StringWidth(names)-2, 16))
		}
		t.line(strings.TrimRight(row, " "))
	}
	return t.flush()
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
				pods(v, 1<<20), first, last, fmt.Sprint(f.Attach), fmt.Sprint(f.Detach), fmt.Sprint(f.Mount))
		}
		return tb.render(w)
	}
	if width >= 140 {
		tb := newTable(st, o, "VOLUME", "PV", "DRIVER", "NODES", "PODS", "FIRST", "LAST", "ATTACH✗", "DETACH✗", "MOUNT✗")
		for _, v := range vols {
			f := failures(v)
			first, last := seen(v)
			tb.Row(dash(name(v)), dash(v.PV), shorten(dash(v.Driver()), 24), nodeList(v.Nodes(), 24),
				pods(v, 24), first, last, fmt.Sprint(f.Attach), fmt.Sprint(f.Detach), fmt.Sprint(f.Mount))
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
		seenW = max(seenW, ansi.StringWidth(seenText(v)))
		volN = max(volN, ansi.StringWidth(dash(name(v))))
		drvN = max(drvN, ansi.StringWidth(dash(driverLabel(v.Driver()))))
		nodeN = max(nodeN, ansi.StringWidth(nodeList(v.Nodes(), width)))
		podN = max(podN, ansi.StringWidth(pods(v, width)))
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
			real = max(real, ansi.StringWidth(nodeList(v.Nodes(), nodeW)))
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
	if ansi.StringWidth(p) <= w {
		return p
	}
	if _, name, ok := strings.Cut(p, "/"); ok && ansi.StringWidth(name)+2 <= w {
		return "…/" + name
	}
	return shorten(p, w)
}

// driverLabel drops the "kubernetes.io/" prefix of in-tree plugin names
// ("aws-ebs", "cinder"); CSI driver names are shown as they are.
func driverLabel(d string) string {
	return strings.TrimPrefix(d, "kubernetes.io/")
}
