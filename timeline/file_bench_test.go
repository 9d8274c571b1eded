package timeline

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
)

// BenchmarkBuildFiles builds the timeline of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), parsed once; it is skipped when the variable is unset. It
// reports, besides the time and the allocations, the heap the last
// timeline keeps beyond the parse results (retained-B: what survives a
// collection while it is held).
func BenchmarkBuildFiles(b *testing.B) { benchBuildFiles(b, false) }

// BenchmarkBuildFilesConsume is BenchmarkBuildFiles as the CLI builds:
// with Options.Consume, on the events in one array as parser.ParseAll
// gives them (a fresh copy each time, made with the timer stopped, so
// neither its time nor its allocations count).
func BenchmarkBuildFilesConsume(b *testing.B) { benchBuildFiles(b, true) }

func benchBuildFiles(b *testing.B, consume bool) {
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
	var cpu time.Duration // of the builds alone
	for b.Loop() {
		in := res
		if consume {
			b.StopTimer()
			tl = nil
			in = sharedCopy(res)
			b.StartTimer()
		}
		tl = nil
		start := benchfiles.CPUTime()
		tl = Build(in, Options{Consume: consume})
		cpu += benchfiles.CPUTime() - start
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
	held := liveHeap()
	runtime.KeepAlive(tl)
	tl = nil
	b.ReportMetric(float64(held)-float64(liveHeap()), "retained-B")
	runtime.KeepAlive(res)
}

// sharedCopy copies the results with their events in one new array, each
// input's a window of it reaching to its end, as parser.ParseAll gives them.
func sharedCopy(res []parser.Result) []parser.Result {
	total := 0
	for i := range res {
		total += len(res[i].Events)
	}
	all := make([]parser.Event, 0, total)
	out := slices.Clone(res)
	for i := range out {
		k := len(all)
		all = append(all, res[i].Events...)
		out[i].Events = all[k:len(all):total]
	}
	return out
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
