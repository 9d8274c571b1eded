package parser

import (
	"bytes"
	"sync"
	"unsafe"
)

// This file owns decoding ahead: the entries an analysis goroutine finds
// complete inside its block (spec), with their results computed there
// (ahead), which the scanner uses when its entry has exactly that text.

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
}

type ahead struct {
	specs   []spec
	results []emitResult
}

var aheadPool sync.Pool

func getAhead() *ahead {
	if a, ok := aheadPool.Get().(*ahead); ok {
		return a
	}
	return &ahead{}
}

func putAhead(a *ahead) {
	if a == nil {
		return
	}
	clear(a.specs) // their texts alias the block
	clear(a.results)
	a.specs, a.results = a.specs[:0], a.results[:0]
	aheadPool.Put(a)
}

func (a *ahead) holds(s *spec) bool {
	return a != nil && s != nil && len(a.specs) > 0 &&
		uintptr(unsafe.Pointer(s)) >= uintptr(unsafe.Pointer(&a.specs[0])) &&
		uintptr(unsafe.Pointer(s)) <= uintptr(unsafe.Pointer(&a.specs[len(a.specs)-1]))
}

func (a *ahead) decide() {
	if cap(a.results) < len(a.specs) {
		a.results = make([]emitResult, 0, len(a.specs)+len(a.specs)/4)
	}
	for i := range a.specs {
		s := &a.specs[i]
		emit := klogEmit
		if s.json {
			emit = jsonEmit
			s.plumbing = jsonFromInformerPlumbing(s.buf)
		}
		r := emit(s.buf)
		s.plumbing = s.plumbing || r.plumbing
		if r.worthKeeping() {
			a.results = append(a.results, r)
			s.res = &a.results[len(a.results)-1]
		}
	}
}

const maxSpecBytes = 64 << 10

func buildSpecs(data []byte, segs []seg, max int) []spec {
	a := &ahead{}
	a.build(data, segs, max)
	return a.specs
}

func (a *ahead) build(data []byte, segs []seg, max int) {
	specs := a.specs[:0]
	var buf []byte
	start, len0, rel0, relevant, open := 0, 0, false, false, false
	finish := func() {
		if open && relevant && len(buf) <= maxSpecBytes {
			// Most entries stand in the block exactly as joined (LF line
			// ends): point at the block, which the scanner keeps until the
			// entry is applied. Otherwise (CRLF) copy.
			var b []byte
			if end := start + len(buf); end <= len(data) && bytes.Equal(data[start:end], buf) {
				b = data[start:end:end]
			} else {
				b = append([]byte(nil), buf...)
			}
			specs = append(specs, spec{off: start, buf: b, len0: len0, rel0: rel0})
		}
		open, relevant, buf = false, false, buf[:0]
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
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
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
				if _, ok := parseKlogHeader(line); ok {
					open, start, len0 = true, s, len(line)
					buf = append(buf, line...)
					relevant = mayMatter(line)
					rel0 = relevant
				}
			case open && (line[0] == ' ' || line[0] == '\t'):
				t := bytes.TrimLeft(line, " ")
				if bytes.HasPrefix(t, []byte("Normal")) || bytes.HasPrefix(t, []byte("Warning")) {
					finish()
					break
				}
				buf = append(buf, '\n')
				buf = append(buf, line...)
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
