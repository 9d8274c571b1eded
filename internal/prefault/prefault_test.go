package prefault

import "testing"

type event struct {
	s   string
	p   *int
	n   int
	pad [200]byte
}

// TestSliceKeepsZeroAndLength: Slice returns s unchanged (length,
// capacity, every value zero) for arrays smaller and larger than a page,
// and for empty ones.
func TestSliceKeepsZeroAndLength(t *testing.T) {
	for _, c := range []int{0, 1, 7, 20, 5000} {
		s := Slice(make([]event, 0, c))
		if len(s) != 0 || cap(s) != c {
			t.Fatalf("cap %d: got len %d cap %d", c, len(s), cap(s))
		}
		for i, v := range s[:c] {
			if v.s != "" || v.p != nil || v.n != 0 || v.pad != [200]byte{} {
				t.Fatalf("cap %d: element %d changed: %+v", c, i, v)
			}
		}
	}
}

func BenchmarkSlice(b *testing.B) {
	const n = 64 << 10
	b.SetBytes(n * int64(len(event{}.pad)+32))
	for b.Loop() {
		_ = Slice(make([]event, 0, n))
	}
}
