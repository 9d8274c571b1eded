package rules

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// runFacts holds what several rules derive from the whole timeline. Run
// builds it once, before the rules start, and the rules only read it: a
// large timeline's events do not fit in cache, so every rule rescanning
// them (and the node names they point to, spread over the input) costs
// more than the rules' own logic.
type runFacts struct {
	vols []volFacts // one per Timeline.Volumes entry, same order

	restartsOnce sync.Once
	restarts     []restart // see restarts; filled on first use

	mountOnce sync.Once
	mount     *mountSide // see mountSide; filled on first use
}

// volFacts is what several rules read about one volume, derived in one pass
// over its events.
type volFacts struct {
	// nodes are the nodes named by the volume (Volume.Nodes), its
	// controller intervals and its events: distinct, non-empty, sorted.
	// Read only: it is mostly the volume's own list.
	nodes []string
	// node holds, for each of the volume's events, the index in nodes of
	// the event's node; -1 when the event names none.
	node []int32
	// kinds are the kinds of the volume's events: a rule looking for
	// kinds the volume does not have skips it without reading its events.
	kinds kindSet
	// first and last are the earliest and the latest of the events' times
	// (a zero time counts as the earliest): Stamps, 8 bytes and no
	// pointer each where a time.Time is 24 bytes and one (1 GiB of a large
	// cluster's churn: 35k volumes, 1.1 MB).
	first, last parser.Stamp
}

// has reports whether any of the volume's events is of a kind in ks.
func (vf *volFacts) has(ks kindSet) bool { return vf.kinds&ks != 0 }

// mayHaveAfter reports whether an event of the volume may be after from
// by at most d: false means none is.
func (vf *volFacts) mayHaveAfter(from time.Time, d time.Duration) bool {
	return vf.last.UTC().After(from) && vf.first.UTC().Sub(from) <= d
}

// kindSet is a set of event kinds, one bit each.
type kindSet uint64

// unlistedKind is the bit of every kind parser.Kinds does not list (none
// today): such kinds share it, so a set naming one of them only errs
// towards "may be present".
const unlistedKind kindSet = 1 << 63

// kindBits numbers the kinds parser.Kinds lists, indexed by kind (a
// kind is a byte; every kind not listed has unlistedKind): newRunFacts
// looks up every event's, which through a map was 40% of its time.
var kindBits = func() (bits [1 << (8 * unsafe.Sizeof(parser.Kind(0)))]kindSet) {
	for i := range bits {
		bits[i] = unlistedKind
	}
	for i, k := range parser.Kinds() {
		if i < 63 {
			bits[k] = 1 << i
		}
	}
	return bits
}()

// kindBit returns the bit of kind k.
func kindBit(k parser.Kind) kindSet { return kindBits[k] }

// kindsOf returns the set of the given kinds.
func kindsOf(ks ...parser.Kind) kindSet {
	var s kindSet
	for _, k := range ks {
		s |= kindBit(k)
	}
	return s
}

// minChunkEvents is the fewest events worth handing to a goroutine of its
// own when building runFacts.
const minChunkEvents = 4096

// sharedFacts is newRunFacts for Run: nil, rather than a panic, when tl is
// malformed, so that each rule reports the failure as its own error.
// With more than one worker the mount side (newMountSide) is derived at
// the same time, on a goroutine of its own: left to the first rule that
// asks for it, it held every other kubelet-side rule waiting for it (on
// the churn shape's 1 GiB, one of the two rule workers idle for 11 ms).
// A panic there leaves it to that first rule again, which reports it.
func sharedFacts(tl *timeline.Timeline, workers int) *runFacts {
	var mount *mountSide
	var wg sync.WaitGroup
	if workers > 1 {
		wg.Go(func() {
			defer func() { _ = recover() }()
			mount = newMountSide(tl)
		})
	}
	f := recoveredFacts(tl, workers)
	wg.Wait()
	if f != nil && mount != nil {
		f.mountOnce.Do(func() { f.mount = mount })
	}
	return f
}

// recoveredFacts is newRunFacts, nil when it panics.
func recoveredFacts(tl *timeline.Timeline, workers int) (f *runFacts) {
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	return newRunFacts(tl, workers)
}

// newRunFacts derives the facts of tl's volumes, splitting the work over
// up to workers goroutines.
func newRunFacts(tl *timeline.Timeline, workers int) *runFacts {
	f := &runFacts{vols: prefault.Make[volFacts](len(tl.Volumes), len(tl.Volumes))} // (see internal/prefault)
	total := 0
	for _, v := range tl.Volumes {
		total += len(v.Events)
	}
	ids := make([]int32, total) // every volume's node indexes, back to back
	workers = max(1, min(workers, total/minChunkEvents))
	var (
		wg     sync.WaitGroup
		failed atomic.Bool
	)
	from, off := 0, 0
	for w := range workers {
		// Volumes [from, to) with about total/workers events.
		to, end := from, off
		for to < len(tl.Volumes) && (w == workers-1 || end-off < total/workers) {
			end += len(tl.Volumes[to].Events)
			to++
		}
		vols, part := tl.Volumes[from:to], f.vols[from:to]
		chunk := ids[off:end]
		wg.Go(func() {
			defer func() {
				if recover() != nil {
					failed.Store(true)
				}
			}()
			var b factsBuilder
			for i, v := range vols {
				n := len(v.Events)
				part[i] = b.volume(v, chunk[:n:n])
				chunk = chunk[n:]
			}
		})
		from, off = to, end
	}
	wg.Wait()
	if failed.Load() {
		// a malformed timeline (Build never makes one): each rule builds
		// the facts again on its own (Context.facts), where runRule turns
		// the panic into that rule's error
		return nil
	}
	return f
}

