package textstore

import (
	"bytes"
	"math"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// BlockSize is the raw size at which a builder seals its block: large
// enough for S2 to find the repeats of log lines (headers, file names,
// volume names), small enough that reading one text decodes little.
const BlockSize = 64 << 10

// Text is an event's entry text: a reference into a block of a [Builder],
// or a string of [TextOf]. The zero Text is the empty text. Compare texts
// with [Equal], not ==: two references to equal bytes in different
// blocks are different values.
type Text struct {
	// p is the *block, or for a text of TextOf (off == plainOff) its
	// first byte
	p   unsafe.Pointer
	off uint32
	n   uint32
}

// plainOff marks a Text that holds a string (TextOf).
const plainOff = math.MaxUint32

// maxBlockText is the longest text a block takes; a longer one (an entry
// of hundreds of MiB, which the line limit normally prevents) is kept as
// a string of its own.
const maxBlockText = math.MaxInt32

// block is a run of texts: raw while its builder appends to it, then
// compressed (sealed); or, when org is set, the extent of a file from
// base on that an Origin reads its texts from.
type block struct {
	raw  []byte // while open: the texts, back to back (the builder's)
	comp []byte // once sealed: raw compressed with S2
	org  *Origin
	base int64
}

// TextOf returns a Text that holds s (no copy).
func TextOf(s string) Text {
	if s == "" {
		return Text{}
	}
	if uint64(len(s)) >= plainOff {
		panic("textstore: text of 4 GiB or more")
	}
	return Text{p: unsafe.Pointer(unsafe.StringData(s)), off: plainOff, n: uint32(len(s))}
}

// Len is the length of the text in bytes.
func (t Text) Len() int { return int(t.n) }

// IsZero reports whether the text is empty.
func (t Text) IsZero() bool { return t.n == 0 }

// String returns the text. A text in a sealed block is decompressed
// through the process-wide cache of decoded blocks and copied out; a text
// of an open block may only be read by the goroutine that builds it.
func (t Text) String() string {
	switch {
	case t.n == 0:
		return ""
	case t.off == plainOff:
		return unsafe.String((*byte)(t.p), int(t.n))
	}
	b := (*block)(t.p)
	if b.org != nil {
		return b.org.text(b.base+int64(t.off), t.n)
	}
	if b.comp == nil {
		return string(b.raw[t.off : t.off+t.n])
	}
	return decodedCache.text(b, t.off, t.n)
}

// Equal reports whether a and b are the same text.
func Equal(a, b Text) bool {
	if a.n != b.n {
		return false
	}
	if a == b || a.n == 0 {
		return true
	}
	return a.String() == b.String()
}

// Builder appends texts to blocks and seals them. The zero Builder is
// ready; one goroutine uses it. Texts it returns may be read by other
// goroutines once their block is sealed (Seal after the last Add).
type Builder struct {
	cur     *block
	buf     []byte // a raw buffer for the next block (reused)
	scratch []byte // the compressor's output (reused)
}

// Add appends p and returns its Text.
func (b *Builder) Add(p []byte) Text {
	if len(p) == 0 {
		return Text{}
	}
	if len(p) > maxBlockText {
		return TextOf(string(p))
	}
	if b.cur == nil {
		b.cur = &block{raw: b.buf[:0]}
		b.buf = nil
	}
	c := b.cur
	off := len(c.raw) // < BlockSize, so off+len(p) < plainOff
	if need := off + len(p); need > cap(c.raw) {
		// doubling from small, so that a small input (a must-gather
		// holds thousands of one-line logs) takes a little, up to a
		// block with room for its last text
		n := max(2*cap(c.raw), need, 512)
		if n > blockCap && need <= blockCap {
			n = blockCap
		}
		c.raw = append(make([]byte, 0, n), c.raw...)
	}
	c.raw = append(c.raw, p...)
	t := Text{p: unsafe.Pointer(c), off: uint32(off), n: uint32(len(p))}
	if len(c.raw) >= BlockSize {
		b.Seal()
	}
	return t
}

// AddString is Add of the bytes of s.
func (b *Builder) AddString(s string) Text {
	return b.Add(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// blockCap is the capacity a block's raw buffer grows to: a block and
// room for the text that fills it.
const blockCap = BlockSize + BlockSize/4

// maxReuse is the largest raw buffer a builder keeps for its next block
// (one grown by a long text is let go).
const maxReuse = 4 * BlockSize

// Seal compresses the current block, if any; the next Add starts a new
// one. Call it after the last Add.
func (b *Builder) Seal() {
	c := b.cur
	if c == nil {
		return
	}
	b.cur = nil
	b.scratch = s2.Encode(b.scratch[:cap(b.scratch)], c.raw)
	c.comp = bytes.Clone(b.scratch)
	if cap(c.raw) <= maxReuse {
		b.buf = c.raw[:0]
	}
	c.raw = nil
}

// cacheEntries is how many decoded blocks the cache keeps: enough for a
// reader in time order over a handful of inputs read side by side.
const cacheEntries = 8

// blockCache holds the most recently read blocks decoded (LRU).
type blockCache struct {
	mu      sync.Mutex
	ents    [cacheEntries]decoded
	tick    uint64
	decodes int // blocks decoded so far (tests)
}

type decoded struct {
	b    *block
	raw  []byte
	used uint64
}

var decodedCache blockCache

// text returns a copy of raw[off:off+n] of the sealed block b.
func (c *blockCache) text(b *block, off, n uint32) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tick++
	victim := 0
	for i := range c.ents {
		e := &c.ents[i]
		if e.b == b {
			e.used = c.tick
			return string(e.raw[off : off+n])
		}
		if e.used < c.ents[victim].used {
			victim = i
		}
	}
	e := &c.ents[victim]
	dst := e.raw[:cap(e.raw)]
	if cap(dst) > maxReuse {
		dst = nil
	}
	raw, err := s2.Decode(dst, b.comp)
	if err != nil {
		// the block is this package's own encoding of bytes it held
		panic("textstore: corrupt block: " + err.Error())
	}
	c.decodes++
	e.b, e.raw, e.used = b, raw, c.tick
	return string(raw[off : off+n])
}
