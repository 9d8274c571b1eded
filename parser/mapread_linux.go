//go:build linux

package parser

import (
	"os"

	"golang.org/x/sys/unix"
)

const canMap = true

// mapWindow maps n bytes of f from off (a page boundary) read-only, with
// its page table filled at once (MAP_POPULATE) so that the analysis
// goroutines do not fault on it.
func mapWindow(f *os.File, off int64, n int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), off, n, unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
}

func unmapWindow(m []byte) { _ = unix.Munmap(m) }
