package parser

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

// This file owns the event store of an input: events and their clock
// metadata kept in fixed pages while reading, the one array reserved from
// the density of the first quarter (flattenAll, in parse.go, then lays out
// the events of all inputs in one array), and the budget (Options.MaxEvents:
// the events past it are dropped, and said to be). The budget is the run's:
// each input stops storing at it while it is read — at once when the
// inputs before it hold it already (runShare) — then runBudget gives it
// out in input order, so that what is kept does not depend on which input
// finished first.

// evMeta keeps what is needed to date an event once the year and zone
// are known. An input keeps one per event while it is read, so it is kept
// small: 40 bytes (with a wall and an instant of their own it took 96, more
// than the event: 1 GiB of a large cluster's churn, 11 MB at the parse's
// end), and pointer-free (see instant).
type evMeta struct {
	absSec  int64         // the absolute instant (hasAbs): Unix seconds
	age     time.Duration // a describe row's age (hasAge)
	absNsec int32         // and nanoseconds
	yoff    int32         // the wall clock's year offset (hasWall)
	w       clockReading  // the wall clock (hasWall)
	hasWall bool
	hasAbs  bool
	hasAge  bool
}

// clockReading is a wall in 12 bytes. The fields of a wall clock are two
// digits (their times' fields for wrappers' clocks), kept as they are; one
// past a byte (none is) would be kept as 255, which is no valid field.
type clockReading struct {
	nsec                     uint32
	mon, day, hour, min, sec uint8
}

func readingOf(w wall) clockReading {
	b := func(v int) uint8 { return uint8(min(max(v, 0), 255)) }
	return clockReading{uint32(min(max(w.nsec, 0), math.MaxInt32)), b(w.mon), b(w.day), b(w.hour), b(w.min), b(w.sec)}
}

func (c clockReading) wall() wall {
	return wall{mon: int(c.mon), day: int(c.day), hour: int(c.hour), min: int(c.min), sec: int(c.sec), nsec: int(c.nsec)}
}

// setWall gives m the wall clock w, of year offset yoff.
func (m *evMeta) setWall(w wall, yoff int) {
	m.w, m.yoff, m.hasWall = readingOf(w), int32(yoff), true
}

// setAbs gives m the absolute instant t (none when t is zero).
func (m *evMeta) setAbs(t time.Time) {
	i := instantOf(t)
	m.absSec, m.absNsec, m.hasAbs = i.sec, i.nsec, i.set
}

// abs is m's absolute instant.
func (m *evMeta) abs() instant { return instant{sec: m.absSec, nsec: m.absNsec, set: m.hasAbs} }

// absMeta is the metadata of an event of absolute time t.
func absMeta(t time.Time) (m evMeta) {
	m.setAbs(t)
	return m
}

// instant is an absolute time without a *time.Location, so that evMeta
// holds no pointers: the metadata pages are then copied (flattenAll) and
// kept without write barriers and without the garbage collector scanning
// them. Only the instant matters: events are dated in UTC.
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

// time is the instant in UTC.
func (i instant) time() time.Time { return time.Unix(i.sec, int64(i.nsec)).UTC() }

// eventPage is how many events a page of inputState.pages holds at most.
// The first page holds firstEventPage and each next one twice as many, so
// that a small input does not fill in (prefault) 2048 events' worth of
// memory for a handful.
const (
	eventPage      = 2048
	firstEventPage = 64
)

// addEvent appends an event being read (and its metadata). Pages are
// filled and never grown, so a large input's events are not copied again
// and again (nor rescanned by the garbage collector at each copy) while it
// is read.
func (st *inputState) addEvent(d *Draft, m evMeta, text string) { st.addPrepared(d, m, text, nil) }

// addPrepared is addEvent for a draft and text prepared on a decode-ahead
// worker (p: prepareOwn(d, text); nil when not).
func (st *inputState) addPrepared(d *Draft, m evMeta, text string, p *ownPrep) {
	if st.added%spentCheck == 0 && !st.spent && st.run.spentBefore(st.runIndex) {
		st.spend()
	}
	if st.spent {
		st.dropped++
		return
	}
	var e Event
	if p != nil {
		e = st.ownPrepared(d, text, p)
	} else {
		e = st.own(d, text)
	}
	ev := &e
	if st.maxEvents > 0 && st.added >= st.maxEvents {
		// over budget: only repeats of a run already folding are still
		// counted (they take no room); the rest are dropped
		if !st.foldRepeat(ev, m, text) {
			st.dropped++
		}
		return
	}
	if st.fold(ev, m, text) {
		return
	}
	ev.Text = st.keepText(text)
	st.store(ev, m)
}

