package benchmark

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/offheap"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/report"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestHeapStages is a measuring tool, skipped unless KCMTRACE_HEAP_INPUTS
// names inputs (comma-separated). It runs the pipeline once and writes a heap
// profile after each stage into KCMTRACE_HEAP_DIR (default $TMPDIR), so the
// live memory of parse results, timeline and findings can be read with
// `go tool pprof -sample_index=inuse_space`. As the CLI does for a large
// input, the names are made off the collector's heap (internal/offheap):
// the profiles do not show them, the log gives their size. Snapshots are
// also taken where the timeline may collect (Options.CollectTables:
// "tables", once the names are linked; Options.Collect: "collect",
// before it makes the volumes).
func TestHeapStages(t *testing.T) {
	in := os.Getenv("KCMTRACE_HEAP_INPUTS")
	if in == "" {
		t.Skip("set KCMTRACE_HEAP_INPUTS=kcm.log[,kubelet.log] to run")
	}
	dir := os.Getenv("KCMTRACE_HEAP_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	snap := func(stage string) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("%-10s heap in use %4d MiB, total alloc %5d MiB, sys %4d MiB, off the heap %4d MiB", stage, ms.HeapInuse>>20, ms.TotalAlloc>>20, ms.Sys>>20, offheap.InUse()>>20)
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%s.prof", stage)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			t.Fatal(err)
		}
	}
	if disable, ok := offheap.Enable(); ok {
		defer disable()
	}
	results, errs := parser.ParseAll(strings.Split(in, ","), parser.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	n := 0
	for _, r := range results {
		n += len(r.Events)
	}
	t.Logf("%d events", n)
	snap("parse")
	tl := timeline.Build(results, timeline.Options{Consume: true, // as the CLI does
		CollectTables: func() { snap("tables") }, Collect: func() { snap("collect") }})
	snap("timeline")
	res, err := rules.Run(tl, rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	snap("rules")
	// the CLI's analyze --format json: the wire form of every volume
	if err := report.JSON(io.Discard, &report.Analysis{Timeline: tl, Result: res, Rules: rules.All(), Events: n}, report.Options{}); err != nil {
		t.Fatal(err)
	}
	snap("report")
	t.Logf("%d volumes, %d findings", len(tl.Volumes), len(res.Findings))
	runtime.KeepAlive(results)
	runtime.KeepAlive(tl)
}
