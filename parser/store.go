package parser

import (
	"time"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
)

// This file owns the event store of an input: events and their clock
// metadata kept in fixed pages while reading, the one array reserved from
// the density of the first quarter (flattenAll, in parse.go, then lays out
// the events of all inputs in one array), and its budget (Options.MaxEvents:
// the events past it are dropped, and said to be).

type evMeta struct {
	w       wall
	yoff    int
	hasWall bool
	abs     instant
	age     time.Duration
	hasAge  bool
}

type instant struct {
	sec  int64
	nsec int32
	set  bool // false for the zero time.Time
}

func instantOf(t time.Time) instant {
	if t.IsZero() {
		return instant{}
	}
	return instant{sec: t.Unix(), nsec: int32(t.Nanosecond()), set: true}
}

func (i instant) time() time.Time { return time.Unix(i.sec, int64(i.nsec)).UTC() }

const (
	eventPage      = 2048
	firstEventPage = 64
)

func (st *inputState) addEvent(ev *Event, m evMeta) {
	if st.maxEvents > 0 && st.added >= st.maxEvents {
		// over budget: only repeats of a run already folding are still
		// counted (they take no room); the rest are dropped
		if r := st.folds[volumeOf(ev)]; r == nil || r.into == nil || !st.fold(ev, m) {
			st.dropped++
		}
		return
	}
	if st.fold(ev, m) {
		return
	}
	st.added++
	if st.direct {
		if len(st.events) < cap(st.events) {
			st.events = append(st.events, *ev)
			st.metas = append(st.metas, m)
			st.stored(&st.events[len(st.events)-1], &st.metas[len(st.metas)-1], st.added-1)
			return
		}
		st.direct = false // more than estimated: the rest in pages
	}
	if k := len(st.pages); k == 0 || len(st.pages[k-1]) == cap(st.pages[k-1]) {
		if k > 0 && st.reserve() {
			st.added--
			st.addEvent(ev, m)
			return
		}
		n := eventPage
		if k < 6 {
			n = min(eventPage, firstEventPage<<k)
		}
		st.pages = append(st.pages, prefault.Make[Event](0, n))
		// metas hold no pointers: never scanned, Slice is enough
		st.mpages = append(st.mpages, prefault.Slice(make([]evMeta, 0, n)))
	}
	k := len(st.pages) - 1
	st.pages[k] = append(st.pages[k], *ev)
	st.mpages[k] = append(st.mpages[k], m)
	st.stored(&st.pages[k][len(st.pages[k])-1], &st.mpages[k][len(st.mpages[k])-1], st.added-1)
}

const reserveFrom = 4

func (st *inputState) reserve() bool {
	if st.reserved || st.sizeHint <= 0 || st.seen*reserveFrom < st.sizeHint || len(st.events) > 0 {
		return false
	}
	st.reserved = true
	st.unfold() // the events move
	n := 0
	for _, pg := range st.pages {
		n += len(pg)
	}
	est := int(int64(n) * st.sizeHint / st.seen)
	c := est + est/8 + eventPage
	if st.maxEvents > 0 {
		c = max(min(c, st.maxEvents), n)
	}
	evs, metas := prefault.Make[Event](0, c), prefault.Slice(make([]evMeta, 0, c))
	for k := range st.pages {
		evs, metas = append(evs, st.pages[k]...), append(metas, st.mpages[k]...)
	}
	st.events, st.metas, st.pages, st.mpages = evs, metas, nil, nil
	st.direct = true
	return true
}

// noteDropped says how many events the budget dropped, and marks the input
// read only in part.
func (st *inputState) noteDropped() {
	if st.dropped == 0 {
		return
	}
	st.in.Dropped, st.in.Truncated = st.dropped, true
	st.problem(0, "more than %d events after folding repeats (the event budget of one input): the first %d are kept, %d later ones dropped", st.maxEvents, st.maxEvents, st.dropped)
}
