package parser

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

// This file owns reading a regular file as blocks at known offsets
// (blocks, fileStart, fileBlock): with read(2) by default, or from
// mappings of it where mapping is on (mapReader, useMap). A mapReader's
// blocks are the same blocks of whole lines blockReader cuts, handed to
// the scanner without a copy. Stdin, pipes, compressed inputs, archive
// members and envelope exports are read with read(2), and their texts
// kept; so is a file that is empty when opened (/proc files say size 0)
// or small (minMapSize). A file that cannot be mapped (mapFile fails:
// other systems, some file systems) is read with read(2) from wherever
// mapping it failed.
//
// Lifetime: a block is the scanner's until it gives it back (release, one
// block late: its last entry's spec points into it); nothing the scanner
// keeps points into a block (entries, partial records and the events'
// names are copies; their texts are copies or the offsets of their bytes
// in the file: textstore.Origin, fileBlock). A window is unmapped when every block
// handed out of it has been given back and the reader has moved past it.
//
// A file cut while mapped (copytruncate) takes the pages past its new end
// away: touching them faults (SIGBUS). The reader checks the size before
// each block, so it hands out only what is there; the goroutines that
// touch a block (reader, analysis, scanner) run with SetPanicOnFault, and
// a fault while the file is shorter than what was mapped ends the input
// where the scanner stopped, with the problem read(2) gives a file that
// shrank (scanner.run), instead of a crash.

// mapWindow is how much of the file one mapping covers (at least a block
// and a page): 4 MiB cost least CPU on a 2-core VM at 1 GiB (1 and 2 MiB
// more munmaps, 16 MiB 18 MiB more peak RSS).
var mapWindow = 4 << 20

// minMapSize is the smallest file mapped, or whose texts are referred to
// (fileStart): a smaller one is all in decompress's buffer already;
// mapping it would only add syscalls, and keeping it open for its texts
// would hold a descriptor for a few KiB (a must-gather holds tens of
// thousands of small logs).
var minMapSize = int64(sniffBufSize) + 1

// useMap turns mapping on, where the system can: KCMTRACE_MMAP=1 in the
// environment (tests read files both ways). It is off by default because
// what it saves depends on the machine. Mapping saves read(2)'s copy
// (~0.1 CPU-s a GiB), but every 4 KiB page of a mapping costs a TLB miss
// when first touched; on a virtual machine with nested paging that miss
// walks two page tables. On the 2-core VMs this project is measured on,
// touching one byte of each page of a mapped 1 GiB file took 0.35 s, and
// read(2) into a reused buffer took 0.05 s. BenchmarkFileBlocks (cut a
// 64 MiB file into blocks, count its lines) gave 2.1–2.4 GB/s mapped and
// 8–12 GB/s read. The whole analysis went from 1.1 to 0.6 CPU-s a GiB
// when mapping was turned off.
// mapWin maps a window (tests make it fail).
var (
	useMap = canMap && os.Getenv("KCMTRACE_MMAP") == "1"
	mapWin = mapFile
)

// window is one mapping: data is the file from offset off. refs counts the
// blocks handed out of it not yet given back, plus one while it is the
// reader's current window.
type window struct {
	data []byte
	off  int64
	refs atomic.Int32
}

// liveWindows counts the windows mapped and not yet unmapped.
var liveWindows atomic.Int64

func (w *window) unref() {
	if w.refs.Add(-1) == 0 {
		unmapFile(w.data)
		w.data = nil
		liveWindows.Add(-1)
	}
}

// mapReader is a blockSource over mappings of a regular file.
type mapReader struct {
	f         *os.File
	max       int
	pos       int64 // file offset of the next block (always at a line start)
	size      int64 // the file's size as last seen
	win       *window
	done      bool
	noNewline bool
	err       error // a read error of a long line (readLong)
	cut       int64 // >= 0: the file was cut under its mapping, to this size
	progress  func(int64)
	counted   int64        // file bytes reported to progress already
	rest      *blockReader // reads on with read(2) when a window could not be mapped
	// restPool is rest's pool, for release on the scanner's goroutine
	restPool atomic.Pointer[bufPool]
}

// cutHook, when set (tests), is called on the scanner's goroutine before it
// applies each mapped block; readHook on the reader's with the extent of
// each block, before it is cut at its last newline (searched false) and
// once it is, before it is analysed (searched true).
var (
	cutHook  func(c *chunk)
	readHook func(start, end int64, searched bool)
)

