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
