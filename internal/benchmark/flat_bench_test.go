package benchmark

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/mempolicy"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// BenchmarkFlatVolumes runs analyze -o json's pipeline (parse, timeline,
// rules, the JSON report to io.Discard) under the run's memory policy
// (internal/mempolicy, as the CLI applies it; GOMEMLIMIT=off turns the
// soft limit off) over the flat high-cardinality shape (loggen.Flat: every
// volume and node distinct, two lines each) at three sizes, to show the
// growth: ns/volume stays flat when the pipeline is near-linear in the
// volumes. 1 M volumes is 475 MB of log, written once per process.
//
//	go test -run '^$' -bench FlatVolumes -benchtime 1x ./internal/benchmark
func BenchmarkFlatVolumes(b *testing.B) {
	for _, n := range []int{100_000, 300_000, 1_000_000} {
		b.Run(strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			path, err := flatLog(n)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(n) * loggen.FlatVolumeBytes)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				analyzeJSON(b, path)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/volume")
		})
	}
}

// analyzeJSON is analyze -o json over path, the report discarded.
func analyzeJSON(b *testing.B, path string) {
	pol := mempolicy.Start([]string{path}, os.Getenv)
	defer pol.End()
	results, errs := parser.ParseAll([]string{path}, parser.Options{})
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	events := 0
	for _, r := range results {
		events += len(r.Events)
	}
	tl := timeline.Build(results, timeline.Options{})
	pol.Built()
	res, err := rules.Run(tl, rules.Config{})
	if err != nil {
		b.Fatal(err)
	}
	a := &report.Analysis{Timeline: tl, Result: res, Rules: rules.All(), Events: events}
	if err := report.JSON(io.Discard, a, report.Options{}); err != nil {
		b.Fatal(err)
	}
}

// flatLog writes, once per process, the flat shape's log of n volumes.
func flatLog(n int) (string, error) {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if dataDir == "" {
		var err error
		if dataDir, err = os.MkdirTemp("", "kcmtrace-bench-"); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dataDir, "flat-"+strconv.Itoa(n)+".log")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	_, err = loggen.Flat(f, n, time.Time{}, 0)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}
