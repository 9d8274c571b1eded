package exepages

import (
	"os"
	"reflect"
	"sync"

	"golang.org/x/sys/unix"
)

// The executable's releasable mappings, found once: they do not change
// while the program runs, and reading /proc/self/smaps walks the page
// tables of every mapping — ~1 ms before a 1 GiB input is parsed, 2.4–3.4
// ms after, where the madvise itself takes ~1 ms (~3.5 before the parse,
// with more of the binary resident: unmapping costs by the page).
var (
	findOnce sync.Once
	found    []mapping
)

// Release gives back the executable's resident read-only pages (see the
// package comment) and reports how many bytes of mappings it released;
// 0 when it could not read /proc/self/smaps, or when a debugger traces
// the process (its breakpoints are private copies of code pages made
// after the mappings were found). Safe while other goroutines run: a page
// they read next is faulted in again.
func Release() int {
	if traced() {
		return 0
	}
	findOnce.Do(func() {
		if b, err := os.ReadFile("/proc/self/smaps"); err == nil {
			found = releasable(parseSmaps(b), reflect.ValueOf(Release).Pointer())
		}
	})
	n := 0
	for _, m := range found {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.beg, m.end-m.beg, unix.MADV_DONTNEED); errno == 0 {
			n += int(m.end - m.beg)
		}
	}
	return n
}

// traced reports whether a tracer (a debugger) is attached: TracerPid in
// /proc/self/status is not 0.
func traced() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return true // unknown: leave the pages alone
	}
	return tracerPID(b) != "0"
}
