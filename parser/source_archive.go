package parser

// Archives: a must-gather or sosreport comes as .tar, .tar.gz/.tgz,
// .tar.xz, .tar.zst or .zip. Each log member is its own input (its own
// role, year and zone), named ARCHIVE/MEMBER, chosen by the same isLogName
// a directory walk uses. Tar members are read once, in order, into memory
// (a compressed tar cannot be read at random); zip members are read from
// the file when parsed.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// archiveExts are the names taken as archives.
var archiveExts = []string{".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.zst", ".tzst", ".zip"}

// isArchive reports a tar or zip archive by its name, or a .gz/.xz/.zst
// file whose content is a tar.
func isArchive(p string) bool {
	name := strings.ToLower(p)
	for _, ext := range archiveExts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	if strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".xz") || strings.HasSuffix(name, ".zst") {
		return isTarStream(p)
	}
	return false
}

// isTarStream reports a (possibly compressed) file whose first header is a
// tar header ("ustar" at offset 257).
func isTarStream(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	r, _, closeFn, err := decompress(f, 0)
	if err != nil {
		return false
	}
	if closeFn != nil {
		defer closeFn()
	}
	var head [262]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return false
	}
	return string(head[257:262]) == "ustar"
}

// archiveMembers lists the log members of the archive at p as sources.
func archiveMembers(p string) ([]source, error) {
	var out []source
	var err error
	if strings.HasSuffix(strings.ToLower(p), ".zip") {
		out, err = zipMembers(p)
	} else {
		out, err = tarMembers(p)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: archive holds no log files (*.log, *.log.N, *.gz, *.txt, current.log, journal dumps)", p)
	}
	return out, nil
}

// memberLog reports whether a member is a log to read: isLogName, and
// no hidden path component.
func memberLog(name string) bool {
	for _, part := range strings.Split(name, "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return false
		}
	}
	return isLogName(name)
}

func tarMembers(p string) ([]source, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, cleanPathErr(err)
	}
	defer f.Close()
	r, _, closeFn, err := decompress(f, 0)
	if err != nil {
		return nil, err
	}
	if closeFn != nil {
		defer closeFn()
	}
	tr := tar.NewReader(r)
	var out []source
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if len(out) > 0 {
				break // a truncated archive: keep the members read whole
			}
			return nil, fmt.Errorf("not a readable tar archive: %v", err)
		}
		if h.Typeflag != tar.TypeReg || !memberLog(path.Clean(h.Name)) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil && len(data) == 0 {
			continue
		}
		out = append(out, source{path: p + "/" + path.Clean(h.Name), open: func() (io.ReadCloser, int64, error) {
			return io.NopCloser(bytes.NewReader(data)), int64(len(data)), nil
		}})
	}
	return out, nil
}

func zipMembers(p string) ([]source, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("not a readable zip archive: %v", err)
	}
	var out []source
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() || !zf.Mode().IsRegular() || !memberLog(path.Clean(zf.Name)) {
			continue
		}
		out = append(out, source{path: p + "/" + path.Clean(zf.Name), open: func() (io.ReadCloser, int64, error) {
			rc, err := zf.Open()
			return rc, int64(zf.UncompressedSize64), err
		}})
	}
	// The members' readers read the archive file; it stays open for the run.
	return out, nil
}
