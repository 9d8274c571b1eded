package parser

import (
	"os"
	"syscall"
)

// canMap says mapFile maps files here.
const canMap = true

// mapFile maps n bytes of f from off (a multiple of the page size) for
// reading, its pages read in at once (MAP_POPULATE: a fault per page cost
// more than the read(2) copy it saves).
func mapFile(f *os.File, off int64, n int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), off, n, syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
}

func unmapFile(b []byte) { syscall.Munmap(b) }
