package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// The HTML report's swimlane charts: geometry only. Every position is
// computed here for the whole chart, so the page reads without scripts and
// prints; the inline script (assets/report.js) only moves the same
// elements when a reader zooms, from the times in their data-a / data-b
// attributes (milliseconds since the epoch).

// Chart geometry, in SVG user units (the chart scales to the page width).
const (
	chartW     = 1000
	plotX0     = 196 // left edge of the plot: node labels sit left of it
	plotX1     = 988
	axisH      = 40 // the time axis above the lanes
	laneH      = 24
	nodeGap    = 6
	barH       = 14
	thinBarH   = 4  // detached / unmounted: the absence of a state
	minBarW    = 2  // a state that lasted an instant still shows
	maxTicks   = 7  // axis ticks per chart
	nodeLabelN = 24 // node name cut in the label column (whole in its title)
)

// tickSteps are the axis steps, in milliseconds, from which a chart picks
// the smallest that gives at most maxTicks ticks. The script reads the same
// list (chart data) when it redraws the axis.
var tickSteps = []int64{
	1, 2, 5, 10, 20, 50, 100, 200, 500,
	1e3, 2e3, 5e3, 10e3, 15e3, 30e3,
	60e3, 2 * 60e3, 5 * 60e3, 10 * 60e3, 15 * 60e3, 30 * 60e3,
	3600e3, 2 * 3600e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3,
	86400e3, 2 * 86400e3, 7 * 86400e3, 30 * 86400e3, 365 * 86400e3,
}

// htmlChart is one swimlane chart of a volume.
type htmlChart struct {
	ID       string // "c1": prefix of the chart's own element ids
	Caption  string
	Closeup  bool
	T0, T1   int64 // the time shown, ms since the epoch
	Off      int   // the display zone's offset at T0, minutes east of UTC (data-off; 0 is left out)
	F0, F1   int64 // how far the reader may zoom out (the volume's span)
	Race     []int64
	Height   int
	Lanes    []htmlLane
	Bars     []htmlBar
	Bands    []htmlBand
	Marks    []htmlMark
	Ticks    []htmlTick
	DayLabel string // "2024-08-12 UTC" (or the span of days)
}

type htmlLane struct {
	Y, Mid    int
	Node      string // whole name (its title)
	NodeShort string
	View      string // "controller" or "kubelet"
	First     bool   // the node's first lane: carries its name
	Stripe    bool   // alternate nodes are shaded
	Empty     string // what an empty lane means
}

type htmlBar struct {
	X, W  float64
	Y, H  int
	A, B  int64
	State string // the state's name; also its CSS class (st-…)
	Title string
}

type htmlBand struct {
	X, W  float64
	A, B  int64
	H     int
	Title string
	parts []string
}

type htmlMark struct {
	X     float64
	Y     int
	A     int64
	Href  string // "#ev-1-2-3": the evidence line it stands for
	Num   string // the finding's number in the incident
	Sev   string // critical, warning, info
	Title string
}

type htmlTick struct {
	X     float64
	A     int64
	Label string
	Title string
}

func msOf(t time.Time) int64 { return t.UnixMilli() }

// scale maps a time (ms) to x in the plot of the domain [t0, t1].
func scale(t, t0, t1 int64) float64 {
	return plotX0 + float64(t-t0)/float64(t1-t0)*(plotX1-plotX0)
}

// chartMark is an evidence line to mark on a chart.
type chartMark struct {
	ev     rules.Evidence
	href   string
	num    int
	sev    rules.Severity
	rule   string
	nodes  []string // the finding's nodes: the lane when the line is not an event of the volume
	closed bool
}

// volumeCharts draws a volume's lanes: one chart over its whole span and,
// when its overlap window is too short to read at that scale (seconds of
// race beside hours of retries), a close-up of the window.
func volumeCharts(id string, v *timeline.Volume, marks []chartMark, zones []zoneName, z displayZone) []htmlChart {
	start, end := volumeSpan(v)
	for _, m := range marks {
		if t := m.ev.Time; !t.IsZero() {
			if start.IsZero() || t.Before(start) {
				start = t
			}
			if t.After(end) {
				end = t
			}
		}
	}
	if start.IsZero() || len(volumeNodes(v)) == 0 {
		return nil // no time or no node to draw a lane for
	}
	f0, f1 := padDomain(msOf(start), msOf(end))
	var race []int64
	if r0, r1, ok := overlapWindow(v, end); ok {
		race = []int64{r0, r1}
	}
	all := buildChart(id+"a", v, marks, zones, z, f0, f1, msOf(end))
	all.F0, all.F1 = f0, f1
	all.Race = race
	all.Caption = "Whole span: " + z.spanText(start, end) + " (" + human(end.Sub(start)) + ")"
	charts := []htmlChart{all}
	if race != nil && float64(race[1]-race[0]) < 0.1*float64(f1-f0) {
		c0, c1 := padDomain(race[0], race[1])
		if pad := int64(3000); race[0]-c0 < pad {
			c0, c1 = race[0]-pad, race[1]+pad
		}
		c0, c1 = max(c0, f0), min(c1, f1)
		cu := buildChart(id+"b", v, marks, zones, z, c0, c1, msOf(end))
		cu.F0, cu.F1, cu.Race, cu.Closeup = f0, f1, race, true
		cu.Caption = fmt.Sprintf("Close-up of the %s on more than one node", human(time.Duration(race[1]-race[0])*time.Millisecond))
		charts = append(charts, cu)
	}
	return charts
}

