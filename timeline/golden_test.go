package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
)

// goldenMtime is the modification time the files are given before they
// are parsed: a log whose lines carry no year and nothing else in it or
// beside it tells one is read as of the year before its mtime (with a
// day of slack), and a checkout's files are as new as the checkout — the
// goldens would change with the day CI clones the repository (real log
// 044, "Dec 08" lines, read as 2026 from 2026-12-07 08:35 UTC on).
var goldenMtime = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// dumpOf parses paths with the real parser and dumps the timeline.
func dumpOf(t *testing.T, paths []string, opt Options) (*Timeline, []byte) {
	t.Helper()
	for _, p := range paths {
		if err := os.Chtimes(p, goldenMtime, goldenMtime); err != nil {
			t.Fatal(err)
		}
	}
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
