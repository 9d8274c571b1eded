package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
	"github.com/schollz/progressbar/v3"
)

// TestFetchCounter: the fetch progress sums the latest report of every
// source and role (records and windows done), says the reporting role's
// share of its window, and off a terminal counts without drawing.
func TestFetchCounter(t *testing.T) {
	var stderr bytes.Buffer
	p := newFetchProgress(env{stderr: &stderr}, false)
	if p.bar != nil {
		t.Fatal("a bar on a non-terminal")
	}
	day := 24 * time.Hour
	steps := []struct {
		src  string
		p    livesource.Progress
		want string
	}{
		{"vlogs+http://a", livesource.Progress{Role: "kcm", Records: 10, Windows: 1, Covered: time.Hour, Span: day}, "fetching: 10 records, 1 windows done (kcm 4%)"},
		{"vlogs+http://a", livesource.Progress{Role: "kcm", Records: 250, Windows: 6, Covered: 12 * time.Hour, Span: day}, "fetching: 250 records, 6 windows done (kcm 50%)"},
		{"vlogs+http://a", livesource.Progress{Role: "kubelet", Records: 7, Windows: 2, Covered: 6 * time.Hour, Span: day}, "fetching: 257 records, 8 windows done (kubelet 25%)"},
		{"loki+http://b", livesource.Progress{Role: "kcm", Records: 3, Windows: 24, Covered: day, Span: day}, "fetching: 260 records, 32 windows done (kcm 100%)"},
	}
	for i, s := range steps {
		p.report(s.src)(s.p)
		if got := p.counter.update(s.src, s.p); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
	p.finish()
	if stderr.Len() != 0 {
		t.Errorf("drew on a non-terminal: %q", stderr.String())
	}
}

// TestInputSize: the bar's total is the text size of the inputs: a
// directory sums its walked log files (the gzip one decompressed, the
// manifest left out), a file counts its text, and stdin makes the size
// unknown (a spinner).
func TestInputSize(t *testing.T) {
	dir := t.TempDir()
	plain := strings.Repeat("I0812 03:10:00.000001       1 event.go:291] a line\n", 100)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("kcm.log", []byte(plain))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(strings.Repeat(plain, 3)))
	zw.Close()
	gzPath := write("kubelet.log.1.gz", gz.Bytes())
	write("pod.yaml", []byte("kind: Pod\n"))

	if got, known := inputSize([]string{dir}); !known || got != int64(4*len(plain)) {
		t.Errorf("directory: %d (known %v), want %d", got, known, 4*len(plain))
	}
	if got, known := inputSize([]string{gzPath, "vlogs+http://h:1"}); !known || got != int64(3*len(plain)) {
		t.Errorf("gzip file: %d (known %v), want its text's %d", got, known, 3*len(plain))
	}
	if _, known := inputSize([]string{dir, "-"}); known {
		t.Error("stdin: size known")
	}
}

// TestProgressMax: a spinner when the size is unknown (none while stdin is
// typed at the terminal), a bar from progressMin, nothing below it.
func TestProgressMax(t *testing.T) {
	for _, c := range []struct {
		total        int64
		known, typed bool
		want         int64
	}{
		{0, false, false, -1},
		{0, false, true, 0},
		{progressMin - 1, true, false, 0},
		{progressMin, true, false, progressMin},
		{5 * progressMin, true, true, 5 * progressMin},
	} {
		if got := progressMax(c.total, c.known, c.typed); got != c.want {
			t.Errorf("progressMax(%d, %v, %v) = %d, want %d", c.total, c.known, c.typed, got, c.want)
		}
	}
}

// TestProgressGrows: a bar whose estimated total is reached grows rather
// than ending while reading goes on.
func TestProgressGrows(t *testing.T) {
	p := &progress{bar: progressbar.NewOptions64(100, progressbar.OptionSetWriter(io.Discard)), max: 100}
	p.add(60)
	p.add(60)
	if p.done != 120 || p.max <= 120 || p.bar.GetMax64() != p.max || p.bar.IsFinished() {
		t.Errorf("done %d, max %d (bar %d, finished %v)", p.done, p.max, p.bar.GetMax64(), p.bar.IsFinished())
	}
	var nilBar *progress
	nilBar.add(5) // a nil bar does nothing
	nilBar.finish()
}

// TestSettleWriter: the bar's frames are dropped until the settle time has
// passed (no rate measured over milliseconds), then written through.
func TestSettleWriter(t *testing.T) {
	start := time.Unix(1000, 0)
	now := start
	var out bytes.Buffer
	w := &settleWriter{w: &out, start: start, settle: time.Second, now: func() time.Time { return now }}
	for _, step := range []struct {
		after time.Duration
		frame string
		want  string
	}{
		{10 * time.Millisecond, "\rreading 900 GB/s", ""},
		{999 * time.Millisecond, "\rreading 9 GB/s", ""},
		{time.Second, "\rreading 70 MB/s", "\rreading 70 MB/s"},
		{1100 * time.Millisecond, "\rreading 71 MB/s", "\rreading 70 MB/s\rreading 71 MB/s"},
	} {
		now = start.Add(step.after)
		if n, err := w.Write([]byte(step.frame)); n != len(step.frame) || err != nil {
			t.Fatalf("write: %d, %v", n, err)
		}
		if out.String() != step.want {
			t.Errorf("at %v: %q, want %q", step.after, out.String(), step.want)
		}
	}
}

// TestStdinHint: with - reading a terminal the hint is said once on
// stderr; with stdin piped it is not.
func TestStdinHint(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		e := env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" },
			isTerminal: func(v any) bool { return tty && v != nil }}
		runEnv([]string{"analyze", "-"}, e)
		if got := strings.Count(stderr.String(), stdinHint); got != map[bool]int{true: 1, false: 0}[tty] {
			t.Errorf("stdin a terminal %v: hint said %d times; stderr %q", tty, got, stderr.String())
		}
	}
}
