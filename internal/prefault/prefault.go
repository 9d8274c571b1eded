// Package prefault maps the memory of large new arrays writable before
// they are filled.
//
// Fresh anonymous memory that is read before it is written maps the
// kernel's shared zero page; the first write then faults a second time and
// flushes the TLB of every CPU the process runs on (an inter-processor
// interrupt, slow under virtualisation). Two readers get there first:
//
//   - the write barrier, which reads each destination slot when pointerful
//     values are copied (append, copy) while the collector is marking;
//   - the collector itself, which scans a large array of pointerful values
//     as soon as a cycle starts, however little of it is filled yet. Its
//     allocation often starts that cycle.
//
// Slice writes one zero byte into every page first, which takes one
// ordinary fault per page instead. Make also holds the collector off
// (HoldCollector) from the allocation until every page is written, so no
// cycle can scan the array before. On a 1 GiB input prefaulting saved about
// a third of a CPU-second (flattening and gathering ~64k events of ~380
// bytes each), and holding the collector off another 20–35 ms. An array without
// pointers is never scanned: Slice is enough for it.
//
// Holding the collector off changes a process-wide setting (GOGC), which a
// library must not do on its own: HoldCollector does nothing unless the
// program's memory policy allows holds (AllowHolds, called by
// internal/mempolicy for the run of the CLI). Parser, timeline and rules
// only say where a large array is being filled; whether the collector is
// held then is the policy's decision.
package prefault

import (
	"runtime/debug"
	"sync"
	"unsafe"
)

// pageSize is the smallest page size of the platforms Go runs on; touching
// every 4 KiB is enough for larger pages too.
const pageSize = 4096

// Slice writes a zero byte into every page of the backing array of s (up
// to its capacity) and returns s. The array must be zero (as make returns
// it): the writes change no value, so the collector sees nothing.
func Slice[T any](s []T) []T { return Prefix(s, cap(s)) }

// Prefix is Slice for the pages of the first n elements of the backing
// array of s only (at most its capacity): the rest, a margin that may
// never be used, stays unmapped until it is written.
func Prefix[T any](s []T, n int) []T {
	n = min(max(n, 0), cap(s))
	if n == 0 {
		return s
	}
	var zero T
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(n)*unsafe.Sizeof(zero))
	for i := 0; i < len(b); i += pageSize {
		b[i] = 0
	}
	return s
}

// Make returns make([]T, n, c) prefaulted (Slice), with the collector held
// off (HoldCollector) until every page is written.
func Make[T any](n, c int) []T {
	release := HoldCollector()
	defer release()
	return Slice(make([]T, n, c))
}

// MakeFor is Make(0, c) for an array that likely holds about likely
// elements: only their pages are written (Prefix), with the collector held
// off until then. The margin past them stays unmapped unless it is used.
func MakeFor[T any](c, likely int) []T {
	release := HoldCollector()
	defer release()
	return Prefix(make([]T, 0, c), likely)
}

// holdPercent is the GOGC value while the collector is held off: the heap
// may grow ~10000 times its live size before a cycle starts (the memory
// limit, when one is set, still starts one sooner).
const holdPercent = 1 << 20

// hold counts the callers holding the collector off and keeps the GOGC
// value to restore when the last lets go; allowed is whether holds may be
// taken (AllowHolds).
var hold struct {
	sync.Mutex
	n       int
	old     int
	allowed bool
}

// AllowHolds lets HoldCollector hold the collector off until revoke is
// called (once; later calls do nothing). It is for the program's memory
// policy (internal/mempolicy), not for library code. Holds taken before
// revoke still end at their release, restoring GOGC as usual.
func AllowHolds() (revoke func()) {
	hold.Lock()
	hold.allowed = true
	hold.Unlock()
	return sync.OnceFunc(func() {
		hold.Lock()
		hold.allowed = false
		hold.Unlock()
	})
}

// SetGCPercent sets GOGC to p, as debug.SetGCPercent does, and returns
// the value before; while a hold is in force it leaves the hold's value
// and makes p what the last release restores (and returns the value that
// release would have restored). It is how the memory policy changes GOGC
// during a run without a hold undoing it.
func SetGCPercent(p int) (old int) {
	hold.Lock()
	defer hold.Unlock()
	if hold.n > 0 {
		old, hold.old = hold.old, p
		return old
	}
	return debug.SetGCPercent(p)
}

// HoldCollector keeps the garbage collector from starting a new cycle,
// except for the memory limit, until release is called (once; later calls
// do nothing), when holds are allowed (AllowHolds); otherwise it does
// nothing. A cycle already running goes on, but it does not scan what
// is allocated meanwhile. Holds nest across goroutines: GOGC is restored
// when the last is released. It is for the short time between allocating a
// large array and writing its pages; holding longer lets the heap grow.
func HoldCollector() (release func()) {
	hold.Lock()
	if !hold.allowed {
		hold.Unlock()
		return func() {}
	}
	if hold.n == 0 {
		hold.old = debug.SetGCPercent(holdPercent)
	}
	hold.n++
	hold.Unlock()
	return sync.OnceFunc(func() {
		hold.Lock()
		if hold.n--; hold.n == 0 {
			debug.SetGCPercent(hold.old)
		}
		hold.Unlock()
	})
}
