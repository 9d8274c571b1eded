package rules

import (
	"slices"
	"testing"
	"time"
)

func TestSettle(t *testing.T) {
	at := time.Date(2024, 8, 12, 3, 45, 13, 120e6, time.FixedZone("+08:00", 8*3600))
	later := at.Add(90 * time.Minute)
	c := func(t time.Time) TimeMark { return TimeMark{At: t.Truncate(time.Second).UTC(), Layout: ClockLayout} }
	r := func(t time.Time) TimeMark { return TimeMark{At: t.Truncate(time.Second).UTC(), Layout: time.RFC3339} }
	for name, tc := range map[string]struct {
		in    string
		want  string
		marks []TimeMark
	}{
		"plain":      {"no times here", "no times here", nil},
		"clock":      {"attached at " + clock(at) + ".", "attached at 19:45:13.", []TimeMark{c(at)}},
		"rfc3339":    {"since " + instant(at), "since 2024-08-11T19:45:13Z", []TimeMark{r(at)}},
		"two, once":  {clock(at) + " then " + clock(later) + ", again " + clock(at), "19:45:13 then 21:15:13, again 19:45:13", []TimeMark{c(at), c(later)}},
		"both forms": {clock(at) + " " + instant(at), "19:45:13 2024-08-11T19:45:13Z", []TimeMark{c(at), r(at)}},
		"unknown":    {"at " + clock(time.Time{}), "at time unknown", nil},
		// a stray noncharacter from a log line is kept, and the marks after it still settle
		"stray open":   {markOpen + "x " + clock(at), markOpen + "x 19:45:13", []TimeMark{c(at)}},
		"bad code":     {markOpen + "q12" + markClose, markOpen + "q12" + markClose, nil},
		"bad number":   {markOpen + "c1x2" + markClose + "!", markOpen + "c1x2" + markClose + "!", nil},
		"unclosed":     {markOpen + "c12", markOpen + "c12", nil},
		"empty number": {markOpen + "c" + markClose, markOpen + "c" + markClose, nil},
	} {
		t.Run(name, func(t *testing.T) {
			var got []TimeMark
			if s := settle(tc.in, &got); s != tc.want {
				t.Errorf("settle(%q) = %q, want %q", tc.in, s, tc.want)
			}
			if !slices.EqualFunc(got, tc.marks, func(a, b TimeMark) bool { return a.At.Equal(b.At) && a.Layout == b.Layout }) {
				t.Errorf("marks %v, want %v", got, tc.marks)
			}
		})
	}
}

// TestSettleCopiesSharedLists: two findings sharing one list of steps
// both record the time in it, and the list itself keeps its marks.
func TestSettleCopiesSharedLists(t *testing.T) {
	at := time.Date(2024, 8, 12, 3, 45, 13, 0, time.UTC)
	steps := []Step{{Phase: Confirm, Text: "Check the node around " + clock(at) + "."}}
	a, b := Finding{Steps: steps}, Finding{Steps: steps}
	a.settle()
	b.settle()
	for _, f := range []Finding{a, b} {
		if f.Steps[0].Text != "Check the node around 03:45:13." || len(f.Times) != 1 {
			t.Errorf("settled step %q, times %v", f.Steps[0].Text, f.Times)
		}
	}
	if steps[0].Text == a.Steps[0].Text {
		t.Error("the shared list was settled in place")
	}
}
