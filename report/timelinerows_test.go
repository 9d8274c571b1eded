package report

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// writeEventRowsJoined is writeEventRows as it was, its rows joined from
// strings: the specification TestEventRowsMatchJoined holds the appended
// rows to.
func writeEventRowsJoined(t *textWriter, st *styles, evs []parser.Event, withPod bool, width int) {
	rows := collapse(evs)
	if len(rows) == 0 {
		return
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
	relCol := func(s string) string {
		if !showRel {
			return ""
		}
		return padRight(s, relW) + "  "
	}
	t.line()
	t.line("  ", st.Dim(padRight("TIME ("+t.name()+")", timeW)+"  "+relCol("REL")+padRight("NODE", nodeW)+"  "+padRight("EVENT", whatW)+"  SOURCE"))
	for i, r := range rows {
		tm := r.when(t.displayZone, false)
		if !r.Time.IsZero() {
			if withDate {
				tm = t.in(r.Time).Format("01-02 15:04:05.000")
			} else {
				tm = t.in(r.Time).Format("15:04:05.000")
			}
		}
		node := r.Node
		if node == "" {
			node = "-"
		}
		what := wrap(r.what(withPod), whatW)
		t.line("  ", padRight(tm, timeW), "  ", relCol(rel(r.Time, base)),
			padRight(shorten(oneLine(node), 16), nodeW), "  ",
			padRight(what[0], whatW), "  ", st.Dim(shorten(locs[i], locW)))
		for _, l := range what[1:] {
			t.line(strings.Repeat(" ", 2+timeW+2+len(relCol(""))+nodeW+2), l)
		}
	}
}

// TestEventRowsMatchJoined: the timeline's event rows appended in place
// are the rows joined from strings, for every volume of the real logs and
// incidents and for hostile events, at several widths, with and without
// pods and colour, in UTC and another zone.
func TestEventRowsMatchJoined(t *testing.T) {
	results := fixtureResults()
	vols := timeline.Build(results, timeline.Options{}).Volumes
	hostile := &timeline.Volume{UniqueName: "h", Events: hostileEvents()}
	vols = append(vols, hostile)
	var rows int
	for _, v := range vols {
		rows += len(v.Events)
	}
	if rows < 500 {
		t.Fatalf("%d events", rows)
	}
	zones := []*time.Location{nil, time.FixedZone("X", -(3*3600 + 1800))}
	for _, color := range []bool{false, true} {
		st := newStyles(&bytes.Buffer{}, Options{Color: color})
		for _, z := range zones {
			for _, width := range []int{60, 80, 132, 250} {
				for _, withPod := range []bool{false, true} {
					for i, v := range vols {
						var got, want bytes.Buffer
						gw := &textWriter{w: bufio.NewWriter(&got), displayZone: displayZone{loc: z}}
						ww := &textWriter{w: bufio.NewWriter(&want), displayZone: displayZone{loc: z}}
						writeEventRows(gw, st, v.Events, withPod, width)
						writeEventRowsJoined(ww, st, v.Events, withPod, width)
						gw.flush()
						ww.flush()
						if !bytes.Equal(got.Bytes(), want.Bytes()) {
							gl, wl := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
							for k := range min(len(gl), len(wl)) {
								if gl[k] != wl[k] {
									t.Fatalf("volume %d, width %d, pod %v, zone %v, color %v, line %d:\n got %q\nwant %q", i, width, withPod, z, color, k, gl[k], wl[k])
								}
							}
							t.Fatalf("volume %d: %d lines, want %d", i, len(gl), len(wl))
						}
					}
				}
			}
		}
	}
}
