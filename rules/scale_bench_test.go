package rules

import (
	"fmt"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/shapes"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// BenchmarkManyNodes builds the timeline of one volume attached to many
// nodes in turn (issue 21) and runs every rule over it.
func BenchmarkManyNodes(b *testing.B) {
	for _, overlap := range []bool{false, true} {
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
