package parser

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// This file owns the runs of plain JSON log lines of the fast path: while
// the next line starts `{"ts":` and ends before the next hit, analyzeBlock
// takes it with a newline search (the AVX2 kernel jsonLinesKernel, where
// it runs) and the fold of its "ts", without the general per-line work
// (plainJSON's claimants and shape test).

// jsonHead is how the JSON logger starts every line; jsonHead8 and
// jsonHeadMask compare its 6 bytes within a little-endian 8-byte load.
const (
	jsonHead     = `{"ts":`
	jsonHead8    = uint64('{') | uint64('"')<<8 | uint64('t')<<16 | uint64('s')<<24 | uint64('"')<<32 | uint64(':')<<40
	jsonHeadMask = 1<<48 - 1
)

// jsonHeadPlain reports whether every line of at least 8 bytes starting
// jsonHead is plainJSON, as jsonLogRun assumes: looksJSONLog takes such a
// line ("ts" first), and claimedBy does not when the only wrapper whose
// lines may start with '{' is docker-json, whose claims need `{"log":"`
// (TestJSONHeadPlain holds the registry to it; where it fails, the runs
// are off and every line takes the general path).
var jsonHeadPlain = len(claimants['{']) == 1 && claimants['{'][0] == wrapDocker &&
	dockerHead[:3] != jsonHead[:3]

// jsonLogRun takes the lines of data from s, a line start, up to hit (the
// next token, NUL or no-break space; at or after s) while each is a plain
// JSON line that analyzeBlock would add to the run g: it starts jsonHead,
// its newline is before hit, at most max bytes precede the newline and at
// least 8 remain without a trailing CR. p0 and ce0 are the start and
// content end of the line before s, which analyzeBlock has found plain and
// not yet added to g. The "ts" of that line and of every taken line but
// the last is folded into g (the last stays pending, as in analyzeBlock);
// g's line count and range are the caller's. The kernel (jsonLinesKernel)
// takes most lines, the loop here those it is not sure of.
func jsonLogRun(data []byte, s, hit, max, p0, ce0 int, g *seg) bareRun {
	r := bareRun{prev: -1, last: -1}
	if !jsonHeadPlain {
		return r
	}
	f := jsonFold{lo: -1, hi: -1, ps: p0, pce: ce0}
	var starts [64]int
	for s < hit {
		if useJSONKernel {
			k, end := jsonLinesKernel(unsafe.SliceData(data), len(data), s, hit, max, &starts[0], len(starts))
			if k > 0 {
				for i, ls := range starts[:k] {
					e := end
					if i+1 < k {
						e = starts[i+1]
					}
					ce := e - 1
					if data[ce-1] == '\r' {
						ce--
					}
					f.take(data, g, ls, ce)
				}
				r.prev, r.last = r.last, starts[k-1]
				if k > 1 {
					r.prev = starts[k-2]
				}
				r.n += k
				r.end, r.ce = end, f.pce
				if s = end; s >= hit {
					break
				}
				if k == len(starts) {
					continue
				}
			}
		}
		if hit-s < 8 || binary.LittleEndian.Uint64(data[s:])&jsonHeadMask != jsonHead8 {
			break
		}
		i := bytes.IndexByte(data[s:hit], '\n')
		if i < 0 {
			break
		}
		e := s + i + 1
		ce := e - 1
		if ce-s > max {
			break
		}
		if data[ce-1] == '\r' {
			ce--
		}
		if ce-s < 8 {
			break
		}
		f.take(data, g, s, ce)
		r.n++
		r.prev, r.last, r.end, r.ce = r.last, s, e, ce
		s = e
	}
	f.fold(g)
	return r
}

// jsonFold folds the "ts" of a run's lines into its seg, each once the next
// is taken: ps and pce are the start and content end of the line taken
// last, lo and hi the earliest and latest of the stamps loggerMicros read
// (microseconds; -1 when none), folded at the end.
type jsonFold struct {
	lo, hi  int64
	ps, pce int
}

// take folds the line taken last and takes data[s:ce].
func (f *jsonFold) take(data []byte, g *seg, s, ce int) {
	if us, ok := loggerMicros(data[f.ps:f.pce]); ok {
		if f.lo < 0 || us < f.lo {
			f.lo = us
		}
		if us > f.hi {
			f.hi = us
		}
	} else {
		g.trackTS(data[f.ps:f.pce])
	}
	f.ps, f.pce = s, ce
}

// fold folds lo and hi into g.
func (f *jsonFold) fold(g *seg) {
	if f.lo >= 0 {
		g.foldNS(f.lo * 1e3)
		g.foldNS(f.hi * 1e3)
	}
}

// loggerMicros reads the "ts" of a line as the JSON logger writes it,
// jsonHead, 13 digits of milliseconds and a fraction of one to three
// digits (the logger drops a fraction's trailing zeros: 9% of its lines
// have two digits, 0.9% one) followed by ',' or '}', in
// microseconds: loggerTS's first case, where ok, without its checks for
// the other layouts (ok is false for those, and for a stamp out of
// plausibleMillis; trackTS then reads the line).
func loggerMicros(p []byte) (us int64, ok bool) {
	if len(p) < len(jsonHead)+13+1+3+1 || binary.LittleEndian.Uint64(p)&jsonHeadMask != jsonHead8 {
		return 0, false
	}
	d := p[len(jsonHead):]
	// digits 0–7; then 8–12 and the fraction's three (zeros for those
	// dropped) in one word without the dot (byte 13 of d)
	w := binary.LittleEndian.Uint64(d[8:])
	if byte(w>>40) != '.' {
		return 0, false
	}
	// the fraction's digits as bytes 5–7 of the word, read up to where the
	// number ends: the first ',' or '}' after the dot and a digit
	var frac uint64
	switch {
	case d[15] == ',' || d[15] == '}':
		frac = w>>8&(0xFF<<40) | '0'<<48 | '0'<<56
	case d[16] == ',' || d[16] == '}':
		frac = w>>8&(0xFFFF<<40) | '0'<<56
	case d[17] == ',' || d[17] == '}':
		frac = w>>8&(0xFFFF<<40) | uint64(d[16])<<56
	default:
		return 0, false
	}
	hi, ok1 := eightDigits(binary.LittleEndian.Uint64(d))
	lo, ok2 := eightDigits(w&(1<<40-1) | frac)
	if !ok1 || !ok2 {
		return 0, false
	}
	us = int64(hi)*1e8 + int64(lo)
	if us < plausibleMillis[0]*1e3 || us >= plausibleMillis[1]*1e3 {
		return 0, false
	}
	return us, true
}
