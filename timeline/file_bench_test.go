package timeline

import (
	"runtime"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
)

// BenchmarkBuildFiles builds the timeline of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), parsed once; it is skipped when the variable is unset. It
// reports, besides the time and the allocations, the heap the last
// timeline keeps beyond the parse results (retained-B: what survives a
// collection while it is held).
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
	var tl *Timeline
	cpu := benchfiles.CPUTime()
	for b.Loop() {
		tl = nil
		tl = Build(res, Options{})
	}
	b.StopTimer()
	benchfiles.ReportCPU(b, cpu)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
	held := liveHeap()
	runtime.KeepAlive(tl)
	tl = nil
	b.ReportMetric(float64(held)-float64(liveHeap()), "retained-B")
	runtime.KeepAlive(res)
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
