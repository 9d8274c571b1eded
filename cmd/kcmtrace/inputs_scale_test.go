package main

import (
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/cpubudget"
	"github.com/kcmtrace/kcmtrace/internal/shapes"
	"github.com/kcmtrace/kcmtrace/parser"
)

// BenchmarkAnalyzeManyInputs is `kcmtrace analyze DIR` over a must-gather
// of many small logs (shapes.WriteManyInputs: per node a KCM log and a
// journald kubelet log whose clock is behind).
func BenchmarkAnalyzeManyInputs(b *testing.B) {
	for _, n := range []int{1000, 3000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if err := shapes.WriteManyInputs(dir, n); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if code := run([]string{"analyze", "--no-progress", dir}, emptyReader{}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// TestSkewFlagsLinear: 5 000 --skew flags naming kubelet logs by their
// tails among 10 000 inputs resolve within a second of processor time
// (each flag used to clean and compare every input path: 50 M), each to
// its own input.
func TestSkewFlagsLinear(t *testing.T) {
	const nodes = 5000
	var results []parser.Result
	flags := map[string]time.Duration{}
	for i := range nodes {
		for _, f := range []string{"kcm.log", "kubelet.log"} {
			results = append(results, parser.Result{Input: parser.Input{Path: fmt.Sprintf("must-gather/nodes/node-%05d/%s", i, f)}})
		}
		flags[fmt.Sprintf("node-%05d/kubelet.log", i)] = time.Duration(i) * time.Millisecond
	}
	var got map[string]time.Duration
	var err error
	cpubudget.Within(t, time.Second, "resolving 5 000 --skew flags", func() { got, err = resolveSkews(flags, results) })
	if err != nil {
		t.Fatal(err)
	}
	for i := range nodes {
		if p := fmt.Sprintf("must-gather/nodes/node-%05d/kubelet.log", i); got[p] != time.Duration(i)*time.Millisecond {
			t.Fatalf("%s: skew %s, want %s", p, got[p], time.Duration(i)*time.Millisecond)
		}
	}
	if len(got) != nodes {
		t.Fatalf("%d skews resolved, want %d", len(got), nodes)
	}
}

// TestManyInputsMemory: `analyze DIR` over a must-gather of thousands of
// one-line logs allocates a few KiB per file, not the buffers and event
// pages sized for a large log (a 64 KiB read buffer in the parser and
// another in the cluster-state sniff, a 64-event first page: 150 KiB a
// file, 1.4 GB of peak RSS at 30 k files).
func TestManyInputsMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 000 files")
	}
	const files = 2000
	dir := t.TempDir()
	if err := shapes.WriteManyInputs(dir, files); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if code := run([]string{"analyze", "--no-progress", "-o", "json", dir}, emptyReader{}, io.Discard, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / files
	t.Logf("%d bytes allocated per input", per)
	if per > 32<<10 {
		t.Errorf("analyze allocated %d KiB per one-line input, want at most 32 KiB", per>>10)
	}
}
