package report

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// writeEventRowsJoined is writeEventRows as it was, its rows joined from
// strings (their layout shared, layEventRows): the specification
// TestEventRowsMatchJoined holds the appended rows to.
func writeEventRowsJoined(t *textWriter, st *styles, evs []parser.Event, withPod bool, width int) {
	l, ok := layEventRows(t, evs, width)
	if !ok {
		return
	}
	l.header(t, st)
	for i, r := range l.rows {
		tm := r.when(t.displayZone, false)
		if !r.Time.IsZero() {
			if l.withDate {
				tm = t.in(r.Time).Format("01-02 15:04:05.000")
			} else {
				tm = t.in(r.Time).Format("15:04:05.000")
			}
		}
		node := r.Node
		if node == "" {
			node = "-"
		}
		what := wrap(r.what(withPod), l.whatW)
		t.line("  ", padRight(tm, l.timeW), "  ", l.relCol(rel(r.Time, l.base)),
			padRight(shorten(oneLine(node), 16), l.nodeW), "  ",
			padRight(what[0], l.whatW), "  ", st.Dim(shorten(l.locs[i], l.locW)))
		for _, m := range what[1:] {
			t.line(strings.Repeat(" ", 2+l.timeW+2+len(l.relCol(""))+l.nodeW+2), m)
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
