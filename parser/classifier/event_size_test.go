package classifier

import (
	"testing"
	"unsafe"
)

// TestEventSize: a 1 GiB log keeps ~100k events until the report is
// written, so Event must not grow: Text is a 16-byte reference like the
// string it replaced, and the one-byte fields share one word's padding.
func TestEventSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes pinned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(Event{}); got != 312 {
		t.Errorf("Event is %d bytes, want 312", got)
	}
}

// TestInt32Saturates: a count or pid too large for the event's 32 bits
// stays the largest instead of wrapping to a negative.
func TestInt32Saturates(t *testing.T) {
	for n, want := range map[int]int32{0: 0, 35: 35, -1: -1, 1<<31 - 1: 1<<31 - 1, 1 << 31: 1<<31 - 1, 1 << 40: 1<<31 - 1, -1 << 40: -1 << 31} {
		if got := Int32(n); got != want {
			t.Errorf("Int32(%d) = %d, want %d", n, got, want)
		}
	}
}
