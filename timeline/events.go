package timeline

import (
	"cmp"
	"math"
	"slices"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
)

// Events returns the events of vols and, when other is set, the events
// tied to no volume (Other), as one list in time order: by time (events
// without one first), then input, then line; events on one line keep
// their order. The list is new; the events are copies.
func (t *Timeline) Events(vols []*Volume, other bool) []parser.Event {
	return t.EventsWhere(vols, other, nil)
}

// EventsWhere is Events with only the events keep accepts (nil: every
// event): a kind filter over a large cluster's events copies and orders
// the few it keeps, not all of them.
//
// The events are ordered by their keys (eventOrder) and copied once, into
// an array of the kept count: appending every volume's events and sorting
// the copies stably moved each 80-byte event many times (1 GiB of churn,
// 105k events: ~125 ms of the events command, and the collector's cycles
// that the growing copies set off).
func (t *Timeline) EventsWhere(vols []*Volume, other bool, keep func(*parser.Event) bool) []parser.Event {
	var keys []eventOrder
	add := func(evs []parser.Event) {
		for i := range evs {
			if ev := &evs[i]; keep == nil || keep(ev) {
				keys = append(keys, orderOf(ev, len(keys)))
			}
		}
	}
	if keep == nil { // every event: room for them all
		n := 0
		if other {
			n = len(t.Other)
		}
		for _, v := range vols {
			n += len(v.Events)
		}
		keys = make([]eventOrder, 0, n)
	}
	for _, v := range vols {
		add(v.Events)
	}
	if other {
		add(t.Other)
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortFunc(keys, compareOrder)
	out := prefault.Make[parser.Event](len(keys), len(keys)) // (see internal/prefault)
	for i := range keys {
		out[i] = *keys[i].ev
	}
	return out
}

// eventOrder is an event's place in Events' order: its time (math.MinInt64
// for none, which no Stamp holds), input and line, then pos, its place in
// the list gathered (what a stable sort keeps for equal keys).
type eventOrder struct {
	ns          int64
	input, line int32
	pos         int32
	ev          *parser.Event
}

// orderOf is the eventOrder of ev, gathered at pos.
func orderOf(ev *parser.Event, pos int) eventOrder {
	o := eventOrder{ns: math.MinInt64, input: int32(ev.Source.Input), line: ev.Source.Line, pos: int32(pos), ev: ev}
	if !ev.Time.IsZero() {
		o.ns = ev.Time.UnixNano()
	}
	return o
}

func compareOrder(a, b eventOrder) int {
	return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.input, b.input), cmp.Compare(a.line, b.line), cmp.Compare(a.pos, b.pos))
}
