package classifier

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestEventSize: a 1 GiB log keeps ~100k events until the report is
// written, so Event must not grow: its time is an 8-byte Stamp (a
// time.Time is 24 bytes with a pointer), its names are three pointers to shared
// tuples, what few events carry (span, count, retry, echo) a fourth,
// Text is a 16-byte reference like the string it replaced, the path a
// 4-byte PathID, the closed sets are one byte each, pids and line
// numbers four, and no field is padded (TestEventHasNoPadding).
func TestEventSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes pinned for 64-bit platforms")
	}
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"Event", unsafe.Sizeof(Event{}), 80},
		// a volume's names: two or three of these a volume on a large
		// cluster's churn, none shared with another volume
		{"Ident", unsafe.Sizeof(Ident{}), 48},
		{"Place", unsafe.Sizeof(Place{}), 48},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}

// TestEventHasNoPadding: each field of Event starts where the one before
// it ends, so a field added out of order (a byte between two words) fails
// here before it costs memory; only the end is rounded up to the word.
func TestEventHasNoPadding(t *testing.T) {
	typ := reflect.TypeFor[Event]()
	end := uintptr(0)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Offset != end {
			t.Errorf("%d bytes of padding before Event.%s", f.Offset-end, f.Name)
		}
		end = f.Offset + f.Type.Size()
	}
	if pad := typ.Size() - end; pad >= uintptr(typ.Align()) {
		t.Errorf("%d bytes of padding at the end of Event", pad)
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
