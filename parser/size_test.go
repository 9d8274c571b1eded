package parser

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipMembers returns the gzip stream of parts, one member each.
func gzipMembers(t *testing.T, parts ...[]byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, p := range parts {
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

// TestTextSize: the estimate follows the decompressed size of the input,
// told by the first bytes as reading tells it and not by the name: a gzip
// file's recorded size when it is believable, 8 times the compressed size
// otherwise, plain text as it is.
func TestTextSize(t *testing.T) {
	dir := t.TempDir()
	logText := []byte(strings.Repeat("I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\"\n", 20000))
	noise := make([]byte, 100000)
	for i := range noise {
		noise[i] = byte(rand.N(256))
	}
	zstdData := append([]byte{0x28, 0xb5, 0x2f, 0xfd}, strings.Repeat("z", 996)...)
	files := map[string][]byte{
		"plain.log":      logText,
		"log.gz":         gzipMembers(t, logText),
		"noise.gz":       gzipMembers(t, noise),                  // recorded size < 2x: not believed
		"members.gz":     gzipMembers(t, logText, []byte("x\n")), // the last member's size only
		"log.zst":        zstdData,
		"truncated.gz":   gzipMembers(t, logText)[:10],
		"not-really.gz":  []byte("plain text under a .gz name, long enough to have a trailer"),
		"gzip-named.log": gzipMembers(t, logText), // compressed under a plain name
		"zstd-named.txt": zstdData,
		"tiny.log":       []byte("x"), // shorter than any magic number
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
	size := func(name string) int64 { return int64(len(files[name])) }
	for _, tc := range []struct {
		paths []string
		want  int64
		ok    bool
	}{
		{paths: []string{"plain.log"}, want: size("plain.log"), ok: true},
		{paths: []string{"log.gz"}, want: int64(len(logText)), ok: true},
		{paths: []string{"noise.gz"}, want: 8 * size("noise.gz"), ok: true},
		{paths: []string{"members.gz"}, want: 8 * size("members.gz"), ok: true},
		{paths: []string{"log.zst"}, want: 8 * size("log.zst"), ok: true},
		{paths: []string{"truncated.gz"}, want: 8 * size("truncated.gz"), ok: true},
		{paths: []string{"not-really.gz"}, want: size("not-really.gz"), ok: true},
		{paths: []string{"gzip-named.log"}, want: int64(len(logText)), ok: true},
		{paths: []string{"zstd-named.txt"}, want: 8 * size("zstd-named.txt"), ok: true},
		{paths: []string{"tiny.log"}, want: 1, ok: true},
		{paths: []string{"plain.log", "log.gz", "missing.log"}, want: size("plain.log") + int64(len(logText)), ok: true},
		{paths: []string{"plain.log", "empty-dir"}, ok: false},
	} {
		var paths []string
		for _, p := range tc.paths {
			paths = append(paths, filepath.Join(dir, p))
		}
		got, ok := TextSize(paths)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("TextSize(%v) = %v, %v; want %v, %v", tc.paths, got, ok, tc.want, tc.ok)
		}
	}
}

// TestTextSizeStdin: "-" is stdin, counted (compressed or not) when it is
// a regular file, without moving its offset; a pipe's size is unknown.
func TestTextSizeStdin(t *testing.T) {
	logText := []byte(strings.Repeat("I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\"\n", 2000))
	dir := t.TempDir()
	stdin := os.Stdin
	defer func() { os.Stdin = stdin }()
	for name, tc := range map[string]struct {
		data []byte
		want int64
	}{
		"plain": {logText, int64(len(logText))},
		"gzip":  {gzipMembers(t, logText), int64(len(logText))},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		os.Stdin = f
		got, ok := TextSize([]string{"-"})
		if !ok || got != tc.want {
			t.Errorf("%s: TextSize(-) = %d, %v; want %d, true", name, got, ok, tc.want)
		}
		if off, _ := f.Seek(0, io.SeekCurrent); off != 0 {
			t.Errorf("%s: stdin's offset moved to %d", name, off)
		}
		f.Close()
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	os.Stdin = r
	if got, ok := TextSize([]string{"-"}); ok {
		t.Errorf("TextSize(-) of a pipe = %d, true; want unknown", got)
	}
}