// blocks returns the source of r's blocks. When r reads st's regular,
// uncompressed file (past minMapSize), its blocks are the file's bytes at
// known offsets, so that the events' texts can refer to them
// (textstore.Origin): read with read(2) (blockReader), or from mappings of
// the file where mapping is on (mapReader). Any other input is read with
// read(2) and its texts kept.
func (st *inputState) blocks(r io.Reader, max int, comp string, progress func(int64)) blockSource {
	from, off, inFile := st.fileStart(r, comp)
	if inFile {
		st.origin = textstore.NewOrigin(st.file, st.in.Path)
		if useMap {
			if m := newMapReader(st.file, from, max, progress, off); m != nil {
				return m
			}
		}
	}
	br := newBlockReader(r, max, newBufPool(2*pipeDepth+4, st.sizeHint))
	if inFile {
		br.at = from
	}
	br.yield = comp == "" && st.file != nil
	return br
}

// fileStart is the offset in st's file of the first byte r gives, and the
// file's position (where r's buffer has read to), when r reads a regular,
// uncompressed file of at least minMapSize bytes with something left.
func (st *inputState) fileStart(r io.Reader, comp string) (from, off int64, ok bool) {
	b, isBuf := r.(*bufio.Reader)
	if !isBuf || st.file == nil || comp != "" {
		return 0, 0, false
	}
	// decompress's buffer has read ahead but consumed nothing
	off, err := st.file.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, 0, false
	}
	from = off - int64(b.Buffered())
	fi, err := st.file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= from || fi.Size() < minMapSize {
		return 0, 0, false
	}
	return from, off, true
}

// newMapReader maps f (a regular file: fileStart) from offset from;
// progress has been told of counted bytes. It is nil when f cannot be
// mapped.
func newMapReader(f *os.File, from int64, max int, progress func(int64), counted int64) *mapReader {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	m := &mapReader{f: f, max: max, pos: from, size: fi.Size(), cut: -1, progress: progress, counted: counted}
	if !m.mapAt(from) {
		return nil
	}
	return m
}

// mapAt makes the window that starts at pos's page the current one.
func (m *mapReader) mapAt(pos int64) bool {
	m.drop()
	page := int64(os.Getpagesize())
	off := pos &^ (page - 1)
	n := min(int64(max(mapWindow, blockSize+int(page))), m.size-off)
	data, err := mapWin(m.f, off, int(n))
	if err != nil {
		return false
	}
	m.win = &window{data: data, off: off}
	m.win.refs.Store(1)
	liveWindows.Add(1)
	return true
}

// drop lets the current window go (unmapped once its blocks are back).
func (m *mapReader) drop() {
	if m.win != nil {
		m.win.unref()
		m.win = nil
	}
}

// peek implements blockSource: it is called before produce, on the
// scanner's goroutine, within apply.
func (m *mapReader) peek() []byte {
	w := m.win
	return w.data[m.pos-w.off : min(int64(len(w.data)), m.pos-w.off+int64(readBufSize))]
}

// next returns the next block: from pos, blockSize bytes (fewer at the end
// of the file) up to their last newline, exactly as blockReader cuts the
// file; a line that fills a block without its newline is read by readLong.
func (m *mapReader) next() (c *chunk, ok bool) {
	if m.rest != nil {
		return m.restNext()
	}
	if m.done {
		return nil, false
	}
	// the size now: a file cut is read to its new end, a growing one on
	// (as read(2) reads to where the end is when it gets there)
	if fi, err := m.f.Stat(); err == nil {
		m.size = fi.Size()
	}
	if m.pos >= m.size {
		m.done = true
		return nil, false
	}
	end := min(m.pos+int64(blockSize), m.size)
	w := m.win
	if w == nil || end > w.off+int64(len(w.data)) {
		if !m.mapAt(m.pos) {
			m.readRest()
			return m.restNext()
		}
		w = m.win
	}
	b := w.data[m.pos-w.off : end-w.off]
	if readHook != nil {
		readHook(m.pos, end, false)
	}
	k, faulted := lastNewline(b)
	switch {
	case faulted:
		// cut between the size check and the search: the rest is gone
		m.done = true
		return nil, false
	case k < 0 && len(b) == blockSize:
		return m.readLong()
	case k < 0:
		m.noNewline = true // the last line, without newline
		k = len(b) - 1
	}
	w.refs.Add(1)
	start := m.pos
	m.pos += int64(k + 1)
	m.report()
	if readHook != nil {
		readHook(start, m.pos, true)
	}
	return &chunk{data: b[: k+1 : k+1], win: w, end: m.pos, inFile: true, off: start}, true
}

// fileBlock is a block of a regular file as the scanner holds it: its
// bytes and the file offset of the first.
type fileBlock struct {
	data []byte
	off  int64
}

