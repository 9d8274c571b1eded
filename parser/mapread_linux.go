//go:build linux

package parser

import (
	"os"

	"golang.org/x/sys/unix"
)

const canMap = true

// mapFile maps the first size bytes of f read-only. Nothing is read yet:
// populatePages fills in the page table of each block.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(m []byte) { _ = unix.Munmap(m) }

// populatePages fills in the page table for b, whole pages of a mapping,
// so that the analysis goroutines do not fault on them. It is only a hint:
// where it fails (before Linux 5.14; past the end of a file that shrank)
// the pages fault in when read.
func populatePages(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_POPULATE_READ)
	}
}

// dropPages removes the whole pages b covers from the mapping's page table
// (they stay in the page cache: a later read faults them back in), so
// they no longer count as resident memory.
func dropPages(b []byte) {
	if len(b) > 0 {
		_ = unix.Madvise(b, unix.MADV_DONTNEED)
	}
}
