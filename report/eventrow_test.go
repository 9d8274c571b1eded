package report

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/parser"
)

// eventRowJoined is the events table's row as it was first written, from
// joined strings: the specification appendEventRow is held to.
func eventRowJoined(e *parser.Event, z displayZone, c eventColumns, width int, wide bool) string {
	tm := ageText(*e)
	if !e.Time.IsZero() {
		tm = z.in(e.Time.UTC()).Format("2006-01-02T15:04:05.000Z07:00")
	}
	if e.Relative {
		tm += "~"
	}
	kind := e.Kind.String()
	if e.Count > 1 {
		kind += fmt.Sprintf(" ×%d", e.Count)
	}
	names := strings.Join([]string{padRight(tm, c.time), padRight(kind, c.kind), padRight(shorten(oneLine(e.Node), 20), c.node),
		padRight(eventVolume(*e), c.vol)}, "  ")
	rest := strings.Join([]string{padRight(truncate(oneLine(e.Code), c.code), c.code), padRight(eventOrigin(*e), c.origin),
		fmt.Sprintf("%s:%d", oneLine(e.Source.Path()), e.Source.Line)}, "  ")
	row := names + "  " + rest
	if !wide {
		row = names + "  " + truncate(rest, max(width-displayWidth(names)-2, 16))
	}
	return strings.TrimRight(row, " ")
}

// TestEventRowMatchesJoined: appendEventRow writes what joining the cells'
// strings wrote, for every event of the real logs and incidents and for
// hostile ones (escapes, wide runes, long names, counts, describe ages,
// relative times), at several widths, wide or not, in UTC and another
// zone.
func TestEventRowMatchesJoined(t *testing.T) {
	results := fixtureResults()
	var evs []parser.Event
	for _, r := range results {
		evs = append(evs, r.Events...)
	}
	if len(evs) < 500 {
		t.Fatalf("%d events in the fixtures", len(evs))
	}
	t0 := time.Date(2024, 8, 12, 3, 4, 5, 6e6, time.UTC)
	for i, d := range []parser.Draft{
		{Kind: parser.AttachFailed, Node: "node-\x1b[31mred\x1b[0m", PV: "pvc-卷-数据", Code: "ZoneNotMatch\twith a tab", Count: 24},
		{Kind: parser.MountDeviceFailed, Node: strings.Repeat("n", 300), Volume: strings.Repeat("v", 200), Code: strings.Repeat("c", 40), Relative: true, Age: 3 * time.Hour},
		{Kind: parser.AttachSucceeded, Attachment: "csi-" + strings.Repeat("ab", 32), Count: 1234567},
		{Kind: parser.Unknown, Node: "ノード\n二行", Handle: "disk-🙂", Code: "é"},
	} {
		if i%2 == 0 {
			d.Time = parser.StampOf(t0.Add(time.Duration(i) * time.Minute))
		}
		d.Source = parser.Source{Line: int32(i + 1)}
		evs = append(evs, d.Event())
	}
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	c := eventColumnWidths(evs)
	rows := 0
	for _, z := range []displayZone{{}, {loc: shanghai}} {
		c.time = len("2006-01-02T15:04:05.000Z")
		if !z.isUTC() {
			c.time += len("+08:00") - 1
		}
		for _, width := range []int{MinWidth, 100, eventsDefaultWidth, 400} {
			for _, wide := range []bool{false, true} {
				var dst, rest []byte
				for i := range evs {
					want := eventRowJoined(&evs[i], z, c, width, wide)
					var got []byte
					got, rest = appendEventRow(dst[:0], rest, &evs[i], z, c, width, wide)
					if string(got) != want {
						t.Fatalf("event %d (%s), zone %s, width %d, wide %v:\n got %q\nwant %q", i, evs[i].Kind, z.name(), width, wide, got, want)
					}
					dst = got
					rows++
				}
			}
		}
	}
	t.Logf("%d rows", rows)
}

// FuzzTruncate: truncate's cut of printable ASCII, and appendTruncated's,
// is ansi.Truncate's.
func FuzzTruncate(f *testing.F) {
	for _, s := range []string{"", "a", "abc", "attach-failed  ZoneNotMatch  log  kcm.log:12", strings.Repeat("x", 300), "é", "a\x1b[1mb",
		"Code  event→:1234  kcm.log:12", "a→b…c×d·e", "→→→→→→", "x→\u0301y", "→\u200dx"} {
		for _, max := range []int{0, 1, 2, 3, 12} {
			f.Add(s, max)
		}
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		want := truncateANSI(s, max)
		if got := truncate(s, max); got != want {
			t.Fatalf("truncate(%q, %d) = %q, ansi.Truncate gives %q", s, max, got, want)
		}
		if got := appendTruncated([]byte("x"), s, max); string(got) != "x"+want {
			t.Fatalf("appendTruncated(%q, %d) = %q, ansi.Truncate gives %q", s, max, got[1:], want)
		}
	})
}

// truncateANSI is truncate as ansi.Truncate alone does it.
func truncateANSI(s string, max int) string {
	if max < 1 {
		return ""
	}
	if displayWidth(s) <= max {
		return s
	}
	return ansi.Truncate(s, max, "…")
}
