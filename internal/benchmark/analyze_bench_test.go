package benchmark

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

type fixture struct {
	kcm, kubelet string
	manifest     *loggen.Manifest
	bytes        int64
	err          error
}

var (
	fixtures   = map[loggen.Era]*fixture{}
	fixturesMu sync.Mutex
)

func benchSize() int64 {
	if s := os.Getenv("KCMTRACE_BENCH_SIZE"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
			return n
		}
	}
	return 32 << 20
}

// dataDir holds the generated logs of this process; TestMain removes it.
var dataDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if dataDir != "" {
		os.RemoveAll(dataDir)
	}
	os.Exit(code)
}

// fixtureFor generates, once per process, a KCM log and node B's kubelet log
// of the given era (regenerated every run: never stale after a generator
// change; 32 MiB takes about 0.2 s).
func fixtureFor(era loggen.Era) *fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[era]; f != nil {
		return f
	}
	f := &fixture{}
	fixtures[era] = f
	if dataDir == "" {
		if dataDir, f.err = os.MkdirTemp("", "kcmtrace-bench-"); f.err != nil {
			return f
		}
	}
	base := filepath.Join(dataDir, "kcm-"+string(era))
	f.kcm, f.kubelet = base+".log", base+".kubelet.log"
	kcm, err := os.Create(f.kcm)
	if err != nil {
		f.err = err
		return f
	}
	kl, err := os.Create(f.kubelet)
	if err != nil {
		kcm.Close()
		f.err = err
		return f
	}
	f.manifest, f.err = loggen.Generate(kcm, loggen.Config{Size: benchSize(), Era: era, Seed: 1, Kubelet: kl})
	for _, c := range []*os.File{kcm, kl} {
		if err := c.Close(); err != nil && f.err == nil {
			f.err = err
		}
	}
	f.bytes = size0(f.kcm) + size0(f.kubelet)
	return f
}

// BenchmarkAnalyze runs the whole pipeline (parse both logs, build the
// timeline, run every rule) over a generated 32 MiB KCM log plus node B's
// kubelet log, and checks once that every planted incident is found.
func BenchmarkAnalyze(b *testing.B) {
	perEra(b, func(b *testing.B, f *fixture, paths []string) {
		var res rules.Result
		for b.Loop() {
			results, errs := parser.ParseAll(paths, parser.Options{})
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			tl := timeline.Build(results, timeline.Options{})
			var err error
			if res, err = rules.Run(tl, rules.Config{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		checkFound(b, f.manifest, res)
	})
}

// BenchmarkParseAll is the parse stage alone over the same inputs, to split
// the end-to-end cost (the parser package owns its own BenchmarkParse).
func BenchmarkParseAll(b *testing.B) {
	perEra(b, func(b *testing.B, _ *fixture, paths []string) {
		for b.Loop() {
			if _, errs := parser.ParseAll(paths, parser.Options{}); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
}

// perEra runs bench once per log era over that era's generated KCM and
// kubelet logs, with MB/s and allocations reported.
func perEra(b *testing.B, bench func(b *testing.B, f *fixture, paths []string)) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			f := fixtureFor(era)
			if f.err != nil {
				b.Fatal(f.err)
			}
			b.SetBytes(f.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			bench(b, f, []string{f.kcm, f.kubelet})
		})
	}
}

func checkFound(b *testing.B, m *loggen.Manifest, res rules.Result) {
	rep := &loggen.Report{}
	for _, f := range res.Findings {
		rep.Findings = append(rep.Findings, loggen.ReportFinding{Rule: f.Rule, Volume: f.Volume, PV: f.PV})
	}
	v := loggen.Verify(m, rep)
	if !v.OK {
		for _, c := range v.Checks {
			if !c.OK {
				b.Errorf("incident %s: found %v, missing %v, unexpected %v", c.Incident, c.Found, c.Missing, c.Extra)
			}
		}
	}
	if len(v.Other) > 0 {
		b.Logf("findings on healthy volumes: %v", v.Other)
	}
}

func size0(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}
