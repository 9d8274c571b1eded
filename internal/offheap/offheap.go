// Package offheap hands out memory the Go collector neither scans nor
// frees: chunks mapped from the kernel (mmap), cut in order, never
// returned. It is for what one run of the program keeps to its end and
// holds no pointer into the Go heap: the names an input's events share
// and the tuples of them (parser/textstore), which a large cluster's log
// has hundreds of thousands of. Each collection marks every object it can
// reach; with those out of its sight it has less to mark, and the heap it
// manages grows more slowly, so it runs less often (1 GiB of churn: the
// collector's CPU 108–114 → 65–70 ms of a ~0.8 CPU-s run, 16 → 12–14
// cycles). VictoriaMetrics' fastcache keeps its cache off the heap the same
// way, for the same reason. It is a bump allocator of its own rather than
// modernc.org/memory's malloc and free over mapped pages: nothing here is
// ever freed, so size classes and free lists would buy nothing, and the
// chunks must start on a huge page to be backed by huge pages.
//
// The rule that makes it safe: memory from this package must never hold
// the only reference to memory of the Go heap, because the collector does
// not see it and frees what it points to. It may hold pointers to memory of
// this package and to constants (static data). The Go heap may point
// into it freely.
//
// Nothing is handed out until the program's memory policy (internal/
// mempolicy) calls Enable for a run, and nothing is freed: memory of this
// package lives as long as the process. Disabled (the default: tests,
// library use, small inputs), Bytes and Slice are make.
package offheap

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// chunkSize is the memory mapped at a time: whole huge pages (2 MiB),
// marked for them where the kernel backs a mapping with huge pages only
// when asked (a 4 KiB fault costs ~11 µs on the VMs this was measured on:
// see internal/hugeheap).
const chunkSize = 4 << 20

var (
	enabled atomic.Bool
	mu      sync.Mutex
	cur     []byte // the rest of the current chunk
	handed  atomic.Int64
	chunks  []span // every chunk mapped, for Owns
)

type span struct{ beg, end uintptr }

// Enable makes Bytes and Slice hand out memory of this package until
// disable is called (once; later calls do nothing). It reports false and
// does nothing where mapping is not supported (disable is then a no-op).
// Memory handed out stays valid after disable.
func Enable() (disable func(), ok bool) {
	if !supported {
		return func() {}, false
	}
	enabled.Store(true)
	return sync.OnceFunc(func() { enabled.Store(false) }), true
}

// Enabled reports whether Bytes and Slice hand out memory of this package.
func Enabled() bool { return enabled.Load() }

// Bytes returns n bytes of length 0 and capacity n: zeroed memory of this
// package when enabled, else make([]byte, 0, n).
func Bytes(n int) []byte {
	if n <= 0 || !enabled.Load() {
		return make([]byte, 0, n)
	}
	p := alloc(n, 1)
	if p == nil {
		return make([]byte, 0, n)
	}
	return unsafe.Slice((*byte)(p), n)[:0]
}

// Slice returns room for n values of T, of length 0 and capacity n:
// zeroed memory of this package when enabled, else make([]T, 0, n). What
// is written into it must follow the package's rule: no pointer into the
// Go heap that nothing of the Go heap holds too.
func Slice[T any](n int) []T {
	var z T
	size, align := int(unsafe.Sizeof(z)), int(unsafe.Alignof(z))
	if n <= 0 || size == 0 || !enabled.Load() {
		return make([]T, 0, n)
	}
	p := alloc(n*size, align)
	if p == nil {
		return make([]T, 0, n)
	}
	return unsafe.Slice((*T)(p), n)[:0]
}

// alloc cuts n bytes aligned to align from the current chunk, mapping a
// new one when it lacks room (a request over half a chunk gets a mapping
// of its own); nil when mapping fails.
func alloc(n, align int) unsafe.Pointer {
	mu.Lock()
	defer mu.Unlock()
	pad := 0
	if len(cur) > 0 {
		pad = int(-uintptr(unsafe.Pointer(unsafe.SliceData(cur))) & uintptr(align-1))
	}
	if pad+n > len(cur) {
		size := chunkSize
		if n > chunkSize/2 {
			size = (n + chunkSize - 1) &^ (chunkSize - 1)
		}
		b := mapChunk(size)
		if b == nil {
			return nil
		}
		beg := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		chunks = append(chunks, span{beg, beg + uintptr(size)})
		if n > chunkSize/2 {
			handed.Add(int64(n))
			return unsafe.Pointer(unsafe.SliceData(b))
		}
		cur, pad = b, 0
	}
	p := unsafe.Pointer(unsafe.SliceData(cur[pad:]))
	cur = cur[pad+n:]
	handed.Add(int64(pad + n))
	return p
}

// InUse is the memory handed out so far, in bytes (its pages are
// resident once written).
func InUse() int64 { return handed.Load() }

// Owns reports whether p points into memory of this package: tests check
// the package's rule with it.
func Owns(p unsafe.Pointer) bool {
	a := uintptr(p)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range chunks {
		if a >= s.beg && a < s.end {
			return true
		}
	}
	return false
}
