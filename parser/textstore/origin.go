package textstore

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file owns the texts that are not kept at all: an entry whose text
// is exactly a run of bytes of a regular file (a klog line read from a
// mapping of it) is a reference to those bytes, read again when the text
// is asked for (Origin).

// Origin is a regular file that texts can be read back from by offset. It
// keeps the file open (rotation by rename does not move what it reads),
// and it checks, on the first read, that the file still holds the first
// and the last text it handed out: a file cut and written again
// (copytruncate) or rewritten in place since then is not read from, and
// its texts say so (unavailable). The file is closed when the Origin and
// every Text of it are garbage.
type Origin struct {
	f    *os.File
	name string
	used bool // Ref was called: the file must stay open
	// segs are the Origin's blocks (one per segSize bytes of the file,
	// made as Ref reaches them), which its Texts point to
	segs []*block
	// first and last are the extent and hash of the first and the last
	// text handed out, for the check
	first, last span

	mu      sync.Mutex
	checked bool
	bad     string // the check failed: why
	win     []byte // the bytes last read, from winOff
	winOff  int64
}

type span struct {
	off  int64
	n    int
	hash uint64
}

// segSize is the extent of the file one block of an Origin covers: a
// Text's offset within it is below plainOff.
const segSize = 1 << 31

// readWindow is how much an Origin reads at once from a text on: the
// texts read one after the other (a finding's evidence, every event in
// time order) often lie close together, and a page or two costs about
// what reading the text alone does.
const readWindow = 8 << 10

// maxOrigins is how many Origins may hold their file open at once; past
// it, NewOrigin says no and the texts are kept in blocks, so that an
// analysis of thousands of large files does not run out of descriptors.
const maxOrigins = 256

var openOrigins atomic.Int32

// NewOrigin makes an Origin of f, an open regular file that is not
// written through; name is how its texts name it when it cannot be read.
// It is nil when maxOrigins are open already. The caller closes f if
// [Origin.Used] is false once it is done with it; otherwise f belongs to
// the Origin.
func NewOrigin(f *os.File, name string) *Origin {
	if openOrigins.Add(1) > maxOrigins {
		openOrigins.Add(-1)
		return nil
	}
	return &Origin{f: f, name: name}
}

// Used reports whether a Text refers to the Origin's file.
func (o *Origin) Used() bool { return o != nil && o.used }

// Release says the Origin is not used (Used is false) and is let go: it
// no longer counts against maxOrigins. Its file is the caller's.
func (o *Origin) Release() {
	if o != nil && !o.used {
		openOrigins.Add(-1)
		o.f = nil
	}
}

// Ref returns the Text of text, which is the bytes at offset off of the
// Origin's file (the caller holds them: a window of a mapping of it).
// One goroutine calls Ref; Texts are read by any once it is done.
func (o *Origin) Ref(off int64, text string) Text {
	if text == "" {
		return Text{}
	}
	if uint64(len(text)) >= segSize || off < 0 {
		return TextOf(text)
	}
	k := int(off / segSize)
	end := off + int64(len(text))
	if int(end/segSize) != k && end%segSize != 0 {
		return TextOf(text) // straddles two segments (once per 2 GiB)
	}
	if !o.used {
		o.used = true
		f := o.f
		// the file is closed with the Origin, once no Text holds it
		runtime.AddCleanup(o, func(f *os.File) { f.Close(); openOrigins.Add(-1) }, f)
	}
	for len(o.segs) <= k {
		o.segs = append(o.segs, &block{org: o, base: int64(len(o.segs)) * segSize})
	}
	s := span{off: off, n: len(text), hash: Hash(text)}
	if o.first.n == 0 {
		o.first = s
	}
	o.last = s
	return Text{p: unsafe.Pointer(o.segs[k]), off: uint32(off - int64(k)*segSize), n: uint32(len(text))}
}

// text returns the n bytes at offset off of the file, or why they cannot
// be had. A text in or just past the window is read through it (a reader
// in file order: the events command); one elsewhere (a finding's
// evidence, spread over a storm of hours: 1 GiB of the storm shape read
// 9,116 texts, 37 of them in the window) is read on its own, outside the
// lock, so that the rules reading evidence side by side neither wait for
// each other's reads nor throw away the window.
func (o *Origin) text(off int64, n uint32) string {
	o.mu.Lock()
	o.checkLocked()
	if o.bad == "" && !o.near(off, int(n)) {
		o.mu.Unlock()
		b := make([]byte, n)
		if m, _ := o.f.ReadAt(b, off); m == len(b) {
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
		o.mu.Lock() // the file is shorter: read says so
	}
	defer o.mu.Unlock()
	if o.bad == "" {
		b, err := o.read(off, int(n))
		if err == nil {
			return string(b)
		}
		o.bad = err.Error()
	}
	return fmt.Sprintf("[text unavailable: %s: %s]", o.name, o.bad)
}

// checkLocked checks, the first time it is called, that the file still
// holds the first and the last text handed out (o.bad says why not). The
// caller holds o.mu.
func (o *Origin) checkLocked() {
	if o.checked {
		return
	}
	o.checked = true
	for _, s := range []span{o.first, o.last} {
		b, err := o.read(s.off, s.n)
		if err != nil || Hash(string(b)) != s.hash {
			o.bad = "it changed after it was read (rotated with copytruncate, or rewritten)"
			if err != nil {
				o.bad = err.Error()
			}
			break
		}
	}
	o.win = o.win[:0] // the next read places it (near)
}

// usable checks the file (checkLocked) and reports whether its texts can
// be read.
func (o *Origin) usable() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.checkLocked()
	return o.bad == ""
}

// near reports whether the n bytes at off are in the window or start
// within readWindow past it (or there is no window yet): read them
// through it.
func (o *Origin) near(off int64, n int) bool {
	end := o.winOff + int64(len(o.win))
	return len(o.win) == 0 || off >= o.winOff && off <= end+readWindow-int64(n)
}

// read returns the n bytes at off (a window of o.win: copy it), reading
// readWindow bytes from off when they are not at hand.
func (o *Origin) read(off int64, n int) ([]byte, error) {
	if off >= o.winOff && off+int64(n) <= o.winOff+int64(len(o.win)) {
		return o.win[off-o.winOff : off-o.winOff+int64(n)], nil
	}
	size := max(n, readWindow)
	if cap(o.win) < size || cap(o.win) > 4*readWindow {
		o.win = make([]byte, size)
	}
	o.win = o.win[:size]
	m, err := o.f.ReadAt(o.win, off)
	o.win, o.winOff = o.win[:m], off
	if m < n {
		o.win = o.win[:0]
		if err == nil || err == io.EOF {
			err = fmt.Errorf("the file is shorter than when it was read (%d bytes at offset %d wanted)", n, off)
		}
		return nil, err
	}
	return o.win[:n], nil
}
