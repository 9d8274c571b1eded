// Package earlyheap puts the first pages of the Go heap on a transparent
// huge page while the program starts, so that what the package
// initialisers, the command line and a small run allocate costs one page
// fault instead of hundreds.
//
// On the VMs kcmtrace is measured on, a 4 KiB page touched for the first
// time costs 11–16 µs (scripts/memcost), and a run of kcmtrace touched
// ~600 of them in the heap's first 4 MiB (the heap grows by 4 MiB chunks)
// before it read a byte of input: a fifth of a small run's time. The
// runtime does not mark its heap for huge pages, and by the time main runs
// the first 2 MiB already hold small pages, which marking alone never
// turns into a huge page. So an initialiser that runs early (see below)
// collapses the 2 MiB the heap is filling into one huge page
// (madvise MADV_COLLAPSE, Linux 6.1 and later: the pages present are
// copied into it), and marks the rest of that chunk (MADV_HUGEPAGE), whose
// first touch then brings a huge page. It costs ~0.5–0.9 ms, and up to
// 4 MiB of resident memory a small run would not otherwise have held;
// where free memory is fragmented, the kernel may first compact some to
// find the huge page (the collapse is synchronous: GODEBUG=disablethp=1
// is the way out, should that ever show).
//
// It does nothing off Linux, on 32-bit systems, where the kernel's huge
// page is not 2 MiB, where its THP setting is "never", or with
// GODEBUG=disablethp=1 (the runtime's switch, which internal/hugeheap
// honours too). Errors (an older kernel, no huge page free) leave the
// heap as it was. internal/hugeheap does the same for the heap a large
// input's analysis grows into. The program imports it for its
// initialiser: import _ "github.com/kcmtrace/kcmtrace/internal/earlyheap".
// It imports only syscall, unsafe and internal/thp (which imports only
// syscall), so that the initialisation order puts it among the first: an
// import of strings moved its initialiser from the 19th of 146 to the
// 76th, after the heap had grown past its first 2 MiB.
package earlyheap

import "github.com/kcmtrace/kcmtrace/internal/thp"

// The sizes it works with: a huge page, and the chunk the Go heap grows
// by (the runtime's pallocChunkBytes on 64-bit systems).
const (
	hugePage  = 2 << 20
	heapChunk = 4 << 20
)

// Outcome is what the initialiser did, for tests and diagnostics: Region
// is the huge page it collapsed (0 when it did not try), Err the error of
// the collapse (nil when it did it), Skipped why it did not try ("" when
// it did).
var Outcome struct {
	Region  uintptr
	Err     error
	Skipped string
}

// skip returns why the heap is left alone ("" to go ahead): godebug is
// $GODEBUG, enabled the THP setting (e.g. "always [madvise] never"),
// pmdSize the kernel's huge page size, as the files say them ("" when
// unreadable: tried, the advice is harmless).
func skip(godebug, enabled, pmdSize string) string {
	switch s := thp.Trim(pmdSize); {
	case thp.Disabled(godebug):
		return "GODEBUG=disablethp=1"
	case !thp.Usable(enabled):
		return "transparent huge pages are off (never)"
	case s != "" && s != "2097152":
		return "the huge page is " + s + " bytes, not 2 MiB"
	}
	return ""
}
