package timeline

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// sortOrder sorts each input only when it is out of order and merges the
// inputs; the result must be the full sort by (time, input, line, position)
// with zero times last, for inputs in order or not, ties included.
func TestSortOrderMatchesFullSort(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 1))
		var evs []parser.Event
		var in []int32
		bounds := []int{0}
		for i := range 1 + r.IntN(6) {
			n := r.IntN(40)
			sorted := r.IntN(2) == 0
			for j := range n {
				var e parser.Event
				if r.IntN(10) > 0 {
					sec := r.IntN(8)
					if sorted {
						sec = j / 3
					}
					e.Time = parser.StampOf(at(float64(sec) + float64(r.IntN(2))*1e-6))
				}
				e.Source.Line = parser.Int32(j + 1)
				if r.IntN(4) == 0 {
					e.Source.Line = parser.Int32(r.IntN(n + 1)) // lines repeat or go back
				}
				evs = append(evs, e)
				in = append(in, int32(i))
			}
			bounds = append(bounds, len(evs))
		}
		keys := make([]sortKey, len(evs))
		for k := range evs {
			keys[k] = eventKey(&evs[k], k)
		}
		var got []int32
		m := sortOrder(keys, bounds, evs)
		for kk, ok := m.next(); ok; kk, ok = m.next() {
			got = append(got, kk.k)
		}
		want := make([]int32, len(evs)) // nil, as got, when there are none
		for i := range want {
			want[i] = int32(i)
		}
		key := func(k int32) (int64, int) {
			if tm := evs[k].Time; !tm.IsZero() {
				return tm.Unix(), tm.Nanosecond()
			}
			return 1 << 62, 0
		}
		slices.SortFunc(want, func(a, b int32) int {
			as, an := key(a)
			bs, bn := key(b)
			return cmp.Or(cmp.Compare(as, bs), cmp.Compare(an, bn), cmp.Compare(in[a], in[b]),
				cmp.Compare(evs[a].Source.Line, evs[b].Source.Line), cmp.Compare(a, b))
		})
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: sortOrder = %v, want %v", seed, got, want)
		}
	}
}

// A volume's overlaps need two nodes; a volume held by one node through
// attach, detach and re-attach at the same instants has none.
func TestOverlapsOneNode(t *testing.T) {
	var sc scratch
	iv := []Interval{
		NewInterval(nodeA, Attaching, at(0), at(1), 0, 0),
		NewInterval(nodeA, Attached, at(1), at(5), 0, 0),
		NewInterval(nodeA, Detaching, at(5), at(5), 0, 0),
		NewInterval(nodeA, Attached, at(5), time.Time{}, 0, 0),
	}
	if o := sc.overlaps(iv); o != nil {
		t.Errorf("one node: overlaps = %v", o)
	}
	iv = append(iv, NewInterval(nodeB, Attached, at(6), at(8), 0, 0))
	o := sc.overlaps(iv)
	if len(o) != 1 || !o[0].Start.Equal(at(6)) || !o[0].End.Equal(at(8)) || len(o[0].Nodes) != 2 {
		t.Errorf("two nodes: overlaps = %+v", o)
	}
}

// heldIndex finds what a map of the positions would, scanning while the
// nodes are few and through its own map past heldScan: random adds and
// removes over up to 3·heldScan nodes, checked after every step.
func TestHeldIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var active []held
		h := heldIndex{active: &active}
		want := map[string]int{}
		for step := range 400 {
			node := fmt.Sprintf("node-%d", r.IntN(3*heldScan))
			j, ok := h.find(node)
			if wj, wok := want[node]; ok != wok || ok && j != wj {
				t.Fatalf("round %d step %d: find(%s) = %d, %v; want %d, %v", round, step, node, j, ok, wj, wok)
			}
			if ok {
				last := len(active) - 1
				want[active[last].node] = j
				delete(want, node)
				h.remove(j)
			} else {
				want[node] = len(active)
				h.add(held{node: node})
			}
			if len(active) != len(want) {
				t.Fatalf("round %d step %d: %d held, want %d", round, step, len(active), len(want))
			}
			for n, wj := range want {
				if active[wj].node != n {
					t.Fatalf("round %d step %d: %s at %d holds %s", round, step, n, wj, active[wj].node)
				}
			}
		}
	}
}
