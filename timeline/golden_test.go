package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
)

// dumpOf parses paths with the real parser and dumps the timeline.
func dumpOf(t *testing.T, paths []string, opt Options) (*Timeline, []byte) {
	t.Helper()
	res, errs := parser.ParseAll(paths, parser.Options{})
	for _, err := range errs {
		t.Fatal(err)
	}
	tl := Build(res, opt)
	var b bytes.Buffer
	if err := tl.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return tl, b.Bytes()
}

// The incident fixtures, each directory as one run.
func TestGoldenIncidents(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/incidents/*")
	n := 0
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		n++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			var in []string
			for _, f := range files {
				if strings.HasSuffix(f, ".log") || strings.HasSuffix(f, ".txt") {
					in = append(in, f)
				}
			}
			_, got := dumpOf(t, in, Options{})
			golden.Check(t, filepath.Join("testdata", "incidents", filepath.Base(dir)+".timeline"), got)
		})
	}
	if n < 3 {
		t.Fatalf("found %d incident fixtures, want ≥ 3", n)
	}
}

// The shared real logs, one file at a time.
func TestGoldenRealLogs(t *testing.T) {
	files, _ := filepath.Glob("../testdata/real-logs/*.log")
	if len(files) == 0 {
		t.Fatal("no real logs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			_, got := dumpOf(t, []string{f}, Options{})
			golden.Check(t, filepath.Join("testdata", "real-logs", strings.TrimSuffix(filepath.Base(f), ".log")+".timeline"), got)
		})
	}
}