// fileBlockOf is c's fileBlock; zero when c is not the bytes of a file as
// they lie there (a long line, a block of another input).
func fileBlockOf(c *chunk) fileBlock {
	if !c.inFile {
		return fileBlock{}
	}
	return fileBlock{data: c.data, off: c.off}
}

// fileOffset is the offset in the file of text when it is a run of bytes
// of one of the file's blocks the scanner holds.
func (st *inputState) fileOffset(text string) (int64, bool) {
	for _, m := range st.fileBlocks {
		if d, ok := offsetIn(text, unsafe.SliceData(m.data), len(m.data)); ok {
			return m.off + int64(d), true
		}
	}
	return 0, false
}

// lastNewline is bytes.LastIndexByte(b, '\n'), or faulted when b's pages
// are gone (the goroutine runs with SetPanicOnFault: produce).
func lastNewline(b []byte) (k int, faulted bool) {
	defer func() {
		if p := recover(); p != nil {
			if !isFault(p) {
				panic(p)
			}
			faulted = true
		}
	}()
	return bytes.LastIndexByte(b, '\n'), false
}

// isFault reports a memory fault turned into a panic (SetPanicOnFault).
func isFault(p any) bool {
	_, rt := p.(runtime.Error)
	_, addr := p.(interface{ Addr() uintptr })
	return rt && addr
}

// report tells progress of the bytes handed out so far.
func (m *mapReader) report() {
	if m.progress != nil && m.pos > m.counted {
		m.progress(m.pos - m.counted)
		m.counted = m.pos
	}
}

// readLong reads a line longer than a block from pos with pread, as
// blockReader.longLine does (its first max+1 bytes kept, a copy), and
// leaves pos after it.
func (m *mapReader) readLong() (*chunk, bool) {
	lr := newBlockReader(io.NewSectionReader(m.f, m.pos, 1<<62), m.max, newBufPool(1, 0))
	c, ok := lr.next()
	if !ok { // cut since the size check
		m.done = true
		return nil, false
	}
	c.buf = nil // lr's buffer is not recycled
	m.pos += lr.bytes - int64(lr.n)
	m.report()
	if lr.noNewline {
		m.noNewline, m.done = true, true
	}
	if lr.err != nil {
		m.err, m.done = lr.err, true
	}
	return c, true
}

// readRest reads the file from pos on with read(2) (a window could not be
// mapped).
func (m *mapReader) readRest() {
	m.drop()
	var r io.Reader = io.NewSectionReader(m.f, m.pos, 1<<62)
	if m.progress != nil {
		skip := max(0, m.counted-m.pos) // read ahead by decompress's buffer
		r = &countingReader{r: r, progress: func(n int64) {
			d := min(skip, n)
			skip -= d
			if n > d {
				m.progress(n - d)
			}
		}}
	}
	pool := newBufPool(2*pipeDepth+4, 0)
	m.restPool.Store(pool)
	m.rest = newBlockReader(r, m.max, pool)
	m.rest.at = m.pos
}

// restNext is rest's next block; its end is where rest has read to (at
// least the block's end), for apply.
func (m *mapReader) restNext() (*chunk, bool) {
	c, ok := m.rest.next()
	if ok {
		c.end = m.pos + m.rest.bytes
	}
	return c, ok
}

// produce implements blockSource (on the reader's goroutine).
func (m *mapReader) produce(out chan<- *chunk, quit <-chan struct{}, fast bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	produceChunks(m.next, out, quit, m.max, fast, false, m.release)
	m.drop()
}

// release implements blockSource.
func (m *mapReader) release(c *chunk) {
	if c.win != nil {
		c.win.unref()
		c.win = nil
	} else if p := m.restPool.Load(); p != nil {
		p.put(c.buf)
	}
}

// apply implements blockSource: it runs f, which reads the block c (nil:
// peek's bytes, before produce starts) and the blocks before it, with
// faults turned into panics, and reports false when one came from a cut:
// the file is now shorter than what was handed out up to c. Any other
// panic goes on.
func (m *mapReader) apply(c *chunk, f func()) (ok bool) {
	var end int64 // what was handed out up to c
	if c != nil {
		end = c.end
	} else {
		end = m.size // before produce starts
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			fi, err := m.f.Stat()
			if !isFault(p) || err != nil || fi.Size() >= end {
				panic(p)
			}
			m.cut = fi.Size()
		}
	}()
	if cutHook != nil && c != nil {
		cutHook(c)
	}
	f()
	return true
}

// end implements blockSource.
func (m *mapReader) end() (int64, error, bool) {
	if m.rest != nil {
		n, err, noNewline := m.rest.end()
		return m.pos + n, err, noNewline
	}
	if m.cut >= 0 {
		return min(m.pos, m.cut), m.err, false
	}
	return m.pos, m.err, m.noNewline
}
