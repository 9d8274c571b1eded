//go:build linux

package hugeheap

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/smapstest"
)

// TestMarkMapped: Mark marks memory mapped outside the heap (as
// internal/offheap maps it) for huge pages, and leaves it alone under
// GODEBUG=disablethp=1.
func TestMarkMapped(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	for _, tc := range []struct {
		godebug string
		marked  bool
	}{{"", true}, {"disablethp=1", false}} {
		t.Setenv("GODEBUG", tc.godebug)
		b, err := syscall.Mmap(-1, 0, 3*hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		Mark(b)
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		whole := (p + hugePage - 1) &^ (hugePage - 1) // a whole huge page of b
		flags, err := smapstest.Field(whole, "VmFlags")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(" "+flags+" ", " hg "); got != tc.marked {
			t.Errorf("GODEBUG=%q: mapping at %#x has VmFlags %q: marked %v, want %v", tc.godebug, whole, flags, got, tc.marked)
		}
		if err := syscall.Munmap(b); err != nil {
			t.Fatal(err)
		}
	}
}
