package rules

import (
	"fmt"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/shapes"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestAttachBeforeDetachManyNodes: a volume handed over from node to node
// 1000 times, each next node attached before the last one is detached, is
// 999 attach-before-detach pairs (node i-1 still attached when node i
// attaches). The pair search used to scan every (attach, node, event)
// triple and took minutes here.
func TestAttachBeforeDetachManyNodes(t *testing.T) {
	const n = 1000
	tl := timeline.Build([]parser.Result{shapes.ManyNodes(n, false)}, timeline.Options{})
	res, err := Run(tl, Config{Enable: []string{"attach-before-detach"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != n-1 {
		t.Fatalf("%d findings, want %d", len(res.Findings), n-1)
	}
	for i, f := range res.Findings {
		want := []string{fmt.Sprintf("node-%05d", i), fmt.Sprintf("node-%05d", i+1)}
		if fmt.Sprint(f.Nodes) != fmt.Sprint(want) {
			t.Fatalf("finding %d on %v, want %v", i, f.Nodes, want)
		}
	}
}

// BenchmarkManyNodes builds the timeline of one volume handed over from
// node to node (issue 21) and runs every rule over it. (The shape where all
// nodes hold the volume at once is left out: without RWX evidence, every
// pair of nodes is an attach-before-detach finding.)
func BenchmarkManyNodes(b *testing.B) {
	for _, overlap := range []bool{false} {
		for _, n := range []int{1000, 3000, 10000} {
			b.Run(fmt.Sprintf("overlap=%v/nodes=%d", overlap, n), func(b *testing.B) {
				res := shapes.ManyNodes(n, overlap)
				b.ReportAllocs()
				for b.Loop() {
					tl := timeline.Build([]parser.Result{res}, timeline.Options{})
					if _, err := Run(tl, Config{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
