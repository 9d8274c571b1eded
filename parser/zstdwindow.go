package parser

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
)

// zstdWindow passes zstd data through to the decoder, lowering each frame's
// declared window to what the frame can use. The decoder
// (klauspost/compress/zstd) allocates a frame's whole window as one ring
// before it decodes a byte: `zstd --long=31` declares 2 GiB, and in a
// process whose heap has been used before (a directory of such files, the
// fuzz run) the runtime zeroes every page of it: seconds and gigabytes for
// a file of a few hundred bytes.
//
// A match never reaches before the frame's first byte, so a window larger
// than the frame's content is never used. The content is bounded by the
// Frame_Content_Size when the header gives it (the zstd CLI writes it for a
// file), or else by the compressed bytes left: each block that yields
// content takes at least 4 bytes (3 of header, 1 of payload) and yields at
// most 128 KiB (RFC 8878, 3.1.1.2). The window written is the smallest
// power of two above the bound, and never below zstdMinWindow nor above
// what the frame declared.
//
// Anything it does not recognise (legacy frames, a reserved bit, a short
// header) is passed through untouched from there on, for the decoder to
// report.
type zstdWindow struct {
	headerRewriter
	// next is the header expected after pass.
	next zstdPart
	// checksum: the frame being read ends in a 4-byte checksum.
	checksum bool
}

// zstdPart is the kind of header zstdWindow expects next.
type zstdPart uint8

const (
	zstdFrame zstdPart = iota
	zstdBlock
	zstdChecksum
)

const (
	// zstdMaxHeader is the longest frame header: magic, descriptor,
	// window, a 4-byte dictionary ID and an 8-byte content size.
	zstdMaxHeader = 4 + 1 + 1 + 4 + 8
	// zstdMinWindow is the smallest window zstdWindow writes: above the
	// largest block, so a frame's Block_Maximum_Size never changes.
	zstdMinWindow = 1 << 20
	// zstdMaxBlock is the most a block yields (Block_Maximum_Size).
	zstdMaxBlock = 128 << 10
	// zstdFrameMagic and the skippable frames' range (RFC 8878, 3.1).
	zstdFrameMagic     = 0xFD2FB528
	zstdSkippableMagic = 0x184D2A50
	zstdSkippableMask  = 0xFFFFFFF0
)

// newZstdWindow reads zstd data from r, of size bytes when size > 0.
func newZstdWindow(r *bufio.Reader, size int64) *zstdWindow {
	z := &zstdWindow{headerRewriter: headerRewriter{r: r, size: size, hdr: make([]byte, 0, zstdMaxHeader)}}
	z.header = z.nextHeader
	return z
}

// nextHeader takes the header expected next and sets pass to the bytes
// that follow it; io.EOF at the clean end of the data.
func (z *zstdWindow) nextHeader() error {
	switch z.next {
	case zstdChecksum:
		z.pass, z.next = 4, zstdFrame
		return nil
	case zstdBlock:
		h, _ := z.r.Peek(3)
		if len(h) < 3 {
			return z.passAll()
		}
		bh := uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16
		size := int64(bh >> 3)
		switch (bh >> 1) & 3 {
		case 0, 2: // raw, compressed: size bytes follow
		case 1: // RLE: one byte, repeated size times
			size = 1
		default: // reserved
			return z.passAll()
		}
		z.take(h, 3)
		z.pass = size
		if bh&1 != 0 { // the frame's last block
			z.next = zstdFrame
			if z.checksum {
				z.next = zstdChecksum
			}
		}
		return nil
	}
	h, _ := z.r.Peek(zstdMaxHeader)
	if len(h) == 0 {
		return io.EOF
	}
	if len(h) < 5 {
		return z.passAll()
	}
	magic := binary.LittleEndian.Uint32(h)
	if magic&zstdSkippableMask == zstdSkippableMagic {
		if len(h) < 8 {
			return z.passAll()
		}
		z.take(h, 8)
		z.pass = int64(binary.LittleEndian.Uint32(h[4:8]))
		return nil
	}
	fhd := h[4]
	if magic != zstdFrameMagic || fhd&0x08 != 0 { // legacy, unknown, reserved bit
		return z.passAll()
	}
	single := fhd&0x20 != 0
	n := 5
	wd := -1 // the window descriptor's offset
	if !single {
		wd = n
		n++
	}
	n += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
	fcsLen := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcsLen == 0 && single {
		fcsLen = 1
	}
	fcs := int64(-1)
	if fcsLen > 0 && len(h) >= n+fcsLen {
		switch b := h[n : n+fcsLen]; fcsLen {
		case 1:
			fcs = int64(b[0])
		case 2:
			fcs = int64(binary.LittleEndian.Uint16(b)) + 256
		case 4:
			fcs = int64(binary.LittleEndian.Uint32(b))
		case 8:
			if v := binary.LittleEndian.Uint64(b); v <= 1<<62 {
				fcs = int64(v)
			}
		}
	}
	n += fcsLen
	if len(h) < n {
		return z.passAll()
	}
	hdr := z.take(h, n)
	if wd >= 0 {
		// the lesser of the bounds known (a header's size may lie)
		bound := fcs
		if left := z.left(); left < math.MaxInt64 {
			if b := (left/4 + 1) * zstdMaxBlock; bound < 0 || b < bound {
				bound = b
			}
		}
		if bound >= 0 {
			hdr[wd] = lowerWindow(hdr[wd], bound)
		}
	}
	z.checksum = fhd&0x04 != 0
	z.next = zstdBlock
	return nil
}

// lowerWindow returns the window descriptor of the smallest power-of-two
// window that holds content bytes (and zstdMinWindow), or wd when that is
// no smaller than the window wd describes.
func lowerWindow(wd byte, content int64) byte {
	want := max(content, zstdMinWindow)
	exp := bits.Len64(uint64(want-1)) - 10 // window = 1 << (10+exp)
	if exp > 31 {
		return wd
	}
	lower := byte(exp << 3)
	if zstdWindowSize(lower) < zstdWindowSize(wd) {
		return lower
	}
	return wd
}

// zstdWindowSize is the window a Window_Descriptor declares.
func zstdWindowSize(wd byte) int64 {
	base := int64(1) << (10 + wd>>3)
	return base + base/8*int64(wd&7)
}
