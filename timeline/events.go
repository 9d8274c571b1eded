package timeline

import (
	"cmp"
	"slices"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Events returns the events of vols and, when other is set, the events
// tied to no volume (Other), as one list in time order: by time (events
// without one first), then input, then line; events on one line keep
// their order. The list is new; the events are copies.
func (t *Timeline) Events(vols []*Volume, other bool) []parser.Event {
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
