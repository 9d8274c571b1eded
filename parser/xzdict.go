package parser

import (
	"bufio"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
)

// xzDict passes xz data through to the decoder, lowering each block's
// declared LZMA2 dictionary to what the block can use. The decoder
// (ulikunitz/xz) allocates the dictionary a block's header declares before
// it decodes a byte: `xz -9` declares 64 MiB, and a header may declare up
// to 4 GiB; in a process whose heap has been used before (a directory or
// an sosreport of such files) the runtime zeroes every page of it. Three
// crafted 3 KiB files took 14 s and 3 GiB.
//
// A block starts with an empty dictionary, so one larger than the block's
// uncompressed data is never used. That size is in the block's header when
// the encoder wrote it (xz -T does); else it is summed from the headers of
// the block's LZMA2 chunks that are already read (all of them in a file
// that fits the read buffer), and bounded for the rest by the compressed
// bytes left: an LZMA2 chunk yields at most 2 MiB and takes at least 10
// bytes (5 of header, 5 that start its range decoder; an uncompressed
// chunk yields at most 64 KiB for at least 4). Large files from a single
// thread keep their dictionary (64 MiB for xz -9). The
// dictionary written is the smallest LZMA2 size above the bound (at least
// 4 KiB), never above what the block declared; the header's CRC32 is
// written again to match.
//
// Blocks are found by walking their LZMA2 chunks' headers (or skipping
// their compressed size when the header gives it). Once the stream's
// index is reached, or anything is not understood (another last filter, a
// reserved control byte, a header longer than can be peeked), the rest is
// passed through untouched, for the decoder to judge: a second stream
// concatenated to the first keeps its dictionaries.
type xzDict struct {
	headerRewriter
	// next is the part expected after pass.
	next xzPart
	// check is the size of each block's check (the stream's flags).
	check int64
	// block counts the bytes of the block being read, header included, for
	// its padding to a multiple of four.
	block int64
}

// xzPart is the part of an xz stream xzDict expects next.
type xzPart uint8

const (
	xzStream   xzPart = iota // the stream header
	xzBlock                  // a block header, or the index
	xzChunk                  // an LZMA2 chunk of a block
	xzBlockEnd               // a block's padding and check
)

const (
	// xzStreamHeader is the stream header's size: magic, flags, CRC32.
	xzStreamHeader = 12
	// xzFilterLZMA2 is LZMA2's filter ID.
	xzFilterLZMA2 = 0x21
	// xzMinDict is the smallest dictionary xzDict writes (LZMA2's
	// smallest is 4 KiB).
	xzMinDict = 4 << 10
	// lzma2MaxChunk is the most an LZMA2 chunk yields; lzma2MinChunk is
	// the fewest bytes an LZMA chunk takes (control byte, sizes, the 5
	// bytes that start its range decoder).
	lzma2MaxChunk = 2 << 20
	lzma2MinChunk = 10
)