// factsBuilder derives volFacts, reusing its scratch space from one volume
// to the next.
type factsBuilder struct {
	arena []string         // the nodes of the volumes done so far, back to back
	index map[string]int32 // node → index in the current volume's nodes, once there are many (empty between volumes)
	order []int32          // scratch for sorting
	rank  []int32          // scratch for sorting
}

// linearNodes is how many distinct nodes a volume may name before lookups
// go through a map rather than a scan.
const linearNodes = 8

// volume derives v's facts, writing the node index of each event to ids.
func (b *factsBuilder) volume(v *timeline.Volume, ids []int32) volFacts {
	start := len(b.arena)
	// add returns n's index among the volume's nodes in order of first
	// appearance, adding it when new. Volume.Nodes and the intervals come
	// first so that the names kept are the timeline's own copies.
	add := func(n string) int32 {
		nodes := b.arena[start:]
		if len(nodes) <= linearNodes {
			if i := slices.Index(nodes, n); i >= 0 {
				return int32(i)
			}
		} else if i, ok := b.index[n]; ok {
			return i
		}
		i := int32(len(nodes))
		b.arena = push(b.arena, n)
		switch {
		case i == linearNodes:
			if b.index == nil {
				b.index = map[string]int32{}
			}
			for j, m := range b.arena[start:] {
				b.index[m] = int32(j)
			}
		case i > linearNodes:
			b.index[n] = i
		}
		return i
	}
	for _, n := range v.Nodes() {
		if n != "" {
			add(n)
		}
	}
	for i := range v.Intervals {
		if n := v.Intervals[i].Node; n != "" {
			add(n)
		}
	}
	// Two tight loops rather than one: the events are read from memory
	// in the first, and its loads overlap better.
	var kinds kindSet
	var first, latest parser.Stamp
	for i := range v.Events {
		e := &v.Events[i]
		kinds |= kindBit(e.Kind)
		if i == 0 || e.Time.Before(first) {
			first = e.Time
		}
		if i == 0 || e.Time.After(latest) {
			latest = e.Time
		}
	}
	last, lastID := "", int32(-1) // a volume's events mostly repeat the previous node
	for i := range v.Events {
		n := v.Events[i].Node
		if n != last {
			last, lastID = n, -1
			if n != "" {
				lastID = add(n)
			}
		}
		ids[i] = lastID
	}
	nodes := b.arena[start:len(b.arena):len(b.arena)]
	if len(nodes) > linearNodes {
		clear(b.index)
	}
	if vn := v.Nodes(); slices.Equal(nodes, vn) {
		// (most volumes) the volume's own nodes, sorted already: its
		// list, not a copy (4 GiB of churn: 140k volumes, 3 MB)
		nodes, b.arena = vn, b.arena[:start]
	} else if !slices.IsSorted(nodes) {
		b.sort(nodes, ids)
	}
	return volFacts{nodes: nodes, node: ids, kinds: kinds, first: first, last: latest}
}

// sort sorts nodes and renumbers ids to match.
func (b *factsBuilder) sort(nodes []string, ids []int32) {
	b.order = b.order[:0]
	for i := range nodes {
		b.order = append(b.order, int32(i))
	}
	slices.SortFunc(b.order, func(x, y int32) int { return cmp.Compare(nodes[x], nodes[y]) })
	b.rank = slices.Grow(b.rank[:0], len(nodes))[:len(nodes)]
	sorted := make([]string, len(nodes))
	for r, i := range b.order {
		b.rank[i] = int32(r)
		sorted[r] = nodes[i]
	}
	copy(nodes, sorted)
	for i, id := range ids {
		if id >= 0 {
			ids[i] = b.rank[id]
		}
	}
}

// facts returns the run's facts, deriving them on first use when the
// context was not made by Run.
func (c *Context) facts() *runFacts {
	if c.shared == nil {
		c.shared = newRunFacts(c.Timeline, 1)
	}
	return c.shared
}

// vol returns the facts of c.Timeline.Volumes[i].
func (c *Context) vol(i int) *volFacts { return &c.facts().vols[i] }

// restarts returns the timeline's restarts (see restarts), derived once per
// run; callers must not modify the slice.
func (c *Context) restarts() []restart {
	f := c.facts()
	f.restartsOnce.Do(func() { f.restarts = restarts(c.Timeline, f.vols) })
	return f.restarts
}
