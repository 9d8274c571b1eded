package main

import (
	"archive/tar"
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/ulikunitz/xz"
)

// scriptArchive is the script builtin `archive OUT DIR`: it packs the
// regular files under DIR (names relative to DIR) into OUT, a .tar,
// .tar.gz, .tar.xz or .zip by its name; `archive OUT.xz FILE` xz-compresses
// one file.
func scriptArchive(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: archive OUT DIR|FILE")
	}
	out, in := ts.MkAbs(args[0]), ts.MkAbs(args[1])
	f, err := os.Create(out)
	ts.Check(err)
	defer f.Close()
	name := strings.ToLower(out)
	var w io.WriteCloser = f
	switch {
	case strings.HasSuffix(name, ".gz"):
		w = gzip.NewWriter(f)
	case strings.HasSuffix(name, ".xz"):
		xw, err := xz.NewWriter(f)
		ts.Check(err)
		w = xw
	}
	if !strings.Contains(name, ".tar") && !strings.HasSuffix(name, ".zip") {
		data, err := os.ReadFile(in)
		ts.Check(err)
		_, err = w.Write(data)
		ts.Check(err)
		ts.Check(w.Close())
		return
	}
	var add func(rel string, data []byte) error
	var closeArchive func() error
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(w)
		add = func(rel string, data []byte) error {
			fw, err := zw.Create(rel)
			if err == nil {
				_, err = fw.Write(data)
			}
			return err
		}
		closeArchive = zw.Close
	} else {
		tw := tar.NewWriter(w)
		add = func(rel string, data []byte) error {
			if err := tw.WriteHeader(&tar.Header{Name: rel, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
				return err
			}
			_, err := tw.Write(data)
			return err
		}
		closeArchive = tw.Close
	}
	ts.Check(filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(in, p)
		return add(filepath.ToSlash(rel), data)
	}))
	ts.Check(closeArchive())
	if w != io.WriteCloser(f) {
		ts.Check(w.Close())
	}
}
