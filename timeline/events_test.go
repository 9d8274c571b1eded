package timeline

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
)

// eventsStable is Events as it was first written, the specification of its
// order: every event appended, then sorted stably by time (none first),
// input and line.
func eventsStable(t *Timeline, vols []*Volume, other bool) []parser.Event {
	var evs []parser.Event
	for _, v := range vols {
		evs = append(evs, v.Events...)
	}
	if other {
		evs = append(evs, t.Other...)
	}
	slices.SortStableFunc(evs, func(a, b parser.Event) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Source.Input, b.Source.Input), cmp.Compare(a.Source.Line, b.Source.Line))
	})
	return evs
}

// sameEvents reports whether a and b hold the same events in the same
// order (field by field: names, text, source, time).
func sameEvents(a, b []parser.Event) bool {
	return slices.EqualFunc(a, b, func(x, y parser.Event) bool {
		return x.Time == y.Time && x.Source == y.Source && x.Kind == y.Kind && x.Text.String() == y.Text.String() &&
			*x.Ident == *y.Ident && *x.Place == *y.Place && *x.Cause == *y.Cause && *x.Repeat == *y.Repeat
	})
}

// TestEventsOrder: Events and EventsWhere order the events as the stable
// sort of every event did, on every incident and real log (describe rows
// without a time, several inputs, events of one line), for every volume,
// a few, Other or not, and with a kind filter.
func TestEventsOrder(t *testing.T) {
	var runs [][]string
	incidents, _ := filepath.Glob("../testdata/incidents/*")
	for _, dir := range incidents {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		runs = append(runs, slices.DeleteFunc(files, func(f string) bool { return filepath.Ext(f) == ".md" }))
	}
	logs, _ := filepath.Glob("../testdata/real-logs/*.log")
	runs = append(runs, logs)
	zeroTimes, ties := 0, 0
	for _, paths := range runs {
		res, errs := parser.ParseAll(paths, parser.Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		tl := Build(res, Options{})
		every := eventsStable(tl, tl.Volumes, true)
		for i, ev := range every {
			if ev.Time.IsZero() {
				zeroTimes++
			}
			if i > 0 && ev.Time == every[i-1].Time && ev.Source == every[i-1].Source {
				ties++
			}
		}
		failed := func(ev *parser.Event) bool { return strings.HasSuffix(ev.Kind.String(), "-failed") }
		for _, tc := range []struct {
			name  string
			vols  []*Volume
			other bool
		}{
			{"all", tl.Volumes, true},
			{"volumes", tl.Volumes, false},
			{"every other volume", everyOther(tl.Volumes), false},
			{"other", nil, true},
		} {
			want := eventsStable(tl, tc.vols, tc.other)
			if got := tl.Events(tc.vols, tc.other); !sameEvents(got, want) {
				t.Errorf("%s, %s: %d events not in the stable order of %d", paths[0], tc.name, len(got), len(want))
			}
			wantFailed := slices.DeleteFunc(slices.Clone(want), func(ev parser.Event) bool { return !failed(&ev) })
			if got := tl.EventsWhere(tc.vols, tc.other, failed); !sameEvents(got, wantFailed) {
				t.Errorf("%s, %s: %d failures, want %d in the stable order", paths[0], tc.name, len(got), len(wantFailed))
			}
		}
	}
	if zeroTimes == 0 || ties == 0 {
		t.Fatalf("the fixtures have %d events without a time and %d of one line: the order's edges are not tried", zeroTimes, ties)
	}
}

func everyOther(vols []*Volume) []*Volume {
	var out []*Volume
	for i := 0; i < len(vols); i += 2 {
		out = append(out, vols[i])
	}
	return out
}
