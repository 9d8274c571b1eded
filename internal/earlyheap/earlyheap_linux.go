//go:build linux && (amd64 || arm64)

package earlyheap

import (
	"syscall"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/thp"
)

// The madvise advice Linux defines (syscall lacks MADV_COLLAPSE).
const (
	madvHugePage = 14
	madvCollapse = 25
)

func init() {
	godebug, _ := syscall.Getenv("GODEBUG")
	if why := skip(godebug, thp.Setting(thp.EnabledPath), thp.Setting(thp.PMDSizePath)); why != "" {
		Outcome.Skipped = why
		return
	}
	// where the heap is filling now: a new small object is cut from the
	// span its size class is being filled from
	at := uintptr(unsafe.Pointer(new([64]byte)))
	chunk := at &^ (heapChunk - 1)
	Outcome.Region = at &^ (hugePage - 1)
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, chunk, heapChunk, madvHugePage)
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, Outcome.Region, hugePage, madvCollapse); errno != 0 {
		Outcome.Err = errno
	}
}