// padDomain widens [a, b] by 3% each side, and an instant to a minute.
func padDomain(a, b int64) (int64, int64) {
	if b-a < 1000 {
		return a - 30e3, b + 30e3
	}
	p := (b - a) * 3 / 100
	return a - p, b + p
}

// overlapWindow is the union of the volume's overlaps, an open one ending
// at end.
func overlapWindow(v *timeline.Volume, end time.Time) (int64, int64, bool) {
	var a, b int64
	for i, ov := range v.Overlaps() {
		e := ov.End
		if e.IsZero() {
			e = end
		}
		if i == 0 || msOf(ov.Start) < a {
			a = msOf(ov.Start)
		}
		if i == 0 || msOf(e) > b {
			b = msOf(e)
		}
	}
	return a, b, len(v.Overlaps()) > 0
}

func buildChart(id string, v *timeline.Volume, marks []chartMark, zones []zoneName, z displayZone, t0, t1, end int64) htmlChart {
	c := htmlChart{ID: id, T0: t0, T1: t1}
	x := func(t int64) float64 { return scale(t, t0, t1) }
	kubeletLines := map[string]bool{}
	evAt := map[string]parser.Event{}
	for _, e := range v.Events {
		if e.Component == parser.ComponentKubelet {
			kubeletLines[e.Node] = true
		}
		evAt[fmt.Sprintf("%s:%d", e.Source.Path(), e.Source.Line)] = e
	}
	laneOf := map[string]int{} // node + "\x00" + view → lane index
	y := axisH
	for i, n := range volumeNodes(v) {
		for j, view := range []string{"controller", "kubelet"} {
			l := htmlLane{Y: y, Mid: y + laneH/2, Node: oneLine(n), NodeShort: cutMiddle(oneLine(n), nodeLabelN), View: view, First: j == 0, Stripe: i%2 == 1}
			ivs := v.Intervals
			if view == "kubelet" {
				ivs = v.Kubelet()
				l.Empty = "no kubelet log for this node"
				if kubeletLines[n] {
					l.Empty = "kubelet lines, no mount state"
				}
			} else {
				l.Empty = "no controller state"
			}
			for _, iv := range ivs {
				if iv.Node != n || iv.Start().IsZero() {
					continue
				}
				l.Empty = ""
				a, b := msOf(iv.Start()), end
				open := iv.End().IsZero()
				if !open {
					b = msOf(iv.End())
				}
				h := barH
				if iv.State == timeline.Detached || iv.State == timeline.Unmounted {
					h = thinBarH
				}
				until := "the end of the logs"
				if !open {
					until = clockMS(iv.End()) + " UTC (" + human(iv.End().Sub(iv.Start())) + ")"
				}
				c.Bars = append(c.Bars, htmlBar{
					X: x(a), W: max(x(b)-x(a), minBarW), Y: l.Mid - h/2, H: h, A: a, B: b,
					State: iv.State.String(),
					Title: fmt.Sprintf("%s on %s (%s view): %s → %s", iv.State, oneLine(n), view, clockMS(iv.Start()), until),
				})
			}
			laneOf[n+"\x00"+view] = len(c.Lanes)
			c.Lanes = append(c.Lanes, l)
			y += laneH
		}
		y += nodeGap
	}
	c.Height = y + 4
	// Overlaps that follow on from each other (a state changed on one
	// node) are one band; its title lists each stretch.
	for _, ov := range v.Overlaps() {
		a, b := msOf(ov.Start), end
		if !ov.End.IsZero() {
			b = msOf(ov.End)
		}
		var ns []string
		for _, n := range ov.Nodes {
			ns = append(ns, oneLine(n)+" "+ov.States[n].String())
		}
		part := fmt.Sprintf("%s → %s: %s", clockMS(ov.Start), clockMS(time.UnixMilli(b).UTC()), strings.Join(ns, ", "))
		if k := len(c.Bands) - 1; k >= 0 && a <= c.Bands[k].B {
			c.Bands[k].B = max(c.Bands[k].B, b)
			c.Bands[k].W = max(x(c.Bands[k].B)-c.Bands[k].X, minBarW)
			c.Bands[k].parts = append(c.Bands[k].parts, part)
			continue
		}
		c.Bands = append(c.Bands, htmlBand{X: x(a), W: max(x(b)-x(a), minBarW), A: a, B: b, H: y - axisH, parts: []string{part}})
	}
	for k := range c.Bands {
		bd := &c.Bands[k]
		bd.Title = fmt.Sprintf("On more than one node at once for %s:\n%s", human(time.Duration(bd.B-bd.A)*time.Millisecond), strings.Join(bd.parts, "\n"))
	}
	for _, m := range marks {
		if m.ev.Time.IsZero() {
			continue
		}
		lane := -1
		if e, ok := evAt[fmt.Sprintf("%s:%d", m.ev.Path, m.ev.Line)]; ok {
			view := "controller"
			if e.Component == parser.ComponentKubelet {
				view = "kubelet"
			}
			if i, ok := laneOf[e.Node+"\x00"+view]; ok {
				lane = i
			}
		}
		for _, n := range m.nodes {
			if i, ok := laneOf[n+"\x00controller"]; ok && lane < 0 {
				lane = i
			}
		}
		if lane < 0 {
			if len(c.Lanes) == 0 {
				continue
			}
			lane = 0
		}
		a := msOf(m.ev.Time)
		title := fmt.Sprintf("%d · %s at %s UTC · %s", m.num, m.rule, clockMS(m.ev.Time), evidenceLoc(m.ev))
		if m.ev.Note != "" {
			title += ": " + oneLine(m.ev.Note)
		}
		c.Marks = append(c.Marks, htmlMark{X: x(a), Y: c.Lanes[lane].Mid, A: a, Href: m.href, Num: fmt.Sprint(m.num),
			Sev: m.sev.String(), Title: title})
	}
	c.Ticks, c.DayLabel = axisTicks(t0, t1, zones, z)
	c.Off = int(z.offsetMS(t0) / 60e3)
	return c
}

