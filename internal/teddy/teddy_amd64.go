package teddy

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// Available reports whether a SIMD kernel (AVX2, or AVX-512) can run here.
var Available = cpu.X86.HasAVX2

// use512 reports whether scan runs the AVX-512 kernel (chunk512: VPERMB is
// AVX512-VBMI), which examines 64 positions per step with half the
// instructions per byte of the AVX2 one. Tests switch it off to check the
// AVX2 kernel too.
var use512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI

// chunk scans the 32-byte chunks of p[0:n] at offsets 0, 32, … whose
// candidates' 3-byte windows lie inside it (offset ≤ n-34). It returns the
// offset of the first chunk with a candidate and the chunk's candidate
// positions as a bit mask; or, when there is none, the offset of the first
// position it did not examine and a zero mask.
//
//go:noescape
func chunk(p *byte, n int, m *nibbleMasks) (off int, mask uint32)

// chunk512 is chunk for 64-byte chunks (offset ≤ n-66), with AVX-512.
//
//go:noescape
func chunk512(p *byte, n int, m *nibbleMasks) (off int, mask uint64)

// scan runs the kernel over b: the offset of the first chunk with a
// candidate and its candidates (bit i: position off+i), or the first
// position not examined and a zero mask; width is the kernel's chunk size.
func scan(b []byte, m *nibbleMasks) (off int, mask uint64, width int) {
	if use512 {
		if len(b) < 66 {
			return 0, 0, 64
		}
		off, mask = chunk512(unsafe.SliceData(b), len(b), m)
		return off, mask, 64
	}
	if len(b) < 34 {
		return 0, 0, 32
	}
	off, m32 := chunk(unsafe.SliceData(b), len(b), m)
	return off, uint64(m32), 32
}
