package report

import (
	"io"
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// benchFiles caches the analysis of the files named in KCMTRACE_BENCH_FILES,
// so that the benchmarks below parse, build and run the rules once.
var benchFiles struct {
	once sync.Once
	a    *Analysis
	err  error
	errs []error
}

// benchAnalysis returns the analysis of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), as `kcmtrace analyze` builds it, skipping the benchmark when
// the variable is unset.
func benchAnalysis(b *testing.B) *Analysis {
	paths := benchfiles.Paths(b)
	benchFiles.once.Do(func() {
		res, errs := parser.ParseAll(paths, parser.Options{})
		benchFiles.errs = errs
		if len(errs) > 0 {
			return
		}
		events := 0
		for i := range res {
			events += len(res[i].Events)
		}
		tl := timeline.Build(res, timeline.Options{Consume: true})
		rs, err := rules.Run(tl, rules.Config{})
		benchFiles.err = err
		benchFiles.a = &Analysis{Timeline: tl, Result: rs, Rules: rules.All(), Events: events}
	})
	if len(benchFiles.errs) > 0 {
		b.Fatal(benchFiles.errs)
	}
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.a
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// BenchmarkJSONFiles writes the analyze JSON report of the files named in
// KCMTRACE_BENCH_FILES to io.Discard; it is skipped when the variable is
// unset.
func BenchmarkJSONFiles(b *testing.B) {
	a := benchAnalysis(b)
	var size countingWriter
	if err := JSON(&size, a, Options{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchfiles.CPUTime()
	for b.Loop() {
		if err := JSON(io.Discard, a, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	benchfiles.ReportCPU(b, cpu)
}
