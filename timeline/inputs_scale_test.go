package timeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/cpubudget"
	"github.com/kcmtrace/kcmtrace/internal/shapes"
	"github.com/kcmtrace/kcmtrace/parser"
)

// TestManyInputsLinear: a must-gather of 40 000 inputs, every kubelet one
// with a skew, builds within 1.5 s of processor time (applying each skew
// by scanning every input took 20 000 × 40 000 path comparisons, and the
// kubelet nodes were collected with a list search), and each kubelet
// input's events move by its own skew.
func TestManyInputsLinear(t *testing.T) {
	res := shapes.ManyInputs(40000)
	var tl *Timeline
	cpubudget.Within(t, 1500*time.Millisecond, "Build of 40 000 inputs", func() { tl = Build(res, Options{}) })
	if len(tl.Skews) != 20000 || len(tl.Volumes) != 20000 {
		t.Fatalf("%d skews, %d volumes; want 20000 each", len(tl.Skews), len(tl.Volumes))
	}
	for _, s := range tl.Skews {
		if s.From != "estimated" || s.Offset != time.Second+skewEpsilon {
			t.Fatalf("skew %+v", s)
		}
	}
	for _, v := range tl.Volumes {
		if len(v.Events) != 2 || v.Events[0].Kind != parser.AttachSucceeded || !v.Events[1].Time.UTC().Equal(shapes.Start.Add(skewEpsilon)) {
			t.Fatalf("volume %s: %d events, last at %s", v.Key(), len(v.Events), v.Events[len(v.Events)-1].Time)
		}
	}
}

// BenchmarkManyInputs builds the timeline of many small inputs, half of
// them kubelet logs with a skew each.
func BenchmarkManyInputs(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprintf("inputs=%d", n), func(b *testing.B) {
			res := shapes.ManyInputs(n)
			b.ReportAllocs()
			for b.Loop() {
				Build(res, Options{})
			}
		})
	}
}
