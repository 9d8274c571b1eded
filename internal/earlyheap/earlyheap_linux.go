//go:build linux && (amd64 || arm64)

package earlyheap

import (
	"syscall"
	"unsafe"
)

// The madvise advice Linux defines (syscall lacks MADV_COLLAPSE).
const (
	madvHugePage = 14
	madvCollapse = 25
)

func init() {
	godebug, _ := syscall.Getenv("GODEBUG")
	if why := skip(godebug, readSetting("/sys/kernel/mm/transparent_hugepage/enabled"),
		readSetting("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")); why != "" {
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

// readSetting returns the start of a kernel setting file ("" when it
// cannot be read), without package os (which would initialise first).
func readSetting(path string) string {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer syscall.Close(fd)
	var b [64]byte
	n, err := syscall.Read(fd, b[:])
	if err != nil || n <= 0 {
		return ""
	}
	return string(b[:n])
}
