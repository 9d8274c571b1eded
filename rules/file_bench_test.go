package rules

import (
	"os"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// BenchmarkRunFiles runs every rule over the timeline of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), parsed and built once; it is skipped when the variable is
// unset.
func BenchmarkRunFiles(b *testing.B) {
	env := os.Getenv("KCMTRACE_BENCH_FILES")
	if env == "" {
		b.Skip("KCMTRACE_BENCH_FILES not set")
	}
	res, errs := parser.ParseAll(strings.Split(env, ","), parser.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	tl := timeline.Build(res, timeline.Options{Consume: true})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(tl, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