// xzCheckSizes is the size of a block's check for each check ID of the
// stream flags (xz file format 1.2.0, 2.1.1.2).
var xzCheckSizes = [16]int64{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// newXZDict reads xz data from r, of size bytes when size > 0.
func newXZDict(r *bufio.Reader, size int64) *xzDict {
	x := &xzDict{headerRewriter: headerRewriter{r: r, size: size}}
	x.header = x.nextPart
	return x
}

// nextPart takes the part expected next (rewriting a block header) and sets
// pass to the bytes that follow it; io.EOF at the clean end of the data.
func (x *xzDict) nextPart() error {
	switch x.next {
	case xzStream:
		h, _ := x.r.Peek(xzStreamHeader)
		if len(h) == 0 {
			return io.EOF
		}
		if len(h) < xzStreamHeader || !xzMagic(h) {
			return x.passAll()
		}
		x.check = xzCheckSizes[h[7]&15]
		x.pass, x.next = xzStreamHeader, xzBlock
		return nil
	case xzChunk:
		return x.chunk()
	case xzBlockEnd:
		x.pass, x.next = (4-x.block%4)%4+x.check, xzBlock
		return nil
	}
	h, _ := x.r.Peek(1)
	if len(h) == 0 || h[0] == 0 { // the index (or a cut stream)
		return x.passAll()
	}
	n := (int(h[0]) + 1) * 4
	if h, _ = x.r.Peek(n); len(h) < n {
		return x.passAll()
	}
	hdr := x.take(h, n)
	dict, compressed, ok := x.blockDict(hdr)
	if !ok {
		return x.passAll()
	}
	if dict >= 0 {
		binary.LittleEndian.PutUint32(hdr[n-4:], crc32.ChecksumIEEE(hdr[:n-4]))
	}
	x.block = int64(n)
	if compressed >= 0 {
		x.pass, x.block, x.next = compressed, x.block+compressed, xzBlockEnd
		return nil
	}
	x.next = xzChunk
	return nil
}

// blockDict reads block header hdr, lowers its LZMA2 dictionary in place,
// and returns the offset of the dictionary byte (-1 when it is unchanged)
// and the compressed size the header gives (-1 when none); ok is false
// for a header it does not understand.
func (x *xzDict) blockDict(hdr []byte) (dict int, compressed int64, ok bool) {
	body := hdr[:len(hdr)-4]
	flags := body[1]
	if flags&0x3c != 0 || crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(hdr[len(body):]) {
		return 0, 0, false // reserved bits, or a corrupt header (its CRC32 is not made right)
	}
	i := 2
	compressed, uncompressed := int64(-1), int64(-1)
	if flags&0x40 != 0 {
		if compressed, i, ok = xzVLI(body, i); !ok {
			return 0, 0, false
		}
	}
	if flags&0x80 != 0 {
		if uncompressed, i, ok = xzVLI(body, i); !ok {
			return 0, 0, false
		}
	}
	var id, props int64
	for range int(flags&3) + 1 {
		if id, i, ok = xzVLI(body, i); !ok {
			return 0, 0, false
		}
		if props, i, ok = xzVLI(body, i); !ok || props > int64(len(body)-i) {
			return 0, 0, false
		}
		i += int(props)
	}
	if id != xzFilterLZMA2 || props != 1 { // LZMA2 is always the last filter
		return 0, 0, false
	}
	dict = i - 1
	// the least of the bounds known (a header's size may lie)
	avail := x.left()
	if compressed >= 0 {
		avail = min(avail, compressed)
	}
	ahead, _ := x.r.Peek(x.r.Size()) // the block's first chunks, already read
	bound := lzma2Yield(ahead, avail)
	if uncompressed >= 0 && (bound < 0 || uncompressed < bound) {
		bound = uncompressed
	}
	if bound < 0 {
		return -1, compressed, true
	}
	code := lowerDictCode(body[dict], bound)
	if code == body[dict] {
		return -1, compressed, true
	}
	body[dict] = code
	return dict, compressed, true
}

// chunk passes one LZMA2 chunk of the block being read, or its end.
func (x *xzDict) chunk() error {
	h, _ := x.r.Peek(5)
	n, _, end, ok := lzma2Chunk(h)
	if !ok {
		return x.passAll()
	}
	if end {
		x.next = xzBlockEnd
	}
	x.pass, x.block = n, x.block+n
	return nil
}

// lzma2Chunk reads the LZMA2 chunk header at the start of h: the chunk's
// size (header included) and what it yields; end for the end of the
// block's data (one byte); ok false when h is short or not a chunk header.
func lzma2Chunk(h []byte) (size, yields int64, end, ok bool) {
	if len(h) == 0 {
		return 0, 0, false, false
	}
	switch c := h[0]; {
	case c == 0:
		return 1, 0, true, true
	case c <= 2: // uncompressed
		if len(h) < 3 {
			return 0, 0, false, false
		}
		n := int64(binary.BigEndian.Uint16(h[1:3])) + 1
		return 3 + n, n, false, true
	case c >= 0x80: // LZMA, with new properties from 0xc0
		if len(h) < 5 {
			return 0, 0, false, false
		}
		size = 5 + int64(binary.BigEndian.Uint16(h[3:5])) + 1
		if c >= 0xc0 {
			size++
		}
		return size, int64(c&0x1f)<<16 + int64(binary.BigEndian.Uint16(h[1:3])) + 1, false, true
	}
	return 0, 0, false, false
}

// lzma2Yield bounds what the LZMA2 data at the start of b yields, walking
// the chunk headers b holds: exact when b holds the data's end, else what
// the chunks walked yield and, for the avail bytes of the data not walked
// (avail: all the data's bytes, math.MaxInt64 when not known), 2 MiB for
// every lzma2MinChunk of them; -1 when nothing bounds it.
func lzma2Yield(b []byte, avail int64) int64 {
	var yields, walked int64
	for {
		size, y, end, ok := lzma2Chunk(b)
		if ok && end {
			return yields
		}
		if !ok || size > int64(len(b)) {
			break
		}
		yields, walked, b = yields+y, walked+size, b[size:]
	}
	if avail == math.MaxInt64 {
		return -1
	}
	return yields + (max(avail-walked, 0)/lzma2MinChunk+1)*lzma2MaxChunk
}

// xzVLI reads the variable-length integer of b at i (xz's multibyte
// encoding: 7 bits a byte, at most 9 bytes) and returns it and where it
// ends.
func xzVLI(b []byte, i int) (v int64, end int, ok bool) {
	for k := 0; k < 9 && i+k < len(b); k++ {
		c := b[i+k]
		v |= int64(c&0x7f) << (7 * k)
		if c&0x80 == 0 {
			return v, i + k + 1, v >= 0 && (k == 0 || c != 0)
		}
	}
	return 0, 0, false
}

// lowerDictCode returns the LZMA2 dictionary code of the smallest
// dictionary that holds content bytes (and xzMinDict), or code when that is
// no smaller than the dictionary code declares.
func lowerDictCode(code byte, content int64) byte {
	want := max(content, xzMinDict)
	for c := byte(0); c < code && c < 40; c++ {
		if lzma2DictSize(c) >= want {
			return c
		}
	}
	return code
}

// lzma2DictSize is the dictionary an LZMA2 properties byte declares: 2 or
// 3 times a power of two from 4 KiB, and 4 GiB - 1 for 40.
func lzma2DictSize(code byte) int64 {
	if code >= 40 {
		return 1<<32 - 1
	}
	return int64(2|code&1) << (code/2 + 11)
}