// keepText keeps an event's text: a reference to the input's bytes when
// it is a run of them (st.origin), else in the input's blocks.
func (st *inputState) keepText(text string) textstore.Text {
	if st.origin != nil {
		if off, ok := st.fileOffset(text); ok {
			return st.origin.Ref(off, text)
		}
	}
	return st.texts.AddString(text)
}

// The shared empty tuples (classifier's).
var (
	noIdent = classifier.NewIdent(Ident{})
	noPlace = classifier.NewPlace(Place{})
	noCause = classifier.NewCause(Cause{})
)

// own makes the Event of a draft being added, with memory of its own:
// its tuples of names interned per input (st.idents, st.places,
// st.causes: the events that name the same volume, node and pod, or
// error share one), and the names of a new tuple interned (st.names),
// each distinct one copied once — the parser cuts them out of the
// entry's bytes, which it reuses, and the event's text is kept
// compressed, so they cannot be windows of either. The code, a constant
// unless cut from the entry, is interned too: every string of a new tuple
// is then a name of st.names, which is what tuples made off the
// collector's heap may point to (textstore.Tuples). It also answers what
// the timeline asks of every text (RWXKey) while the text is at hand.
func (st *inputState) own(d *Draft, text string) Event {
	p := prepareOwn(d, text)
	return st.ownPrepared(d, text, &p)
}

// ownPrep is what own computes of a draft and its text without the
// input's tables: the hashes of its names and tuples, and RWXKey. The
// decode-ahead workers compute it (prepareOwn) for the events they
// decode, so that the one goroutine that files an input's events
// (ownPrepared) hashes no name.
type ownPrep struct {
	ident, place, cause uint64    // the tuples' hashes (textstore.HashNames)
	idn                 [3]uint64 // Volume, PV, Handle (textstore.Hash)
	pln                 [3]uint64 // Node, Pod, PodUID
	can                 [5]uint64 // Error, Code, Detail, Reason, Attachment
	rwx                 bool      // HasRWXKey(text)
}

func prepareOwn(d *Draft, text string) (p ownPrep) {
	h := textstore.Hash
	p.idn = [3]uint64{h(d.Volume), h(d.PV), h(d.Handle)}
	p.ident = textstore.HashNames(d.Volume, d.PV, d.Handle, "", [4]uint64{p.idn[0], p.idn[1], p.idn[2]})
	p.pln = [3]uint64{h(d.Node), h(d.Pod), h(d.PodUID)}
	p.place = textstore.HashNames(d.Node, d.Pod, d.PodUID, "", [4]uint64{p.pln[0], p.pln[1], p.pln[2]})
	p.can = [5]uint64{h(d.Error), h(d.Code), h(d.Detail), h(d.Reason), h(d.Attachment)}
	p.cause = textstore.HashNames(d.Error, d.Code, d.Detail, d.Reason, [4]uint64(p.can[:4]))
	if d.Attachment != "" {
		p.cause ^= textstore.HashNames(d.Attachment, "", "", "", [4]uint64{p.can[4]})
	}
	p.rwx = HasRWXKey(text)
	return p
}

// ownPrepared is own for a draft and text prepared (p: prepareOwn(d,
// text)).
func (st *inputState) ownPrepared(d *Draft, text string, p *ownPrep) Event {
	n := &st.names
	id := d.Ident()
	ip := noIdent
	if id != (Ident{}) {
		ip = st.idents.Intern(id, p.ident, func(t *Ident) {
			t.Volume = n.InternHash(t.Volume, p.idn[0])
			t.PV = n.InternHash(t.PV, p.idn[1])
			t.Handle = handleOf(t.Volume, t.Handle, n, p.idn[2])
		})
	}
	pl := d.Place()
	pp := noPlace
	if pl != (Place{}) {
		pp = st.places.Intern(pl, p.place, func(t *Place) {
			t.Node = n.InternHash(t.Node, p.pln[0])
			t.Pod = n.InternHash(t.Pod, p.pln[1])
			t.PodUID = n.InternHash(t.PodUID, p.pln[2])
		})
	}
	ca := d.Cause()
	cp := noCause
	if ca != (Cause{}) {
		cp = st.causes.Intern(ca, p.cause, func(t *Cause) {
			t.Error = n.InternHash(t.Error, p.can[0])
			t.Detail = n.InternHash(t.Detail, p.can[2])
			t.Reason = n.InternHash(t.Reason, p.can[3])
			t.Attachment = n.InternHash(t.Attachment, p.can[4])
			t.Code = n.InternHash(t.Code, p.can[1])
		})
	}
	if d.Retry != nil {
		// the deadline's text was read for the year and zone when the
		// entry was decoded (parseRetryUntil: evidence), and nothing
		// reads it after; each retry line's is a text of its own (1 GiB
		// of the generated retry storm: 34,660), which interning would
		// copy for good
		d.Retry.Until = ""
	}
	d.RWXKey = p.rwx
	return d.With(ip, pp, cp)
}

