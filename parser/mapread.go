package parser

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"runtime/debug"
	"unsafe"
)

// This file owns reading a regular, uncompressed file by mapping it into
// memory (mmap) instead of copying it with read(2): the kernel hands over
// its page cache, and the block pipeline searches it in place. The whole
// file is mapped once, and each block's pages are filled in before it is
// analysed (populatePages) and dropped from the mapping as soon as the
// scanner is done with it (dropPages), so resident memory stays a few
// blocks whatever the file size; one mapping instead of one per block
// saves the kernel a mapping's setup and teardown per block (≈40 ms of
// CPU per GiB). The file is read up to the size it had when opened.

// mmapMin is the smallest file read by mapping; smaller ones are read.
// (A variable so that tests can map every input.)
var mmapMin int64 = 4 << 20

// mapBlockSize caps the blocks of a mapped file: the mapped pages of the
// blocks in flight are resident memory outside the Go heap (and its soft
// limit), so they are kept smaller than read blocks.
const mapBlockSize = 1 << 20

// errShrunk is the read error of a mapped file that got shorter while it
// was read: touching a page past its new end faults, and the fault comes
// back as a panic on goroutines that called debug.SetPanicOnFault.
var errShrunk = errors.New("the file shrank while it was read (truncated or rotated?)")

// blockSource is where the scanner's blocks come from: read (blockReader)
// or mapped (mapReader).
type blockSource interface {
	// peek returns the start of the input (up to readBufSize) without
	// consuming it.
	peek() []byte
	// produce cuts the input into chunks on out, starting the analysis of
	// each, until the input ends or quit is closed.
	produce(out chan<- *chunk, quit <-chan struct{}, fast bool)
	// release tells that the scanner no longer needs c's bytes.
	release(c *chunk)
	// end returns the bytes consumed, the first read error and whether the
	// last line had no newline; only after produce returned.
	end() (n int64, err error, noNewline bool)
}

// mapReader is a blockSource over a mapped file.
type mapReader struct {
	f         *os.File
	all       []byte // the file, mapped (mapFile)
	size      int64
	off       int64 // start of the next block
	max       int
	progress  func(int64)
	err       error
	noNewline bool
}

// mappable returns f's size when f should be read by mapping: a regular
// file of at least mmapMin bytes on a system that can map it, not
// compressed (its first bytes are no gzip or zstd magic).
func mappable(f *os.File, fi os.FileInfo) (int64, bool) {
	if !canMap || !fi.Mode().IsRegular() || fi.Size() < mmapMin || fi.Size() != int64(int(fi.Size())) {
		return 0, false
	}
	var head [4]byte
	if n, _ := f.ReadAt(head[:], 0); n < len(head) || isCompressed(head[:]) {
		return 0, false
	}
	return fi.Size(), true
}

func newMapReader(f *os.File, all []byte, max int, progress func(int64)) *mapReader {
	return &mapReader{f: f, all: all, size: int64(len(all)), max: max, progress: progress}
}

func (mr *mapReader) peek() []byte {
	b := make([]byte, min(mr.size, int64(readBufSize)))
	n, _ := mr.f.ReadAt(b, 0)
	return b[:n]
}

func (mr *mapReader) end() (int64, error, bool) { return mr.off, mr.err, mr.noNewline }

// release drops the pages of c's block from the mapping, all but a last
// page it shares with the next block (dropped with that one, or with the
// mapping).
func (mr *mapReader) release(c *chunk) {
	if c.mapped {
		dropPages(mr.pages(c.data))
		c.mapped, c.data = false, nil
	}
}

// pages returns the whole pages of the mapping that b, a part of it,
// starts or covers, from the one holding its first byte to the one before
// the page holding its end (none when b lies within one page).
func (mr *mapReader) pages(b []byte) []byte {
	from, to := mr.offsets(b)
	mask := int64(os.Getpagesize() - 1)
	from, to = from&^mask, to&^mask
	if to <= from {
		return nil
	}
	return mr.all[from:to]
}

// cover returns the pages of the mapping that hold b, a part of it.
func (mr *mapReader) cover(b []byte) []byte {
	from, to := mr.offsets(b)
	mask := int64(os.Getpagesize() - 1)
	return mr.all[from&^mask : min(int64(len(mr.all)), (to+mask)&^mask)]
}

// offsets returns where b, a part of the mapping, starts and ends in it.
func (mr *mapReader) offsets(b []byte) (from, to int64) {
	if len(b) == 0 {
		return 0, 0
	}
	from = int64(uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(mr.all))))
	return from, from + int64(len(b))
}

func (mr *mapReader) produce(out chan<- *chunk, quit <-chan struct{}, fast bool) {
	debug.SetPanicOnFault(true)
	defer func() {
		if p := recover(); p != nil {
			if !isFault(p) {
				panic(p)
			}
			mr.err = errShrunk
		}
	}()
	produceChunks(mr.next, out, quit, mr.max, fast, mr.release)
}

// isFault reports a recovered panic that is a memory fault (a mapped page
// past the end of a file that shrank), with debug.SetPanicOnFault set.
func isFault(p any) bool {
	_, fault := p.(interface{ Addr() uintptr })
	return fault
}

// next returns the whole lines of the next block as a chunk, its pages
// filled in.
func (mr *mapReader) next() (*chunk, bool) {
	if mr.off >= mr.size || mr.err != nil {
		return nil, false
	}
	data := mr.all[mr.off:min(mr.size, mr.off+mr.blockLen())]
	populatePages(mr.cover(data))
	last := mr.off+int64(len(data)) == mr.size
	c := &chunk{mapped: true}
	switch k := bytes.LastIndexByte(data, '\n'); {
	case k >= 0:
		c.data = data[:k+1]
	case last:
		// the last line, without newline
		c.data = data
		mr.noNewline = true
	default:
		return mr.longLine(), true
	}
	mr.off += int64(len(c.data))
	if mr.progress != nil {
		mr.progress(int64(len(c.data)))
	}
	return c, true
}

// blockLen is the size of the blocks of the mapping.
func (mr *mapReader) blockLen() int64 { return int64(min(blockSize, mapBlockSize)) }

// longLine consumes a line that does not fit in a block, keeping its
// first max+1 bytes, as blockReader.longLine does, and drops its pages as
// it goes.
func (mr *mapReader) longLine() *chunk {
	var long []byte
	total := int64(0)
	newline := false
	for mr.off+total < mr.size {
		from := mr.off + total
		part := mr.all[from:min(mr.size, from+mr.blockLen())]
		if k := bytes.IndexByte(part, '\n'); k >= 0 {
			part, newline = part[:k+1], true
		}
		if room := mr.max + 1 - len(long); room > 0 {
			long = append(long, part[:min(len(part), room)]...)
		}
		total += int64(len(part))
		dropPages(mr.pages(part))
		if newline {
			break
		}
	}
	mr.off += total
	if mr.progress != nil {
		mr.progress(total)
	}
	if !newline {
		mr.noNewline = true
	}
	return longChunk(long, total, newline, mr.max)
}

// readMapped parses f, mapped as all (mapFile), to the end, and unmaps it.
func (st *inputState) readMapped(f *os.File, all []byte, opt Options) {
	defer unmapFile(all)
	st.sizeHint = int64(len(all))
	st.guarded(opt, func(sc *scanner) {
		// a fault (the file shrank) panics instead of crashing; guarded
		// reports it
		debug.SetPanicOnFault(true)
		sc.runBlocks(newMapReader(f, all, sc.max, opt.Progress))
	})
	runtime.KeepAlive(f)
}
