package rules

import (
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// benchFiles caches the timeline of the files named in KCMTRACE_BENCH_FILES,
// so that the benchmarks below parse and build it once.
var benchFiles struct {
	once sync.Once
	tl   *timeline.Timeline
	errs []error
}

// benchTimeline returns the timeline of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), skipping the benchmark when the variable is unset.
func benchTimeline(b *testing.B) *timeline.Timeline {
	paths := benchfiles.Paths(b)
	benchFiles.once.Do(func() {
		res, errs := parser.ParseAll(paths, parser.Options{})
		benchFiles.errs = errs
		if len(errs) == 0 {
			benchFiles.tl = timeline.Build(res, timeline.Options{Consume: true})
		}
	})
	if len(benchFiles.errs) > 0 {
		b.Fatal(benchFiles.errs)
	}
	return benchFiles.tl
}

// BenchmarkRunFiles runs every rule over the timeline of the files named in
// KCMTRACE_BENCH_FILES, parsed and built once; it is skipped when the
// variable is unset.
func BenchmarkRunFiles(b *testing.B) {
	tl := benchTimeline(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchfiles.CPUTime()
	for b.Loop() {
		if _, err := Run(tl, Config{}); err != nil {
			b.Fatal(err)
		}
	}
	benchfiles.ReportCPU(b, cpu)
}

// BenchmarkRunFilesRule runs each rule alone over the same timeline, to show
// which rule costs.
func BenchmarkRunFilesRule(b *testing.B) {
	tl := benchTimeline(b)
	for _, r := range All() {
		b.Run(r.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(tl, Config{Enable: []string{r.Name}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunFactsFiles derives the facts the rules share (newRunFacts)
// from the same timeline, on one goroutine.
func BenchmarkRunFactsFiles(b *testing.B) {
	tl := benchTimeline(b)
	b.ReportAllocs()
	cpu := benchfiles.CPUTime()
	for b.Loop() {
		newRunFacts(tl, 1)
	}
	benchfiles.ReportCPU(b, cpu)
}
