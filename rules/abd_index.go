package rules

import (
	"slices"
	"sort"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// abdIndex finds, for each attach to a node B, the other nodes A that
// attach-before-detach pairs with it, without scanning every (attach, node,
// event) triple: a volume attached to thousands of nodes in turn costs
// O((events + pairs) log events), not the cube of its node count.
//
// A node A pairs with the attach at event i (node B, time t) when a direct
// detach from A (not the CSI sidecar's "detached") follows i, and either
//
//   - A's controller interval at t holds the volume (attaching, attached,
//     uncertain): stateAt, read from the intervals as the rules read them; or
//   - A has no interval at t and must have been held unseen: nothing about A
//     precedes i, A's first direct event is that detach, no detach from B
//     comes before it, and no controller restart lies between the two (the
//     detach loop only visits entries of the actual state of world, and only
//     a restart could have added one; with no Multi-Attach error, such an
//     entry was not attach-confirmed: uncertain).
//
// Attaches are visited in event order, which is time order, so the first
// kind is a sweep over the intervals by start time; the second is a range of
// nodes ordered by the index of their first event.
type abdIndex struct {
	v  *timeline.Volume
	vf *volFacts

	dets    [][]int // per node: its direct detaches (not CSI "detached"), by index
	anyDet  [][]int // per node: its direct detaches of any kind (isDetach), by index
	first   []int   // per node: the index of its first direct event, or len(events)
	unseen  []int   // nodes whose first direct event is a detach, by that index
	ivNode  []int32 // per controller interval: its node, -1 when vf.nodes lacks it
	next    int     // intervals [0, next) have started
	cur     []int   // per node: its last started interval, -1 before the first
	holding []int32 // nodes whose last started interval holds the volume, unordered
	inSet   []bool  // per node: in holding
	dnf     []int   // the device-not-found events, by index; see deviceNotFound
	dnfDone bool
}

// abdCand is one node A for an attach to B, with A's detach and state.
type abdCand struct {
	node     int32
	det      int
	state    timeline.State
	inferred bool
}

// abdKey is one finding's identity: A, B and A's late detach.
type abdKey struct {
	a, b int32
	det  int
}

func newABDIndex(v *timeline.Volume, vf *volFacts) *abdIndex {
	n := len(vf.nodes)
	perNode := make([]int, 2*n) // first, cur
	x := &abdIndex{v: v, vf: vf, dets: make([][]int, n), anyDet: make([][]int, n),
		first: perNode[:n:n], cur: perNode[n:], inSet: make([]bool, n)}
	for a := range x.first {
		x.first[a], x.cur[a] = len(v.Events), -1
	}
	// Each node's detaches are counted first, then listed in one array:
	// appended node by node, a volume on many nodes made a list or two
	// a node (1 GiB of the many-nodes shape: 63k allocations, most of the
	// rule's time).
	nDets, nAny := make([]int32, n), make([]int32, n)
	total := 0
	for j := range v.Events {
		e, a := &v.Events[j], vf.node[j]
		if e.Origin != 0 || a < 0 {
			continue
		}
		if x.first[a] == len(v.Events) {
			x.first[a] = j
			if isDetach(e.Kind) && e.Kind != parser.CSIDetached {
				x.unseen = append(x.unseen, int(a))
			}
		}
		if isDetach(e.Kind) {
			nAny[a]++
			total++
			if e.Kind != parser.CSIDetached {
				nDets[a]++
				total++
			}
		}
	}
	if total > 0 {
		room := make([]int, total)
		for a := range n {
			x.anyDet[a], room = room[:0:nAny[a]], room[nAny[a]:]
			x.dets[a], room = room[:0:nDets[a]], room[nDets[a]:]
		}
		for j := range v.Events {
			e, a := &v.Events[j], vf.node[j]
			if e.Origin != 0 || a < 0 || !isDetach(e.Kind) {
				continue
			}
			x.anyDet[a] = append(x.anyDet[a], j)
			if e.Kind != parser.CSIDetached {
				x.dets[a] = append(x.dets[a], j)
			}
		}
	}
	x.ivNode = make([]int32, len(v.Intervals))
	for k := range v.Intervals {
		x.ivNode[k] = -1
		if a, ok := slices.BinarySearch(vf.nodes, v.Intervals[k].Node); ok {
			x.ivNode[k] = int32(a)
		}
	}
	return x
}

// after returns the first index in idx (ascending) greater than i, or -1.
func after(idx []int, i int) int {
	k := sort.SearchInts(idx, i+1)
	if k == len(idx) {
		return -1
	}
	return idx[k]
}

// candidates appends to out the nodes A that pair with the attach at event i
// (on node bn), ordered by node.
func (x *abdIndex) candidates(out []abdCand, i int, bn int32, rs []restart) []abdCand {
	v := x.v
	t := v.Events[i].Time
	if len(v.Intervals) == 0 {
		// no intervals (no timed controller event): stateAt reads the events
		for a := range x.vf.nodes {
			if det := after(x.dets[a], i); int32(a) != bn && det >= 0 {
				if st, ok := stateAt(v, x.vf.nodes[a], t.UTC()); ok && holds(st) {
					out = append(out, abdCand{node: int32(a), det: det, state: st})
				} else if !ok && x.unseenHeld(int32(a), bn, i, det, rs) {
					out = append(out, abdCand{node: int32(a), det: det, state: timeline.Uncertain, inferred: true})
				}
			}
		}
		return out
	}
	// intervals that started by t
	for ; x.next < len(v.Intervals) && !v.Intervals[x.next].Start().After(t.UTC()); x.next++ {
		if a := x.ivNode[x.next]; a >= 0 {
			x.cur[a] = x.next
			if !x.inSet[a] && holds(v.Intervals[x.next].State) {
				x.inSet[a] = true
				x.holding = append(x.holding, a)
			}
		}
	}
	// the nodes held at t with a detach to come; the others leave the set
	// until a new interval of theirs starts
	for k := 0; k < len(x.holding); {
		a := x.holding[k]
		st, ok := x.stateAt(a, t.UTC())
		last := x.dets[a]
		if !ok || !holds(st) || len(last) == 0 || last[len(last)-1] <= i {
			x.inSet[a] = false
			x.holding[k] = x.holding[len(x.holding)-1]
			x.holding = x.holding[:len(x.holding)-1]
			continue
		}
		k++
		if a != bn {
			out = append(out, abdCand{node: a, det: after(x.dets[a], i), state: st})
		}
	}
	// nodes first seen by a detach after i and before any detach from B
	lo := sort.Search(len(x.unseen), func(k int) bool { return x.first[x.unseen[k]] > i })
	hi := len(x.unseen)
	if bd := after(x.anyDet[bn], i); bd >= 0 {
		hi = sort.Search(len(x.unseen), func(k int) bool { return x.first[x.unseen[k]] >= bd })
	}
	for _, a := range x.unseen[lo:max(lo, hi)] {
		det := x.first[a]
		if _, ok := x.stateAt(int32(a), t.UTC()); ok || !x.unseenHeld(int32(a), bn, i, det, rs) || int32(a) == bn {
			continue
		}
		out = append(out, abdCand{node: int32(a), det: det, state: timeline.Uncertain, inferred: true})
	}
	slices.SortFunc(out, func(p, q abdCand) int { return int(p.node) - int(q.node) })
	return out
}

// stateAt is the package's stateAt for node a at t, t at or after the
// start of every interval swept so far (or zero): a node's intervals follow
// each other without overlapping, so only its last started one can contain t.
func (x *abdIndex) stateAt(a int32, t time.Time) (timeline.State, bool) {
	k := x.cur[a]
	if k < 0 {
		return 0, false
	}
	iv := &x.v.Intervals[k]
	if iv.Start().After(t) || !iv.End().IsZero() && !t.Before(iv.End()) {
		return 0, false
	}
	return iv.State, true
}

// unseenHeld reports whether node a, with no interval at the attach at
// event i (node bn), was held unseen until its detach det: det is a's first
// direct event, no detach from bn comes before it, and no controller restart
// lies between the two.
func (x *abdIndex) unseenHeld(a, bn int32, i, det int, rs []restart) bool {
	if x.first[a] != det || det <= i {
		return false
	}
	if bd := after(x.anyDet[bn], i); bd >= 0 && bd < det {
		return false
	}
	return !restartBetween(rs, x.v.Events[i].Time.UTC(), x.v.Events[det].Time.UTC())
}

// restartBetween reports a restart at or between from and to.
func restartBetween(rs []restart, from, to time.Time) bool {
	for _, r := range rs {
		if !r.Time.Before(from) && !r.Time.After(to) {
			return true
		}
	}
	return false
}

// deviceNotFound returns the indexes of the volume's device-not-found
// events, found on first use.
func (x *abdIndex) deviceNotFound() []int {
	if !x.dnfDone {
		x.dnfDone = true
		for i := range x.v.Events {
			if isDeviceNotFound(&x.v.Events[i]) {
				x.dnf = append(x.dnf, i)
			}
		}
	}
	return x.dnf
}
