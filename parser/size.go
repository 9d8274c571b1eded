package parser

import (
	"encoding/binary"
	"io"
	"os"
)

// compressionRatio is what a compressed input whose text size is not
// recorded is taken to expand by: logs compress 5–10 times.
const compressionRatio = 8

// TextSize estimates how many bytes of text the regular files among paths
// hold once decompressed, sniffing each file's first bytes the way reading
// does (decompress), whatever its name: plain text counts its size, a gzip
// file the size it records (gzipTextSize) when that is believable, and any
// other compressed file compressionRatio times its size. "-" is stdin,
// counted when it is a regular file (a redirection) without moving its
// offset. ok is false when a path is not a regular file (a directory, a
// pipe): the size is then unknown. A path that cannot be read counts
// nothing (reading reports it). It is what the memory policy
// (internal/mempolicy) sizes the heap from.
func TextSize(paths []string) (total int64, ok bool) {
	for _, p := range paths {
		f := os.Stdin
		if p != "-" {
			// stat first: opening a named pipe would wait for its writer
			st, err := os.Stat(p)
			if err != nil {
				continue
			}
			if !st.Mode().IsRegular() {
				return 0, false
			}
			if f, err = os.Open(p); err != nil {
				continue
			}
		}
		n, ok := fileTextSize(f)
		if p != "-" {
			f.Close()
		}
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

// fileTextSize estimates the text size of f (TextSize), reading it only
// at offsets (ReadAt): false when it is not a regular file.
func fileTextSize(f *os.File) (int64, bool) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0, false
	}
	size := st.Size()
	var head [6]byte // the longest magic number: xz's
	n, _ := f.ReadAt(head[:], 0)
	switch {
	case gzipMagic(head[:n]):
		if isize, ok := gzipTextSize(f, size); ok {
			return isize, true
		}
		return compressionRatio * size, true
	case isCompressed(head[:n]):
		return compressionRatio * size, true
	}
	return size, true
}

// gzipTextSize reads the uncompressed size a gzip file of size bytes
// records in its last four bytes (ISIZE, RFC 1952). That is the size
// modulo 4 GiB of its last member only, so it is believed only when it is
// at least twice the compressed size (logs compress 5–10 times; a smaller
// value is a wrapped or a partial count).
func gzipTextSize(f io.ReaderAt, size int64) (int64, bool) {
	if size < 18 { // header and trailer
		return 0, false
	}
	var b [4]byte
	if _, err := f.ReadAt(b[:], size-4); err != nil {
		return 0, false
	}
	isize := int64(binary.LittleEndian.Uint32(b[:]))
	return isize, isize >= 2*size
}
