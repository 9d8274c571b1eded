package timeline

import (
	"slices"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Window is a span of time events are kept within (--since/--until); a
// zero bound leaves that side open.
type Window struct {
	Since, Until time.Time
}

// Contains reports whether t lies within w, bounds included. An event
// without a time (an unanchored describe row) is in every window.
func (w Window) Contains(t time.Time) bool {
	if t.IsZero() {
		return true
	}
	return (w.Since.IsZero() || !t.Before(w.Since)) && (w.Until.IsZero() || !t.After(w.Until))
}

// Filter drops from every result the events outside w, in place, before
// Build. A window open on both sides changes nothing.
func (w Window) Filter(results []parser.Result) {
	if w.Since.IsZero() && w.Until.IsZero() {
		return
	}
	for i := range results {
		results[i].Events = slices.DeleteFunc(results[i].Events, func(ev parser.Event) bool { return !w.Contains(ev.Time.UTC()) })
	}
}

// Newest is the latest last-line time among the results' inputs (zero when
// none has one): the "now" a window given as a duration counts back from.
func Newest(results []parser.Result) time.Time {
	var newest time.Time
	for _, r := range results {
		if r.Input.Last.After(newest) {
			newest = r.Input.Last
		}
	}
	return newest
}
