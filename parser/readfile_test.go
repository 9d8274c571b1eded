package parser

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// withKnownSize runs f with regular files' sizes used (true) or ignored.
func withKnownSize(known bool, f func()) {
	old := knownSize
	knownSize = known
	defer func() { knownSize = old }()
	f()
}

// parseFileBothWays parses path once as a stream of unknown size and once
// as a file of known size.
func parseFileBothWays(t *testing.T, path string) (stream, sized Result) {
	t.Helper()
	parse := func(known bool) (r Result) {
		withKnownSize(known, func() {
			rs, errs := ParseAll([]string{path}, Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			r = rs[0]
		})
		return r
	}
	return parse(false), parse(true)
}

// eachAwkwardFile calls f for every shipped log (shipped) and inputs built
// to end at awkward places, with blocks of bs bytes: the default and
// blocks small enough that some lines span several.
func eachAwkwardFile(t *testing.T, f func(bs int, path string, shipped bool)) {
	files := testInputs(t)
	shipped := len(files)
	dir := t.TempDir()
	attach := "I0812 03:10:01.000001       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^vol-1\") from node \"n1\""
	extra := map[string]string{
		"no-newline.log": attach,
		"long-line.log":  "I0812 03:10:00.000001       1 event.go:291] " + strings.Repeat("x", 20000) + "\n" + attach + "\n",
		"long-last.log":  "I0812 03:10:00.000001       1 event.go:291] " + strings.Repeat("y", 9000),
		// exactly one small block without a newline: a long line
		"block-last.log": strings.Repeat("z", 5000),
		"crlf.log":       attach + "\r\n",
		"empty.log":      "",
		"one-byte.log":   "\n",
	}
	for name, text := range extra {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for _, bs := range []int{2 << 20, 5000} {
		withBlockSize(bs, func() {
			for i, p := range files {
				f(bs, p, i < shipped)
			}
		})
	}
}

// TestKnownSizeAgreesWithStream parses every awkward file with and without
// the file's size.
func TestKnownSizeAgreesWithStream(t *testing.T) {
	eachAwkwardFile(t, func(bs int, f string, _ bool) {
		stream, sized := parseFileBothWays(t, f)
		if !reflect.DeepEqual(*texttest.Canon(&stream), *texttest.Canon(&sized)) {
			t.Errorf("%s (blocks of %d): result with the size known differs:\nstream %+v\nsized  %+v", f, bs, stream.Input, sized.Input)
		}
	})
}

// TestCompressedFileSizeIgnored: a compressed file's size says nothing of
// its text, so it neither sizes the events nor counts as a shrunk file.
func TestCompressedFileSizeIgnored(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kcm.log")
	if err := os.WriteFile(p, append(append([]byte{}, gzHeaderOnly...), bytes.Repeat([]byte("x"), 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := parseSource(source{path: p}, Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st.sizeHint != 0 {
		t.Errorf("sizeHint %d for a gzip file, want 0", st.sizeHint)
	}
	for _, pr := range st.in.Problems {
		if strings.Contains(pr.Message, "shrank") {
			t.Errorf("a gzip file reported as shrunk: %q", pr.Message)
		}
	}
}

// TestFileProgress: a file reports every byte to Options.Progress, in
// several steps when it is several reads long.
func TestFileProgress(t *testing.T) {
	text, err := os.ReadFile("../testdata/catalog/examples.log")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kcm.log")
	if err := os.WriteFile(p, bytes.Repeat(text, 8), 0o644); err != nil { // > 4 reads
		t.Fatal(err)
	}
	var total int64
	calls := 0
	if _, errs := ParseAll([]string{p}, Options{Progress: func(n int64) { total += n; calls++ }}); len(errs) > 0 {
		t.Fatal(errs)
	}
	if want := int64(8 * len(text)); total != want || calls < 2 {
		t.Errorf("progress: %d bytes in %d calls, want %d bytes in several", total, calls, want)
	}
}

// TestFileShrinks: a file cut shorter after it was opened (rotated by
// copytruncate, say) ends early; the input gets a problem naming that,
// is marked truncated and keeps what was read — mapped or read with
// read(2).
func TestFileShrinks(t *testing.T) {
	line := "I0812 03:10:00.000001       1 event.go:291] some other controller's line\n"
	data := strings.Repeat(line, 3*(1<<20)/len(line))
	for _, mapped := range []bool{false, true} {
		if mapped && !canMap {
			continue
		}
		p := filepath.Join(t.TempDir(), "kcm.log")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		st := newInputState(p, 0)
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		st.sizeHint = fi.Size()
		st.file = f // as parseSource has it
		cut := int64(len(line) * 1000)
		if err := os.Truncate(p, cut); err != nil {
			t.Fatal(err)
		}
		blocks := 0
		withMapping(mapped, mapWindow, func(*chunk) { blocks++ }, func() { st.read(f, Options{}) })
		if mapped != (blocks > 0) {
			t.Errorf("mapped %v: %d blocks mapped", mapped, blocks)
		}
		res := st.alone(Options{})
		want := fmt.Sprintf("the file shrank while it was read (truncated or rotated?): %d of its %d bytes read; the lines read are kept", cut, len(data))
		if len(res.Input.Problems) != 1 || res.Input.Problems[0].Message != want || !res.Input.Truncated {
			t.Errorf("mapped %v: problems %+v, truncated %v: want only %q", mapped, res.Input.Problems, res.Input.Truncated, want)
		}
		if res.Input.Lines != 1000 || res.Input.Unaccounted() != 0 {
			t.Errorf("mapped %v: lines %d, unaccounted %d: want the 1000 lines before the cut, all accounted", mapped, res.Input.Lines, res.Input.Unaccounted())
		}
	}
}

// TestBufPoolSize: a file smaller than a block gets buffers just big
// enough to read it whole and see its end; others get blocks.
func TestBufPoolSize(t *testing.T) {
	for _, tc := range []struct {
		sizeHint int64
		want     int
	}{
		{sizeHint: 0, want: blockSize},
		{sizeHint: 100, want: 101},
		{sizeHint: int64(blockSize) - 1, want: blockSize},
		{sizeHint: int64(blockSize), want: blockSize},
		{sizeHint: 10 << 30, want: blockSize},
	} {
		p := newBufPool(2, tc.sizeHint)
		b := p.get()
		if len(b) != tc.want {
			t.Errorf("size hint %d: buffer of %d bytes, want %d", tc.sizeHint, len(b), tc.want)
		}
		p.put(b)
		if again := p.get(); &again[0] != &b[0] {
			t.Errorf("size hint %d: the buffer put back was not reused", tc.sizeHint)
		}
	}
}

// TestGzipProgressCountsText: a compressed file reports its text bytes
// (what TextSize estimates), not its compressed ones, beyond the first
// read of compressed bytes sniffed.
func TestGzipProgressCountsText(t *testing.T) {
	text, err := os.ReadFile("../testdata/catalog/examples.log")
	if err != nil {
		t.Fatal(err)
	}
	text = bytes.Repeat(text, 64)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	p := filepath.Join(t.TempDir(), "kcm.log.gz")
	if err := os.WriteFile(p, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var total int64
	if _, errs := ParseAll([]string{p}, Options{Progress: func(n int64) { total += n }}); len(errs) > 0 {
		t.Fatal(errs)
	}
	lo, hi := int64(len(text)), int64(len(text))+int64(min(gz.Len(), sniffBufSize))
	if total < lo || total > hi {
		t.Errorf("progress %d bytes, want the text's %d (+ at most the sniffed %d compressed)", total, lo, hi-lo)
	}
	if est, _ := TextSize([]string{p}); est != lo {
		t.Errorf("TextSize %d, want %d", est, lo)
	}
}

// unreadSize knows what is left of byte and string readers and of regular
// files (from their offset), and nothing of a pipe or, as a stream is
// tested, of a file whose size is ignored.
func TestUnreadSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.log")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := func(at int64) *os.File {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		f.Seek(at, 0)
		return f
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	br := bytes.NewReader([]byte("abcdef"))
	br.ReadByte()
	for _, c := range []struct {
		name  string
		r     io.Reader
		known bool
		want  int64
	}{
		{"bytes reader, one byte read", br, true, 5},
		{"strings reader", strings.NewReader("abc"), true, 3},
		{"file from its start", file(0), true, 10},
		{"file from offset 4", file(4), true, 6},
		{"file, size ignored", file(0), false, 0},
		{"pipe", pr, true, 0},
		{"other reader", io.MultiReader(strings.NewReader("abc")), true, 0},
	} {
		withKnownSize(c.known, func() {
			if got := unreadSize(c.r); got != c.want {
				t.Errorf("%s: %d, want %d", c.name, got, c.want)
			}
		})
	}
}
