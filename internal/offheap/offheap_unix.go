//go:build linux || darwin || freebsd

package offheap

import (
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/hugeheap"
	"golang.org/x/sys/unix"
)

const supported = true

// mapChunk maps size bytes of anonymous memory starting on a huge page,
// marked for huge pages (hugeheap.Mark); nil when the kernel refuses. It
// maps a huge page more than asked and uses the aligned part (the rest is
// never touched: address space, not memory).
func mapChunk(size int) []byte {
	b, err := unix.Mmap(-1, 0, size+hugeheap.HugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	off := int((p+hugeheap.HugePage-1)&^(hugeheap.HugePage-1) - p)
	b = b[off : off+size : off+size]
	hugeheap.Mark(b)
	return b
}
