package parser

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// useTeddy reports whether the AVX2 kernel can run here.
var useTeddy = cpu.X86.HasAVX2

// teddyChunk scans the 32-byte chunks of p[0:n] at offsets 0, 32, … whose
// candidates' 3-byte windows lie inside it (offset ≤ n-34). It returns the
// offset of the first chunk with a candidate and the chunk's candidate
// positions as a bit mask; or, when there is none, the offset of the first
// position it did not examine and a zero mask.
//
//go:noescape
func teddyChunk(p *byte, n int, m *teddyMasks) (off int, mask uint32)

// teddyScan runs teddyChunk over b.
func teddyScan(b []byte, m *teddyMasks) (int, uint32) {
	if len(b) < 34 {
		return 0, 0
	}
	return teddyChunk(unsafe.SliceData(b), len(b), m)
}
