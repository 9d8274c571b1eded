package offheap

import (
	"sync"
	"testing"
	"unsafe"
)

// enable turns the package on for one test (tests of this package do not
// run in parallel: Enable is process-wide).
func enable(t *testing.T) {
	t.Helper()
	disable, ok := Enable()
	if !ok {
		t.Skip("no off-heap memory on this platform")
	}
	t.Cleanup(disable)
}

func TestDisabledIsMake(t *testing.T) {
	if Enabled() {
		t.Fatal("enabled before any Enable")
	}
	b := Bytes(100)
	if len(b) != 0 || cap(b) != 100 || Owns(unsafe.Pointer(unsafe.SliceData(b))) {
		t.Fatalf("Bytes(100) disabled: len %d cap %d, off-heap %v", len(b), cap(b), Owns(unsafe.Pointer(unsafe.SliceData(b))))
	}
	s := Slice[[3]string](7)
	if len(s) != 0 || cap(s) != 7 || Owns(unsafe.Pointer(unsafe.SliceData(s))) {
		t.Fatalf("Slice(7) disabled: len %d cap %d", len(s), cap(s))
	}
}

func TestEnabledHandsOutMappedMemory(t *testing.T) {
	enable(t)
	before := InUse()
	type tuple struct {
		a, b, c string
		n       int32
	}
	for _, n := range []int{1, 3, 256, 1000} {
		s := Slice[tuple](n)
		if len(s) != 0 || cap(s) != n {
			t.Fatalf("Slice(%d): len %d cap %d", n, len(s), cap(s))
		}
		p := unsafe.Pointer(unsafe.SliceData(s))
		if !Owns(p) {
			t.Fatalf("Slice(%d) is not off-heap memory", n)
		}
		if uintptr(p)%unsafe.Alignof(tuple{}) != 0 {
			t.Fatalf("Slice(%d) at %p: not aligned to %d", n, p, unsafe.Alignof(tuple{}))
		}
		s = s[:n]
		for i := range s {
			if s[i] != (tuple{}) {
				t.Fatalf("Slice(%d)[%d] not zero: %+v", n, i, s[i])
			}
			s[i] = tuple{"x", "y", "z", int32(i)}
		}
	}
	b := Bytes(5)
	if !Owns(unsafe.Pointer(unsafe.SliceData(b))) || cap(b) != 5 {
		t.Fatal("Bytes(5) is not 5 bytes of off-heap memory")
	}
	if InUse() <= before {
		t.Fatalf("InUse %d after allocations, %d before", InUse(), before)
	}
	// a request over half a chunk gets a mapping of its own, whole
	big := Bytes(chunkSize + 1)
	big = big[:cap(big)]
	big[0], big[len(big)-1] = 1, 2
	if !Owns(unsafe.Pointer(&big[len(big)-1])) {
		t.Fatal("the end of a large request is not off-heap memory")
	}
	// the Go heap is not off-heap memory
	if Owns(unsafe.Pointer(new(int))) {
		t.Fatal("a heap object is reported off-heap")
	}
}

func TestDisableStops(t *testing.T) {
	disable, ok := Enable()
	if !ok {
		t.Skip("no off-heap memory on this platform")
	}
	disable()
	disable() // a second call does nothing
	if Enabled() {
		t.Fatal("enabled after disable")
	}
	if Owns(unsafe.Pointer(unsafe.SliceData(Bytes(16)))) {
		t.Fatal("off-heap memory handed out after disable")
	}
}

// TestConcurrent cuts memory from many goroutines (run under -race): no
// two allocations overlap.
func TestConcurrent(t *testing.T) {
	enable(t)
	const workers, each = 8, 2000
	got := make([][]uintptr, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				b := Bytes(24)[:24]
				b[0], b[23] = byte(w), byte(w)
				got[w] = append(got[w], uintptr(unsafe.Pointer(&b[0])))
			}
		})
	}
	wg.Wait()
	seen := map[uintptr]bool{}
	for w := range got {
		for _, p := range got[w] {
			for q := p; q < p+24; q += 8 {
				if seen[q] {
					t.Fatalf("allocations overlap at %#x", q)
				}
				seen[q] = true
			}
		}
	}
}
