package parser

import (
	"bufio"
	"math"
)

// headerRewriter passes compressed data through to its decoder, letting a
// format's header function rewrite the headers that sit between the runs
// of bytes it copies as they are: zstdWindow and xzDict lower the window a
// header declares to what the data after it can use, since the decoders
// allocate the declared window whole before decoding a byte.
type headerRewriter struct {
	r *bufio.Reader
	// size is the compressed data's size when known (0 otherwise), used
	// counts the bytes taken from r.
	size, used int64
	// hdr holds the last header taken from r; out is what of it is still
	// to be given out.
	hdr, out []byte
	// pass is how many bytes to copy before the next header (-1: all).
	pass int64
	// header reads the next header (take) and sets pass; it returns
	// io.EOF at the clean end of the data.
	header func() error
}

// Read gives out the data with its headers rewritten.
func (h *headerRewriter) Read(p []byte) (int, error) {
	for {
		if len(h.out) > 0 {
			n := copy(p, h.out)
			h.out = h.out[n:]
			return n, nil
		}
		if h.pass != 0 {
			q := p
			if h.pass > 0 && int64(len(q)) > h.pass {
				q = q[:h.pass]
			}
			n, err := h.r.Read(q)
			h.used += int64(n)
			if h.pass > 0 {
				h.pass -= int64(n)
			}
			return n, err
		}
		if err := h.header(); err != nil {
			return 0, err
		}
	}
}

// take moves the first n bytes of b, peeked from r, into out (to be given
// out next) and returns them for the header function to rewrite.
func (h *headerRewriter) take(b []byte, n int) []byte {
	h.hdr = append(h.hdr[:0], b[:n]...)
	h.r.Discard(n)
	h.used += int64(n)
	h.out = h.hdr
	return h.out
}

// left is the number of compressed bytes not yet taken from r, or
// math.MaxInt64 when the size is not known.
func (h *headerRewriter) left() int64 {
	if h.size <= 0 || h.used >= h.size {
		return math.MaxInt64
	}
	return h.size - h.used
}

// passAll gives out the rest of the data as it is: what follows is not
// understood (or not worth rewriting), and the decoder judges it.
func (h *headerRewriter) passAll() error {
	h.pass = -1
	return nil
}
