package parser

import (
	"bytes"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// This file owns decoding ahead: the entries an analysis goroutine finds
// complete inside its block (spec), with their results computed there
// (ahead), which the scanner uses when its entry has exactly that text.

// spec is an entry found complete inside one block by an analysis
// goroutine, with its result computed ahead.
type spec struct {
	off  int    // block offset of the entry's header line
	buf  []byte // the entry text as the scanner assembles it
	len0 int    // length of its header line (buf[:len0])
	rel0 bool   // whether the header line has a prefilter token
	json bool   // a JSON log line (one line, one entry) rather than klog
	// res is the result when it is worth keeping (worthKeeping); nil means
	// the entry is not an event. Most candidate entries are not, so they
	// carry no Event. It points into the block's ahead.results.
	res *emitResult
	// plumbing is fromPlumbing(json, buf), found ahead
	plumbing bool
	// hdr is parseKlogHeader(buf), read from the header line, when hdrOK
	hdr   klogHeader
	hdrOK bool
}

// ahead is what the analysis of a block decoded ahead of the scanner: its
// specs and, in results, the results worth keeping they point at. Both
// arrays are recycled (aheadPool) once the scanner is done with the block,
// so a block's results cost no allocation of their own: an emitResult
// holds a whole Event, and most blocks have dozens.
type ahead struct {
	specs   []spec
	results []emitResult
	// arena holds the strings unescaped in decoding the specs
	// (jsonEmitArena, klogEmitArena), which the results may point at
	arena []byte
	// rejected is the last event line found to be no event (eventMemo);
	// it outlives the block (putAhead keeps it), a copy of its text
	rejected eventMemo
}

// aheadPool recycles the ahead of applied blocks.
var aheadPool sync.Pool

func getAhead() *ahead {
	if a, ok := aheadPool.Get().(*ahead); ok {
		return a
	}
	return &ahead{}
}

// putAhead recycles a; nothing may point into it any more.
func putAhead(a *ahead) {
	if a == nil {
		return
	}
	clear(a.specs) // their texts alias the block
	// and the one result past the last kept one, where decide decoded
	// those not worth keeping (it writes no further)
	clear(a.results[:min(len(a.results)+1, cap(a.results))])
	clear(a.arena) // what still pointed there would read zeros, not another block's
	a.specs, a.results, a.arena = a.specs[:0], a.results[:0], a.arena[:0]
	aheadPool.Put(a)
}

// holds reports whether s points into a's specs.
func (a *ahead) holds(s *spec) bool {
	return a != nil && s != nil && len(a.specs) > 0 &&
		uintptr(unsafe.Pointer(s)) >= uintptr(unsafe.Pointer(&a.specs[0])) &&
		uintptr(unsafe.Pointer(s)) <= uintptr(unsafe.Pointer(&a.specs[len(a.specs)-1]))
}

// decide decodes and classifies every spec (klogEmit, or jsonEmit for JSON
// log lines), keeping in a.results the results worth keeping. results has
// room for all of them before the first is taken, so the pointers to its
// elements stay valid.
func (a *ahead) decide() {
	if cap(a.results) < len(a.specs) {
		a.results = make([]emitResult, 0, len(a.specs)+len(a.specs)/4)
	}
	for i := range a.specs {
		s := &a.specs[i]
		// the result is decoded into the next element of results, which
		// is kept when worth keeping (results has room: see above)
		n := len(a.results)
		a.results = a.results[:n+1]
		r := &a.results[n]
		switch {
		case s.json:
			*r = jsonEmitArena(s.buf, &a.arena)
		case s.hdrOK:
			file, tail, ok := eventLineTail(s.buf, &s.hdr)
			if ok && a.rejected.holds(file, tail) {
				s.plumbing, s.res = false, nil // what klogEmitArena says
				a.results = a.results[:n]
				continue
			}
			klogEmitInto(r, s.buf, s.hdr, &a.arena)
			if ok && !r.ok && !r.plumbing && r.panicV == nil {
				a.rejected.set(file, tail)
			}
		default:
			h, _ := parseKlogHeader(s.buf)
			klogEmitInto(r, s.buf, h, &a.arena)
		}
		s.plumbing = r.plumbing
		r.prepare()
		if r.worthKeeping() {
			s.res = r
		} else {
			a.results = a.results[:n] // decoded into again (klogEmitInto zeroes it)
		}
	}
}

// maxSpecBytes caps the text of an entry decoded ahead; longer entries are
// left to the scanner.
const maxSpecBytes = 64 << 10

// buildSpecs decodes ahead the relevant entries that lie inside the
// line-by-line spans of a block: klog entries (a klog header line and the
// blank-indented lines after it, up to the next line of another shape) and
// JSON log lines. It guesses the entry the scanner will assemble; the
// scanner uses a spec only when its text is exactly the entry's (emitKlog,
// emitJSON), so a wrong guess costs time only.
func buildSpecs(data []byte, segs []seg, max int) []spec {
	a := &ahead{}
	a.build(data, segs, max)
	return a.specs
}

// build is buildSpecs into a (its arrays reused): the specs are found
// first, then decided (ahead.decide).
func (a *ahead) build(data []byte, segs []seg, max int) {
	specs := a.specs[:0]
	// The open entry is data[start:start+n] as long as its lines end in
	// LF (most do): its text then points at the block, which the scanner
	// keeps until the entry is applied. Once a line that ended in CR LF
	// is followed by another, the text is joined in buf (copied).
	var buf []byte
	start, n, len0 := 0, 0, 0
	rel0, relevant, open, copied, cr := false, false, false, false, false
	// the header of the entry's first line, when klogEmit may take it as
	// the entry's (headerOfLine), and where its file name lies in the line
	var hdr klogHeader
	hdrOK, fileOff := false, 0
	finish := func() {
		if open && relevant && n <= maxSpecBytes {
			var b []byte
			if copied {
				b = append([]byte(nil), buf...)
			} else {
				b = data[start : start+n : start+n]
			}
			sp := spec{off: start, buf: b, len0: len0, rel0: rel0}
			if hdrOK {
				sp.hdr, sp.hdrOK = hdr, true
				sp.hdr.file = b[fileOff : fileOff+len(hdr.file) : fileOff+len(hdr.file)]
			}
			specs = append(specs, sp)
		}
		open, relevant, copied, buf = false, false, false, buf[:0]
	}
	for _, g := range segs {
		if g.n > 0 {
			continue
		}
		for s := g.off; s < g.end; {
			e := g.end
			if i := bytes.IndexByte(data[s:g.end], '\n'); i >= 0 {
				e = s + i + 1
			}
			line := data[s:e]
			tooLong := len(line) > max
			line = bytes.TrimSuffix(line, []byte("\n"))
			lineCR := len(line) > 0 && line[len(line)-1] == '\r'
			if lineCR {
				line = line[:len(line)-1]
			}
			switch {
			case tooLong || len(line) == 0 || bytes.IndexByte(line, 0) >= 0 || bytes.IndexByte(line, 0xc2) >= 0:
				finish()
			case line[0] == '{':
				// a JSON log line is an entry of its own
				finish()
				if len(line) <= maxSpecBytes && plainJSON(line) && mayMatter(line) {
					b := line[:len(line):len(line)]
					specs = append(specs, spec{off: s, buf: b, len0: len(b), rel0: true, json: true})
				}
			case looksKlog(line):
				finish()
				if h, ok := parseKlogHeader(line); ok {
					open, start, n, len0, cr = true, s, len(line), len(line), lineCR
					relevant = mayMatter(line)
					rel0 = relevant
					hdr, hdrOK = h, headerOfLine(line, &h)
					if hdrOK {
						fileOff = cap(line) - cap(h.file)
					}
				}
			case open && (line[0] == ' ' || line[0] == '\t'):
				t := bytes.TrimLeft(line, " ")
				if bytes.HasPrefix(t, []byte("Normal")) || bytes.HasPrefix(t, []byte("Warning")) {
					finish()
					break
				}
				if cr && !copied {
					buf, copied = append(buf[:0], data[start:start+n]...), true
				}
				if copied {
					buf = append(buf, '\n')
					buf = append(buf, line...)
				}
				n += 1 + len(line)
				cr = lineCR
				if !relevant {
					relevant = mayMatter(line)
				}
			default:
				finish()
			}
			s = e
		}
		finish()
	}
	a.specs = specs
	a.decide()
}

// headerOfLine reports whether h, the header of an entry's first line,
// is the header of the whole entry as parseKlogHeader reads it: the
// header's fields lie within the line, and each of its scans stops inside
// the line at what the entry has there too — the clock is read at fixed
// offsets from a line of at least 24 bytes (canonicalKlogClock), the pid
// ends at a non-digit, and the file part at a ']' of the line (h.file is
// nil when none was found there, and the entry's next lines may hold one).
func headerOfLine(line []byte, h *klogHeader) bool {
	return len(line) >= 24 && h.file != nil && h.rest <= len(line)
}

// eventMemo remembers the last Kubernetes event line ("Event occurred")
// that klogEmitArena found to be no event, by what its verdict depends on:
// its file and its text after the object's name. A controller repeats the
// same event for many objects (ExternalProvisioning for every pending
// claim: a quarter of the relevant entries of a large cluster's churn), so
// most of them are recognised by one comparison instead of decoding and
// classifying the line again.
type eventMemo struct {
	file, tail []byte
	ok         bool
}

// eventObject is the start of an event line's message, up to the object's
// name (classifyEventLine).
const eventObject = `"Event occurred" object="`

// eventLineTail returns, for a klog entry buf of header h whose message is
// an event line, the file and the text after the object's name (from its
// closing quote on): ok when the entry's verdict is a function of those
// alone. It is when klogEmitArena classifies a view of the entry (valid
// UTF-8) and the name holds no quote or backslash: the pairs then decode
// as the tail's (readQuotedIn ends the name at its first quote, unescaped),
// the message is "Event occurred", and classifyEventLine reads the object
// only once the event is found to be one (eventReason: reason and message
// decide). classifyFn, a test's fake, may read anything: no tail then.
func eventLineTail(buf []byte, h *klogHeader) (file, tail []byte, ok bool) {
	t := bytes.TrimRight(buf, "\n")
	if classifyFn != nil || h.rest > len(t) || !bytes.HasPrefix(t[h.rest:], []byte(eventObject)) {
		return nil, nil, false
	}
	name := t[h.rest+len(eventObject):]
	q := bytes.IndexByte(name, '"')
	if q < 0 || bytes.IndexByte(name[:q], '\\') >= 0 || !utf8.Valid(t) {
		return nil, nil, false
	}
	return h.file, name[q:], true
}

// holds reports whether the memo is of an event line with this file and
// tail (eventLineTail).
func (m *eventMemo) holds(file, tail []byte) bool {
	return m.ok && bytes.Equal(m.tail, tail) && bytes.Equal(m.file, file)
}

// set remembers file and tail (copied).
func (m *eventMemo) set(file, tail []byte) {
	m.file = append(m.file[:0], file...)
	m.tail = append(m.tail[:0], tail...)
	m.ok = true
}
