package prefault

import (
	"syscall"
	"testing"
	"unsafe"
)

// resident counts the resident pages of b (mincore).
func resident(t *testing.T, b []byte) int {
	t.Helper()
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec)))); errno != 0 {
		t.Skipf("mincore: %v", errno)
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// TestMakeForLeavesTheMarginUnmapped: the pages of the likely elements
// are resident after MakeFor, those of the margin past them are not. (A
// fresh array of 256 MiB comes from memory the process never used; huge
// pages may map up to 2 MiB past what was written, so the margin is
// checked from 4 MiB on.)
func TestMakeForLeavesTheMarginUnmapped(t *testing.T) {
	const size, likely = 256 << 20, 16 << 20
	s := MakeFor[byte](size, likely)
	b := unsafe.Slice(unsafe.SliceData(s), size)
	if got, want := resident(t, b[:likely]), likely/pageSize; got != want {
		t.Errorf("%d of the %d pages written are resident", got, want)
	}
	margin := b[likely+4<<20:]
	if got := resident(t, margin); got > len(margin)/pageSize/100 {
		t.Errorf("%d of the margin's %d pages are resident", got, len(margin)/pageSize)
	}
}
