package timeline

import (
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
)

// BenchmarkBuildFiles builds the timeline of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), parsed once; it is skipped when the variable is unset.
func BenchmarkBuildFiles(b *testing.B) {
	res, errs := parser.ParseAll(benchfiles.Paths(b), parser.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	n := 0
	for i := range res {
		n += len(res[i].Events)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Build(res, Options{})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
}