// handleOf is handle interned: the end of volume (interned) when volume
// ends with it, as a CSI UniqueName (kubernetes.io/csi/<driver>^<handle>)
// ends with the handle the classifier cut from it, so that a volume's
// handle costs no bytes of its own (a GCE disk's is ~80); else a name of
// n (h its hash).
func handleOf(volume, handle string, n *textstore.Names, h uint64) string {
	if handle != "" && strings.HasSuffix(volume, handle) {
		return volume[len(volume)-len(handle):]
	}
	return n.InternHash(handle, h)
}

// offsetIn is the offset of s within the n bytes from p, when s is a
// non-empty run of them.
func offsetIn(s string, p *byte, n int) (int, bool) {
	if s == "" || n == 0 {
		return 0, false
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(p))
	return int(off), off < uintptr(n) && off+uintptr(len(s)) <= uintptr(n)
}

// endTexts seals the input's last block of texts and lets the builder's
// buffers and the table of names go: no event is added after it.
func (st *inputState) endTexts() {
	st.texts.Seal()
	st.texts, st.names = textstore.Builder{}, textstore.Names{}
	st.idents, st.places, st.causes = textstore.Tuples[Ident]{}, textstore.Tuples[Place]{}, textstore.Tuples[Cause]{}
}

// store appends an event that is kept as it is.
func (st *inputState) store(ev *Event, m evMeta) {
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
			st.store(ev, m)
			return
		}
		n := min(eventPage, st.firstPage()<<min(k, 16))
		st.pages = append(st.pages, prefault.Make[Event](0, n))
		// metas hold no pointers: never scanned, Slice is enough
		st.mpages = append(st.mpages, prefault.Slice(make([]evMeta, 0, n)))
	}
	k := len(st.pages) - 1
	st.pages[k] = append(st.pages[k], *ev)
	st.mpages[k] = append(st.mpages[k], m)
	st.stored(&st.pages[k][len(st.pages[k])-1], &st.mpages[k][len(st.mpages[k])-1], st.added-1)
}

// reserveFrom is the part of an input (of known size) that must be read
// before reserve estimates its events: the estimate is then at most
// 1/reserveFrom times the events already read, however they are spread.
const reserveFrom = 4

// minEventBytes is fewer bytes than any line that gives an event takes
// (a timestamp, a verb and a volume name): an input of n bytes has at most
// n/minEventBytes events.
const minEventBytes = 32

// firstPage is the size of the input's first event page, the later ones
// doubling up to eventPage: firstEventPage, or fewer when the input's size
// (sizeHint) says it cannot hold as many events — a must-gather's tens of
// thousands of small logs then hold a page each of the size they need,
// not of a large log's (64 events and their metadata, 28 KiB, for a
// file of one line).
func (st *inputState) firstPage() int {
	if st.sizeHint > 0 && st.sizeHint < firstEventPage*minEventBytes {
		return int(st.sizeHint/minEventBytes) + 1
	}
	return firstEventPage
}

// reserve moves the events read so far, all in pages, into one array
// (events, metas) with room for the whole input, estimated from their
// density in the part read plus an eighth; the next events are appended
// to it (direct), and flattenAll has nothing to copy for this input when
// the estimate holds (when it does not, the rest goes into pages as
// before). It does so once, for an input of known size of which at least
// 1/reserveFrom has been read; it reports whether it did.
func (st *inputState) reserve() bool {
	if st.reserved || st.sizeHint <= 0 || st.seen*reserveFrom < st.sizeHint || len(st.events) > 0 {
		return false
	}
	st.reserved = true
	n := 0
	for _, pg := range st.pages {
		n += len(pg)
	}
	est := int(int64(n) * st.sizeHint / st.seen)
	c := est + est/8 + eventPage
	if st.maxEvents > 0 {
		c = max(min(c, st.maxEvents), n)
	}
	// the margin past the estimate is left unmapped (MakeFor, Prefix):
	// unused, it costs address space only
	evs, metas := prefault.MakeFor[Event](c, est), prefault.Prefix(make([]evMeta, 0, c), est)
	for k := range st.pages {
		evs, metas = append(evs, st.pages[k]...), append(metas, st.mpages[k]...)
	}
	st.events, st.metas, st.pages, st.mpages = evs, metas, nil, nil
	st.direct = true
	st.refold()
	return true
}

