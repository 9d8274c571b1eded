package parser

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// BenchmarkParseFiles parses the files named in KCMTRACE_BENCH_FILES
// (comma-separated, e.g. the logs scripts/bench.sh generates) with ParseAll;
// it is skipped when the variable is unset.
func BenchmarkParseFiles(b *testing.B) {
	env := os.Getenv("KCMTRACE_BENCH_FILES")
	if env == "" {
		b.Skip("KCMTRACE_BENCH_FILES not set")
	}
	paths := strings.Split(env, ",")
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := ParseAll(paths, Options{}); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkIndexToken scans the first 8 MiB of the first file in
// KCMTRACE_BENCH_FILES for every token occurrence, as analyzeBlock does.
func BenchmarkIndexToken(b *testing.B) {
	env := os.Getenv("KCMTRACE_BENCH_FILES")
	if env == "" {
		b.Skip("KCMTRACE_BENCH_FILES not set")
	}
	f, err := os.Open(strings.Split(env, ",")[0])
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	data := make([]byte, 8<<20)
	n, _ := f.Read(data)
	data = data[:n]
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		hits := 0
		for s := 0; s < len(data); {
			i := indexToken(data[s:])
			if i < 0 {
				break
			}
			hits++
			// skip to the next line, as analyzeBlock does after a hit
			if j := bytes.IndexByte(data[s+i:], '\n'); j >= 0 {
				s += i + j + 1
			} else {
				break
			}
		}
		if hits == 0 {
			b.Fatal("no hits")
		}
	}
}
