// Package hugeheap asks the kernel to back the Go heap with transparent
// huge pages (2 MiB) instead of 4 KiB pages.
//
// Every 4 KiB page the heap touches for the first time costs a page fault.
// Natively that is about a quarter of a microsecond; under virtualisation
// that shadows the guest's page tables it was measured at 10–13 µs, so the
// ~100 MiB heap of a 1 GiB analysis spent a quarter of a CPU-second in
// faults. A huge page is one fault for 512 such pages. With the kernel's
// THP setting at "madvise" (the common default), only memory marked with
// madvise(MADV_HUGEPAGE) gets huge pages, and the Go runtime has not
// marked its heap since Go 1.21.1.
//
// Reserve grows the heap by a span of address space, marks it and hands it
// back: the runtime places its next allocations there (it reuses the
// lowest free addresses first). Nothing is touched, so resident memory does
// not grow until the heap does. GODEBUG=disablethp=1, the runtime's own
// switch, turns it off.
package hugeheap

import (
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/thp"
)

// hugePage is the size of a transparent huge page where advise does
// anything (Linux on x86-64 and arm64 with 4 KiB base pages).
const hugePage = 2 << 20

// Reserve grows the Go heap by n bytes of address space marked for huge
// pages, then frees them for the runtime's next allocations. It does
// nothing off Linux, on 32-bit systems (address space is scarce), for n
// under 4 MiB, with GODEBUG=disablethp=1, where the kernel never gives
// huge pages, or where it counts address space against a hard limit
// (overcommit mode 2: the span would count though never touched). Call it
// before the heap holds much: it ends with a collection, so that the span
// it freed does not raise the heap's next goal.
func Reserve(n int) {
	if !supported || unsafe.Sizeof(uintptr(0)) < 8 || n < 2*hugePage || thp.Disabled(os.Getenv("GODEBUG")) {
		return
	}
	if !thp.Usable(thp.Setting(thp.EnabledPath)) || thp.Setting(thp.OvercommitPath) == "2" {
		return
	}
	reserveFree(n)
}

// reserveFree reserves n bytes (reserve) and collects them at once, in
// one cycle: with the collector on, allocating them sets a cycle off
// (they take the heap past its goal), which runtime.GC would first wait
// for and then run another — at 128 MiB of input the reservation took
// 4.8–7.9 ms that way, 2.6–3.2 with the collector off until the one
// collection (the run 3.5 ms faster, median of 40). GOGC is restored:
// nothing else may change it meanwhile (Reserve runs at start-up, before
// the program's goroutines hold the collector off).
func reserveFree(n int) {
	old := debug.SetGCPercent(-1)
	reserve(n)
	runtime.GC()
	debug.SetGCPercent(old)
}

// reserve allocates n bytes, marks the whole huge pages among them and
// lets them go; it returns the marked range.
func reserve(n int) (beg, end uintptr) {
	return markWhole(make([]byte, n))
}

// Mark marks the whole huge pages within b, memory mapped outside the Go
// heap (internal/offheap), for huge pages, unless GODEBUG=disablethp=1;
// elsewhere than Linux it does nothing. It only advises: untouched pages
// stay unbacked.
func Mark(b []byte) {
	if supported && !thp.Disabled(os.Getenv("GODEBUG")) {
		markWhole(b)
	}
}

// markWhole advises the whole huge pages within b and returns their range.
func markWhole(b []byte) (beg, end uintptr) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg = (p + hugePage - 1) &^ (hugePage - 1)
	end = (p + uintptr(len(b))) &^ (hugePage - 1)
	if beg < end {
		advise(b[beg-p : end-p])
	}
	return beg, end
}

// HugePage is the size of a huge page where Mark and Reserve do anything.
const HugePage = hugePage
