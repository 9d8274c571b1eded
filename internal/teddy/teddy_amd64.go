package teddy

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Available reports whether the AVX2 kernel can run here.
var Available = cpu.X86.HasAVX2

// chunk scans the 32-byte chunks of p[0:n] at offsets 0, 32, … whose
// candidates' 3-byte windows lie inside it (offset ≤ n-34). It returns the
// offset of the first chunk with a candidate and the chunk's candidate
// positions as a bit mask; or, when there is none, the offset of the first
// position it did not examine and a zero mask.
//
//go:noescape
func chunk(p *byte, n int, m *nibbleMasks) (off int, mask uint32)

// scan runs chunk over b.
func scan(b []byte, m *nibbleMasks) (int, uint32) {
	if len(b) < 34 {
		return 0, 0
	}
	return chunk(unsafe.SliceData(b), len(b), m)
}
