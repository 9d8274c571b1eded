package benchmark

import (
	"encoding/json"
	"fmt"
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

// fixtureFor generates (once per process, reused on disk across processes)
// a KCM log and node B's kubelet log of the given era.
func fixtureFor(era loggen.Era) *fixture {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f := fixtures[era]; f != nil {
		return f
	}
	f := &fixture{}
	fixtures[era] = f
	size := benchSize()
	dir := filepath.Join(os.TempDir(), "kcmtrace-bench")
	base := filepath.Join(dir, fmt.Sprintf("kcm-%s-%d-seed1", era, size))
	f.kcm, f.kubelet = base+".log", base+".kubelet.log"
	mpath := base + ".manifest.json"
	if b, err := os.ReadFile(mpath); err == nil && json.Unmarshal(b, &f.manifest) == nil && exists(f.kcm) && exists(f.kubelet) {
		f.bytes = size0(f.kcm) + size0(f.kubelet)
		return f
	}
	if f.err = os.MkdirAll(dir, 0o755); f.err != nil {
		return f
	}
	kcm, err := os.Create(f.kcm + ".part")
	if err != nil {
		f.err = err
		return f
	}
	kl, err := os.Create(f.kubelet + ".part")
	if err != nil {
		kcm.Close()
		f.err = err
		return f
	}
	f.manifest, f.err = loggen.Generate(kcm, loggen.Config{Size: size, Era: era, Seed: 1, Kubelet: kl})
	kcm.Close()
	kl.Close()
	if f.err != nil {
		return f
	}
	b, _ := json.MarshalIndent(f.manifest, "", "  ")
	for _, e := range []error{
		os.Rename(f.kcm+".part", f.kcm),
		os.Rename(f.kubelet+".part", f.kubelet),
		os.WriteFile(mpath, b, 0o644),
	} {
		if e != nil && f.err == nil {
			f.err = e
		}
	}
	f.bytes = size0(f.kcm) + size0(f.kubelet)
	return f
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
func size0(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// BenchmarkAnalyze runs the whole pipeline (parse both logs, build the
// timeline, run every rule) over a generated 32 MiB KCM log plus node B's
// kubelet log, and checks once that every planted incident is found.
func BenchmarkAnalyze(b *testing.B) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			f := fixtureFor(era)
			if f.err != nil {
				b.Fatal(f.err)
			}
			paths := []string{f.kcm, f.kubelet}
			b.SetBytes(f.bytes)
			b.ReportAllocs()
			b.ResetTimer()
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
}

// BenchmarkParseAll is the parse stage alone over the same inputs, to split
// the end-to-end cost (the parser package owns its own BenchmarkParse).
func BenchmarkParseAll(b *testing.B) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			f := fixtureFor(era)
			if f.err != nil {
				b.Fatal(f.err)
			}
			paths := []string{f.kcm, f.kubelet}
			b.SetBytes(f.bytes)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, errs := parser.ParseAll(paths, parser.Options{}); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
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
