package main

import (
	"bytes"
	"compress/gzip"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func gzipped(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, p := range parts { // one member each
		w := gzip.NewWriter(&out)
		if _, err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// TestInputBytes: the soft memory limit follows the decompressed size of
// the input: a gzip file's recorded size when it is believable, 8 times
// the compressed size otherwise.
func TestInputBytes(t *testing.T) {
	dir := t.TempDir()
	logText := []byte(strings.Repeat("I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\"\n", 20000))
	noise := make([]byte, 100000)
	for i := range noise {
		noise[i] = byte(rand.N(256))
	}
	files := map[string][]byte{
		"plain.log":      logText,
		"log.gz":         gzipped(t, logText),
		"noise.gz":       gzipped(t, noise),                  // recorded size < 2x: not believed
		"members.gz":     gzipped(t, logText, []byte("x\n")), // the last member's size only
		"log.zst":        []byte(strings.Repeat("z", 1000)),
		"truncated.gz":   gzipped(t, logText)[:10],
		"not-really.gz":  []byte("plain text under a .gz name, long enough to have a trailer"),
		"empty-dir/keep": nil,
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	size := func(name string) float64 { return float64(len(files[name])) }
	for _, tc := range []struct {
		paths []string
		want  float64
		ok    bool
	}{
		{paths: []string{"plain.log"}, want: size("plain.log"), ok: true},
		{paths: []string{"log.gz"}, want: float64(len(logText)), ok: true},
		{paths: []string{"noise.gz"}, want: 8 * size("noise.gz"), ok: true},
		{paths: []string{"members.gz"}, want: 8 * size("members.gz"), ok: true},
		{paths: []string{"log.zst"}, want: 8 * size("log.zst"), ok: true},
		{paths: []string{"truncated.gz"}, want: 8 * size("truncated.gz"), ok: true},
		{paths: []string{"not-really.gz"}, want: 8 * size("not-really.gz"), ok: true},
		{paths: []string{"plain.log", "log.gz", "missing.log"}, want: size("plain.log") + float64(len(logText)), ok: true},
		{paths: []string{"plain.log", "empty-dir"}, ok: false},
	} {
		var paths []string
		for _, p := range tc.paths {
			paths = append(paths, filepath.Join(dir, p))
		}
		got, ok := inputBytes(paths)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("inputBytes(%v) = %v, %v; want %v, %v", tc.paths, got, ok, tc.want, tc.ok)
		}
	}
}

// TestPrepareHeap: a large input gets the soft limit of its size, and the
// model its room once parsed; a small one, GOMEMLIMIT or an input of
// unknown size leave the limit alone.
func TestPrepareHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	dir := t.TempDir()
	big := filepath.Join(dir, "kcm.log")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 512<<20); err != nil { // sparse: only its size is read
		t.Fatal(err)
	}
	small := filepath.Join(dir, "small.log")
	if err := os.WriteFile(small, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const none = math.MaxInt64
	for _, tc := range []struct {
		name              string
		paths             []string
		gomemlimit        string
		limit, afterParse int64
	}{
		{name: "large", paths: []string{big}, limit: memBase + memPerGiB/2, afterParse: memBase + memPerGiB/2 + memModelRoom},
		{name: "large with GOMEMLIMIT", paths: []string{big}, gomemlimit: "1GiB", limit: none, afterParse: none},
		{name: "small", paths: []string{small}, limit: none, afterParse: none},
		{name: "directory", paths: []string{big, dir}, limit: none, afterParse: none},
	} {
		debug.SetMemoryLimit(none)
		parsed := prepareHeap(tc.paths, func(k string) string {
			if k == "GOMEMLIMIT" {
				return tc.gomemlimit
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); got != tc.limit {
			t.Errorf("%s: limit %d, want %d", tc.name, got, tc.limit)
		}
		parsed()
		if got := debug.SetMemoryLimit(-1); got != tc.afterParse {
			t.Errorf("%s: limit once parsed %d, want %d", tc.name, got, tc.afterParse)
		}
	}
}
