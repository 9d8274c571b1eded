package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// withMmapMin runs f with files of at least n bytes read by mapping.
func withMmapMin(n int64, f func()) {
	old := mmapMin
	mmapMin = n
	defer func() { mmapMin = old }()
	f()
}

// parseFileBothWays parses path once read and once mapped.
func parseFileBothWays(t *testing.T, path string) (read, mapped Result) {
	t.Helper()
	withMmapMin(1<<62, func() {
		rs, errs := ParseAll([]string{path}, Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		read = rs[0]
	})
	withMmapMin(0, func() {
		rs, errs := ParseAll([]string{path}, Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		mapped = rs[0]
	})
	return read, mapped
}

// TestMappedAgreesWithRead parses every shipped log, and inputs built to
// end at awkward places, read and mapped, with blocks small enough that
// windows start inside pages and some lines span several windows.
func TestMappedAgreesWithRead(t *testing.T) {
	if !canMap {
		t.Skip("no mmap on this system")
	}
	files := testInputs(t)
	dir := t.TempDir()
	extra := map[string]string{
		"no-newline.log": "I0812 03:10:00.000001       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^vol-1\") from node \"n1\"",
		"long-line.log": "I0812 03:10:00.000001       1 event.go:291] " + strings.Repeat("x", 20000) + "\n" +
			"I0812 03:10:01.000001       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^vol-1\") from node \"n1\"\n",
		"long-last.log": "I0812 03:10:00.000001       1 event.go:291] " + strings.Repeat("y", 9000),
		"crlf.log":      "I0812 03:10:00.000001       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^vol-1\") from node \"n1\"\r\n",
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
			for _, f := range files {
				read, mapped := parseFileBothWays(t, f)
				if !reflect.DeepEqual(read, mapped) {
					t.Errorf("%s (blocks of %d): mapped result differs from read:\nread   %+v\nmapped %+v", f, bs, read.Input, mapped.Input)
				}
			}
		})
	}
}

// TestMappedCompressedIsRead: a compressed file is never mapped.
func TestMappedCompressedIsRead(t *testing.T) {
	f, err := os.Open("../testdata/real-logs/INDEX.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	withMmapMin(0, func() {
		if _, ok := mappable(f, fi); !ok && canMap {
			t.Error("a plain file is not mappable")
		}
	})
	p := filepath.Join(t.TempDir(), "x.log")
	if err := os.WriteFile(p, append(append([]byte{}, gzHeaderOnly...), bytes.Repeat([]byte("x"), 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gi, _ := g.Stat()
	withMmapMin(0, func() {
		if _, ok := mappable(g, gi); ok {
			t.Error("a gzip file is mappable")
		}
	})
}

// TestMappedProgress: a mapped file reports every byte to Options.Progress,
// in several steps when it spans several blocks.
func TestMappedProgress(t *testing.T) {
	if !canMap {
		t.Skip("no mmap on this system")
	}
	p := "../testdata/catalog/examples.log"
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	withBlockSize(4096, func() {
		withMmapMin(0, func() {
			var total int64
			calls := 0
			if _, errs := ParseAll([]string{p}, Options{Progress: func(n int64) { total += n; calls++ }}); len(errs) > 0 {
				t.Fatal(errs)
			}
			if total != fi.Size() || calls < 2 {
				t.Errorf("progress: %d bytes in %d calls, want %d bytes in several", total, calls, fi.Size())
			}
		})
	})
}

// TestMappedFileShrinks: a file cut shorter while it is mapped (rotated by
// copytruncate, say) faults past its new end; the input gets a problem
// naming that and keeps what was read, and nothing crashes.
func TestMappedFileShrinks(t *testing.T) {
	if !canMap {
		t.Skip("no mmap on this system")
	}
	line := "I0812 03:10:00.000001       1 event.go:291] some other controller's line\n"
	data := strings.Repeat(line, 3*(1<<20)/len(line))
	p := filepath.Join(t.TempDir(), "kcm.log")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(p, 1<<20); err != nil {
		t.Fatal(err)
	}
	all, err := mapFile(f, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	st := newInputState(p, 0)
	st.readMapped(f, all, Options{})
	res := st.alone(Options{})
	found := false
	for _, pr := range res.Input.Problems {
		found = found || strings.Contains(pr.Message, "shrank")
	}
	if !found || !res.Input.Truncated {
		t.Errorf("problems %+v, truncated %v: want the shrunk file named", res.Input.Problems, res.Input.Truncated)
	}
	if res.Input.Lines == 0 || res.Input.Unaccounted() != 0 {
		t.Errorf("lines %d, unaccounted %d: want the lines before the cut, all accounted", res.Input.Lines, res.Input.Unaccounted())
	}
}
