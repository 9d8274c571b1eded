package timeline

import (
	"fmt"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/shapes"
	"github.com/kcmtrace/kcmtrace/parser"
)

// TestManyNodesOverlapsBounded: one volume held by 3000 nodes at once
// (attached in turn, detached in turn) has overlaps whose node entries stay
// near-linear (split stretches up to maxOverlapEntries, then one coalesced
// stretch naming every node), not the 4.5 M entries of splitting at every
// change.
func TestManyNodesOverlapsBounded(t *testing.T) {
	const n = 3000
	v := one(t, Build([]parser.Result{shapes.ManyNodes(n, true)}, Options{}))
	entries := 0
	for _, o := range v.Overlaps() {
		entries += len(o.Nodes)
		if len(o.States) != len(o.Nodes) {
			t.Fatalf("overlap at %s: %d states for %d nodes", o.Start, len(o.States), len(o.Nodes))
		}
	}
	if entries > maxOverlapEntries+2*n {
		t.Fatalf("%d overlap node entries for %d nodes (bound %d)", entries, n, maxOverlapEntries+2*n)
	}
	last := v.Overlaps()[len(v.Overlaps())-1]
	if len(last.Nodes) != n-1 && len(last.Nodes) != n {
		t.Errorf("the coalesced stretch names %d nodes, want every node past the budget", len(last.Nodes))
	}
	// the stretches tile the time more than one node held the volume: from
	// the second node's attach to the detach of the last but one
	first := v.Overlaps()[0]
	if !first.Start.Equal(shapes.Start.Add(2e9)) || !last.End.Equal(v.Events[len(v.Events)-3].Time.UTC()) {
		t.Errorf("overlaps cover %s..%s", first.Start, last.End)
	}
	for i := 1; i < len(v.Overlaps()); i++ {
		if !v.Overlaps()[i].Start.Equal(v.Overlaps()[i-1].End) {
			t.Fatalf("gap between overlaps %d and %d", i-1, i)
		}
	}
}

// TestManyNodesFlapOverlaps: a volume handed from node to node (the next
// attached before the last is detached) overlaps on exactly two nodes per
// hand-over (attaching, attached, detaching), however many nodes: the lanes' index by node keeps the
// intervals identical to the short-slice search.
func TestManyNodesFlapOverlaps(t *testing.T) {
	const n = 200
	v := one(t, Build([]parser.Result{shapes.ManyNodes(n, false)}, Options{}))
	if len(v.Overlaps()) != 3*(n-1) || len(v.Intervals) != 3*n-1 {
		t.Fatalf("%d overlaps, %d intervals; want %d, %d", len(v.Overlaps()), len(v.Intervals), 3*(n-1), 3*n-1)
	}
	for k, o := range v.Overlaps() {
		i := k/3 + 1
		want := []string{fmt.Sprintf("node-%05d", i-1), fmt.Sprintf("node-%05d", i)}
		if fmt.Sprint(o.Nodes) != fmt.Sprint(want) {
			t.Fatalf("overlap %d on %v, want %v", k, o.Nodes, want)
		}
	}
}

// BenchmarkManyNodes builds the timeline of one volume attached to many
// nodes in turn: handed over (overlap=false) or held by all (overlap=true).
func BenchmarkManyNodes(b *testing.B) {
	for _, overlap := range []bool{false, true} {
		for _, n := range []int{1000, 3000, 10000} {
			b.Run(fmt.Sprintf("overlap=%v/nodes=%d", overlap, n), func(b *testing.B) {
				res := []parser.Result{shapes.ManyNodes(n, overlap)}
				b.ReportAllocs()
				for b.Loop() {
					Build(res, Options{})
				}
			})
		}
	}
}
