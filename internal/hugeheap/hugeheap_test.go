package hugeheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/smapstest"
)

// TestReserveMarksHeap: the range reserve marks is part of the heap, and
// the kernel lists it with the huge-page flag (hg in /proc/self/smaps).
func TestReserveMarksHeap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages in this kernel")
	}
	beg, end := reserve(16 << 20)
	if end-beg < 12<<20 {
		t.Fatalf("marked %d bytes of 16 MiB, want all but the unaligned ends", end-beg)
	}
	flags, err := smapstest.Field(beg, "VmFlags")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the reserved heap at %#x has VmFlags %q, want hg among them", beg, flags)
	}
}

// TestReserveCollectsOnce: the reservation is freed by one collection,
// not by the one its allocation would set off and another after it, and
// GOGC is as it was.
func TestReserveCollectsOnce(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	reserveFree(64 << 20) // far past the heap's goal
	runtime.ReadMemStats(&after)
	if n := after.NumGC - before.NumGC; n != 1 {
		t.Errorf("reserving ran %d collections, want 1", n)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after reserving = %d, want 100 as before", got)
	}
}