// runBudget applies the run's event budget (budget; 0: none) to the inputs
// read, in input order: each keeps its first events up to what the inputs
// before it left, and the rest are dropped (keepFirst). Each input stopped
// storing at the budget while it was read, so that no input holds more
// than the budget however the inputs were scheduled; which events are kept
// depends only on the inputs and their order.
func runBudget(states []*inputState, budget int) {
	if budget <= 0 {
		return
	}
	left := budget
	for _, st := range states {
		n := st.storedEvents()
		if n > left {
			st.keepFirst(left)
			n = left
		}
		left -= n
	}
}

// runShare is the run's budget as ParseAll's inputs see it while they
// are read: the events the inputs before the first still being read hold.
// Once those reach the budget, an input after them keeps nothing
// (runBudget would cut it to nothing), so it stops storing — spends — at
// once rather than at the budget: the run then holds the budget and what
// the inputs being read hold, not the budget for every input. Which
// inputs are read first changes only when an input spends, never what it
// keeps or the counts it reports.
type runShare struct {
	budget int
	mu     sync.Mutex
	done   []bool
	stored []int
	next   int          // inputs [0, next) are read
	held   atomic.Int64 // the events inputs [0, next) hold
	front  atomic.Int64 // next, for spentBefore
}

// spentCheck is how many events an input stores between two looks at
// the run's share.
const spentCheck = 1024

func newRunShare(inputs, budget int) *runShare {
	return &runShare{budget: budget, done: make([]bool, inputs), stored: make([]int, inputs)}
}

// finish records that input i is read, holding stored events.
func (r *runShare) finish(i, stored int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done[i], r.stored[i] = true, stored
	for r.next < len(r.done) && r.done[r.next] {
		r.held.Add(int64(r.stored[r.next]))
		r.next++
	}
	r.front.Store(int64(r.next))
}

// spentBefore reports whether the inputs before input i, which is being
// read, certainly hold the budget: the ones read already do. (Inputs
// before i still being read only add to it, so waiting for them never
// errs.)
func (r *runShare) spentBefore(i int) bool {
	if r == nil || r.budget <= 0 {
		return false
	}
	return r.front.Load() <= int64(i) && r.held.Load() >= int64(r.budget)
}

// spend drops every event the input holds, counted as runBudget would
// count them, and stores none from here on.
func (st *inputState) spend() {
	st.keepFirst(0)
	st.spent, st.reserved, st.direct = true, true, false
	st.events, st.metas, st.pages, st.mpages = nil, nil, nil, nil
}

// storedEvents is how many events the input holds (before flattenAll).
func (st *inputState) storedEvents() int {
	n := len(st.events)
	for _, pg := range st.pages {
		n += len(pg)
	}
	return n
}

// keepFirst keeps the input's first n stored events (before flattenAll)
// and drops the rest, each counted as the lines it stands for — one, or
// for an event repeats were folded into, the repeats too — as an event
// past the budget would have been.
func (st *inputState) keepFirst(n int) {
	st.runCut = true
	folded := map[int]bool{} // the events past n that repeats were folded into
	spans := st.foldSpans[:0]
	for _, fs := range st.foldSpans {
		if fs.index < n {
			spans = append(spans, fs)
		} else {
			folded[fs.index] = true
		}
	}
	st.foldSpans, st.folds = spans, nil
	k := 0 // the index of evs[0] among the input's events
	cut := func(evs []Event, metas []evMeta) ([]Event, []evMeta) {
		keep := max(0, min(len(evs), n-k))
		for i := keep; i < len(evs); i++ {
			st.dropped++
			if folded[k+i] { // its repeats are dropped with it, no longer folded
				st.dropped += int(evs[i].Count) - 1
				st.in.Folded -= int(evs[i].Count) - 1
			}
			evs[i] = Event{} // the text it holds goes with it
		}
		k += len(evs)
		return evs[:keep], metas[:keep]
	}
	st.events, st.metas = cut(st.events, st.metas)
	for i := range st.pages {
		st.pages[i], st.mpages[i] = cut(st.pages[i], st.mpages[i])
	}
	for len(st.pages) > 0 && len(st.pages[len(st.pages)-1]) == 0 {
		st.pages, st.mpages = st.pages[:len(st.pages)-1], st.mpages[:len(st.mpages)-1]
	}
}

// noteDropped says how many events the budget dropped, and marks the input
// read only in part.
func (st *inputState) noteDropped() {
	if st.dropped == 0 {
		return
	}
	st.in.Dropped, st.in.Truncated = st.dropped, true
	if st.runCut {
		st.problem(0, "more than %d events after folding repeats across the inputs (the event budget of the run, given out in input order): the first %d of this input are kept, %d later ones dropped", st.maxEvents, len(st.events), st.dropped)
		return
	}
	st.problem(0, "more than %d events after folding repeats (the event budget of the run): the first %d are kept, %d later ones dropped", st.maxEvents, st.maxEvents, st.dropped)
}