// axisTicks are the axis ticks of [t0, t1] in the display zone z (on
// its whole steps: hours, days), each titled with the time in UTC and in
// the logs' own zones, and the day(s) shown, named with the zone.
func axisTicks(t0, t1 int64, zones []zoneName, z displayZone) ([]htmlTick, string) {
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if (t1-t0)/s <= maxTicks {
			step = s
			break
		}
	}
	a, b := z.in(time.UnixMilli(t0)), z.in(time.UnixMilli(t1))
	layout := "15:04:05"
	switch {
	case step < 1000:
		layout = "15:04:05.000"
	case step >= 60e3 && step < 86400e3:
		layout = "15:04"
	case step >= 86400e3:
		layout = "Jan 2"
	}
	if !z.sameDay(a, b) && step < 86400e3 {
		layout = "Jan 2 " + layout
	}
	off := z.offsetMS(t0) // ticks on the zone's whole steps (its offset where the chart starts)
	var ticks []htmlTick
	for t := ((t0+off)/step+1)*step - off; t < t1; t += step {
		if t0 < 0 {
			break
		}
		tm := time.UnixMilli(t).UTC()
		title := tm.Format("2006-01-02 15:04:05.000") + " UTC"
		for _, lz := range zones {
			title += " · " + tm.In(lz.loc).Format("15:04:05") + " " + lz.name
		}
		ticks = append(ticks, htmlTick{X: scale(t, t0, t1), A: t, Label: z.in(tm).Format(layout), Title: title})
	}
	day := a.Format("2006-01-02") + " " + z.name()
	if !z.sameDay(a, b) {
		day = a.Format("2006-01-02") + " → " + b.Format("2006-01-02") + " " + z.name()
	}
	return ticks, day
}

// zoneName is a zone the logs were written in, for the axis titles.
type zoneName struct {
	name string // "+08:00 (kcm.log)"
	loc  *time.Location
	Off  int    `json:"off"` // minutes east of UTC, for the script
	Name string `json:"name"`
}

// logZones are the distinct non-UTC zones of the inputs.
func logZones(tl *timeline.Timeline) []zoneName {
	if tl == nil {
		return nil
	}
	var out []zoneName
	seen := map[string]bool{}
	for _, in := range tl.Inputs {
		z := in.Zone
		if z == "" || seen[z] {
			continue
		}
		t, err := time.Parse("-07:00", z)
		if err != nil {
			continue
		}
		_, off := t.Zone()
		if off == 0 {
			continue
		}
		seen[z] = true
		name := oneLine(z) + " (log zone)"
		out = append(out, zoneName{name: name, loc: time.FixedZone(z, off), Off: off / 60, Name: name})
	}
	return out
}

// clockMS is "03:45:13.120" (the date too when it is not the 1st line's day: callers say it).
func clockMS(t time.Time) string { return utc.clockMS(t) }

// cutMiddle shortens s to n runes with an ellipsis in its middle.
func cutMiddle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	h := (n - 1) / 2
	return string(r[:h]) + "…" + string(r[len(r)-(n-1-h):])
}
