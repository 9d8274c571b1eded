package textstore

import (
	"cmp"
	"slices"
	"sync"
	"unsafe"
)

// This file owns reading many texts at once (Strings): the evidence of
// every finding of a run, which the rules quote from all over a file.

// The reads Strings makes of an Origin's file: texts whose gap is at most
// batchGap are read together, in one read of at most batchSpan bytes
// (unless a text alone is longer). A text read on its own costs ~2 µs on
// the development VM whatever its size up to a few KiB, and 16 KiB more
// about a microsecond: 1 GiB of the storm shape quotes 9,078 texts of
// which 7,375 differ, and the run's preads went 9,118 → 1,883.
const (
	batchGap  = 16 << 10
	batchSpan = 256 << 10
	// minWorkerReads is the fewest reads a goroutine of Strings is
	// started for: an incident's few dozen are read where they are asked.
	minWorkerReads = 64
)

// Strings returns the strings of ts, in order: what String returns for
// each. The texts an Origin reads back from its file are read in the
// order of their offsets, each once however often it is given, with its
// neighbours (batchGap, batchSpan), on up to workers goroutines: a
// finding's evidence is spread over the hours of a storm, and reading it
// a text at a time was a system call each (see Origin.text). The texts
// are copied out of what was read into chunks they share, so that a
// string kept does not keep its read's extent. A file that changed since
// it was read gives what String gives: its texts are unavailable.
func Strings(ts []Text, workers int) []string {
	out := make([]string, len(ts))
	var far []farText
	for i, t := range ts {
		if t.n == 0 || t.off == plainOff || (*block)(t.p).org == nil {
			out[i] = t.String()
			continue
		}
		b := (*block)(t.p)
		far = append(far, farText{org: b.org, off: b.base + int64(t.off), n: t.n, at: i})
	}
	if len(far) == 0 {
		return out
	}
	reads := planReads(far)
	readAll := func(part []farRead) {
		var rd farReader
		for _, r := range part {
			rd.read(r, far[r.from:r.to], out)
		}
	}
	workers = max(min(workers, len(reads)/minWorkerReads), 1)
	if workers == 1 {
		readAll(reads)
		return out
	}
	var wg sync.WaitGroup
	for w := range workers {
		part := reads[w*len(reads)/workers : (w+1)*len(reads)/workers]
		wg.Go(func() { readAll(part) })
	}
	wg.Wait()
	return out
}

// planReads sorts far by Origin and offset and returns the reads that
// take them: texts at most batchGap apart in one read of at most
// batchSpan bytes (or of one longer text).
func planReads(far []farText) []farRead {
	slices.SortFunc(far, func(a, b farText) int {
		if a.org != b.org {
			return cmp.Compare(uintptr(unsafe.Pointer(a.org)), uintptr(unsafe.Pointer(b.org)))
		}
		return cmp.Or(cmp.Compare(a.off, b.off), cmp.Compare(a.n, b.n))
	})
	var reads []farRead
	for i := 0; i < len(far); {
		r := farRead{org: far[i].org, off: far[i].off, end: far[i].off + int64(far[i].n), from: i}
		for i++; i < len(far); i++ {
			t := &far[i]
			end := max(r.end, t.off+int64(t.n))
			if t.org != r.org || t.off > r.end+batchGap || end > r.end && end-r.off > batchSpan {
				break
			}
			r.end = end
		}
		r.to = i
		reads = append(reads, r)
	}
	return reads
}

// farText is a text of an Origin: its extent in the file, and where
// Strings returns it.
type farText struct {
	org *Origin
	off int64
	n   uint32
	at  int
}

// farRead is one read of Strings: the extent [off, end) of an Origin's
// file that holds its texts far[from:to].
type farRead struct {
	org      *Origin
	off, end int64
	from, to int
}

// farReader reads the extents of farReads (one goroutine's): into buf,
// reused, from which each text is copied into arena, so that a few
// hundred bytes kept do not keep a read's whole extent.
type farReader struct {
	buf   []byte
	arena []byte
}

// arenaSize is the size of a farReader's arena chunks.
const arenaSize = 64 << 10

// read reads r's extent and places each of its texts (ts) in out; when
// the file is not usable (Origin.usable), or the read fails or comes
// short, each text is read as String does, which says why it is
// unavailable.
func (rd *farReader) read(r farRead, ts []farText, out []string) {
	n := int(r.end - r.off)
	usable := r.org.usable()
	if usable {
		if cap(rd.buf) < n {
			rd.buf = make([]byte, max(n, batchSpan))
		}
		if m, _ := r.org.f.ReadAt(rd.buf[:n], r.off); m < n {
			usable = false
		}
	}
	for k, t := range ts {
		switch {
		case !usable:
			out[t.at] = r.org.text(t.off, t.n)
		case k > 0 && ts[k-1].off == t.off && ts[k-1].n == t.n:
			out[t.at] = out[ts[k-1].at] // the same text again
		default:
			b := rd.buf[t.off-r.off : t.off-r.off+int64(t.n)]
			if len(rd.arena)+len(b) > cap(rd.arena) {
				rd.arena = make([]byte, 0, max(arenaSize, len(b)))
			}
			rd.arena = append(rd.arena, b...)
			out[t.at] = unsafe.String(unsafe.SliceData(rd.arena[len(rd.arena)-len(b):]), len(b))
		}
	}
}
