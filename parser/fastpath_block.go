package parser

import (
	"bytes"
	"encoding/binary"
	"time"
	"unsafe"
)

// This file owns the block analysis of the fast path: cutting a block of
// whole lines into runs of plain lines and spans read line by line
// (analyzeBlock), the bare klog runs the AVX2 kernel takes, and the time
// range of plain JSON runs.

// seg is a span of a block of whole lines: either a run of n "plain" lines
// (see analyzeBlock) or, when n is 0, lines the scanner reads one by one.
type seg struct {
	off, end int  // byte range in the block, newlines included
	n        int  // plain lines in the run; 0 for a span read line by line
	lastOff  int  // start of the run's last line
	mon      int  // month of the run's lines (klog runs)
	json     bool // the run's lines are JSON log lines (plainJSON), not klog
	// klog runs: the wrapper of the run's lines (plainWrapped; wrapNone for
	// bare klog lines), the block offsets of the klog header of its first
	// and last line, and, for journald, the host of its first line and the
	// process name of all its lines (aliasing the block)
	wk         wrapKind
	pay0, payL int
	host, proc []byte
	// w0 and wL are the clocks of a klog run's first and last line (wL
	// only when it has two or more), read while the block is in cache
	w0, wL wall
	// the earliest and latest "ts" (jsonTS) of a JSON run's lines; zero
	// when none has a usable one. Those written as plain decimals are
	// kept in nanoseconds since the epoch (minNS, maxNS; when hasNS).
	minAbs, maxAbs time.Time
	minNS, maxNS   int64
	hasNS          bool
}

// trackTS folds the "ts" of the plain JSON line into the run's time range,
// as trackAbs(jsonTS(line)) would, without building a time for a decimal
// "ts" (the JSON logger's form).
func (g *seg) trackTS(line []byte) {
	if k, ok := loggerTS(line); ok {
		g.foldNS(k)
		return
	}
	num, other, found := jsonTSNumber(line)
	if !found {
		return
	}
	ms, ns, ok := decimalMillis(num, other)
	if !ok {
		if t, ok := jsonTS(line); ok {
			g.trackAbs(t)
		}
		return
	}
	if ms < plausibleMillis[0] || ms >= plausibleMillis[1] {
		return // jsonTS: not ok
	}
	g.foldNS(ms*1e6 + ns)
}

// foldNS folds a plausible "ts" in nanoseconds into the run's range.
func (g *seg) foldNS(k int64) {
	if !g.hasNS || k < g.minNS {
		g.minNS = k
	}
	if !g.hasNS || k > g.maxNS {
		g.maxNS = k
	}
	g.hasNS = true
}

// loggerTS decodes the "ts" of a line as the JSON logger writes it —
// {"ts": then 13 digits of milliseconds, ".", one or more digits, and a
// byte that cannot continue a number — into nanoseconds, as the general
// path of trackTS would (jsonTSNumber, decimalMillis: the first six digits
// of the fraction; plausibleMillis). ok is false for any other shape, left
// to that path. The digits are checked and read eight at a time.
func loggerTS(p []byte) (k int64, ok bool) {
	if us, ok := loggerMicros(p); ok {
		return us * 1e3, true // the logger's own: three digits of fraction
	}
	const pre = `{"ts":`
	if len(p) < len(pre)+13+2+1 || string(p[:len(pre)]) != pre || p[len(pre)+13] != '.' {
		return 0, false
	}
	d := p[len(pre):]
	hi, ok1 := eightDigits(binary.LittleEndian.Uint64(d))
	lo, ok2 := eightDigits(binary.LittleEndian.Uint64(d[5:]))
	if !ok1 || !ok2 {
		return 0, false
	}
	ms := int64(hi/1000)*1e8 + int64(lo) // digits 0–4, then 5–12
	if ms < plausibleMillis[0] || ms >= plausibleMillis[1] {
		return 0, false
	}
	f := d[14:]
	n := 0
	for n < len(f) && isDigit(f[n]) {
		n++
	}
	if n == 0 || n == len(f) {
		return 0, false
	}
	switch f[n] {
	case '.', 'e', 'E', '+', '-':
		return 0, false
	}
	return ms*1e6 + fracNanos(f[:n]), true
}

// eightDigits reads x, eight bytes in memory order, as eight ASCII digits
// (the first the most significant); ok is false when one is not a digit.
func eightDigits(x uint64) (v uint64, ok bool) {
	// a byte is a digit when its high nibble is 3 and adding 6 keeps it so
	const threes, sixes, highs = 0x3030303030303030, 0x0606060606060606, 0xF0F0F0F0F0F0F0F0
	if x&highs != threes || (x+sixes)&highs != threes {
		return 0, false
	}
	x &= 0x0F0F0F0F0F0F0F0F
	x = (x * (10<<8 + 1)) >> 8 // pairs: 10*first + second in the low byte of each 16 bits
	x = ((x & 0x00FF00FF00FF00FF) * (100<<16 + 1)) >> 16
	x = ((x & 0x0000FFFF0000FFFF) * (10000<<32 + 1)) >> 32
	return x & 0xFFFFFFFF, true
}

// trackAbs folds t into the run's time range exactly as
// inputState.trackAbs would.
func (g *seg) trackAbs(t time.Time) { widen(&g.minAbs, &g.maxAbs, t) }

// analyzeBlock splits a block of whole lines into segs. A line is plain
// when it has no prefilter token, no NUL byte, no no-break space, at most
// max bytes, and is either
//
//   - a klog header line with a valid clock (parseKlogHeader accepts it
//     without badTime): the scanner would open an irrelevant entry for it
//     and nothing else; or
//   - a JSON log line (plainJSON): the scanner would open an irrelevant
//     entry for it, track its "ts" and close the entry at once.
//
// A plain JSON line, and a plain klog line followed in the same block by
// another plain line or by a klog header line with a hit (which closes its
// entry just the same), go into a run; runs hold lines of one kind, and klog
// runs lines of one month. Nothing can be attached to the entries of a
// run, so the scanner only needs the run's line count and the clocks of
// its ends (klog) or the range of its "ts" values (JSON; computed here).
// Every other line stays in a span the scanner reads line by line. Tokens,
// NULs and no-break spaces are searched over the whole block, so the lines
// between hits cost one newline search and a header check each. With fast
// false, the block is one line-by-line span.
func analyzeBlock(data []byte, max int, fast bool, segs []seg) []seg {
	return analyzeLines(data, max, fast, true, segs)
}

// analyzeLines is analyzeBlock with the runs (bareKlogRun, jsonLogRun) or
// without: then the general loop reads every line (plainJSON, plainKlog,
// plainWrapped), the reference the tests hold the runs to.
func analyzeLines(data []byte, max int, fast, runs bool, segs []seg) []seg {
	segs = segs[:0]
	if !fast {
		return append(segs, seg{off: 0, end: len(data)})
	}
	// the next token, NUL or no-break space at or after the current line;
	// len(data) when none
	hit := -1
	// hitFrom brings hit up to date for the line starting at s
	hitFrom := func(s int) {
		if hit < s {
			hit = len(data)
			if i := indexHit(data[s:]); i >= 0 {
				hit = s + i
			}
		}
	}
	// the current segment; the previous line waits for the next one to be
	// known plain (pend*)
	var cur seg
	curOpen := false
	// closeSeg appends cur, with the clocks of a klog run's ends
	closeSeg := func() {
		if cur.n > 0 && !cur.json {
			cur.w0 = wallAt(data, cur.pay0)
			if cur.n > 1 {
				cur.wL = wallAt(data, cur.payL)
			}
		}
		segs = append(segs, cur)
	}
	const (
		notPlain = iota
		plainK   // klog header line
		plainJ   // JSON log line
	)
	// one physical line: its kind, byte range (e after the newline, ce at
	// the end of its content), and for klog lines the month, wrapper,
	// header offset and journald host and process
	type line struct {
		kind, s, e, ce, mon int
		wk                  wrapKind
		pay                 int
		host, proc          []byte
		// the line is a klog header line (bare or wrapped), plain or
		// not: it starts an entry of its own
		header bool
	}
	var pend line
	add := func(l line) {
		ok, js := l.kind != notPlain, l.kind == plainJ
		if !curOpen || ok != (cur.n > 0) || ok && (js != cur.json || !js && (cur.mon != l.mon || cur.wk != l.wk || !bytes.Equal(cur.proc, l.proc))) {
			if curOpen {
				closeSeg()
			}
			curOpen = true
			cur = seg{off: l.s, end: l.e}
			if ok {
				cur.lastOff, cur.mon, cur.json = l.s, l.mon, js
				cur.wk, cur.pay0, cur.host, cur.proc = l.wk, l.pay, l.host, l.proc
			}
		}
		cur.end = l.e
		if ok {
			cur.n++
			cur.lastOff, cur.payL = l.s, l.pay
			if js {
				cur.trackTS(data[l.s:l.ce])
			}
		}
	}
	// extend adds pend and the lines of a run but its last to cur; the
	// last becomes pend
	extend := func(r bareRun, kind int) {
		cur.n += r.n
		cur.end = r.last
		cur.lastOff, cur.payL = r.prev, r.prev
		if r.n == 1 {
			cur.lastOff, cur.payL = pend.s, pend.s
		}
		pend = line{kind: kind, s: r.last, e: r.end, ce: r.ce, mon: pend.mon, pay: r.last}
	}
	for s := 0; s < len(data); {
		if runs && pend.kind == plainK && pend.wk == wrapNone && curOpen && cur.n > 0 && !cur.json && cur.wk == wrapNone && cur.mon == pend.mon {
			// the common case, bare klog lines of one month in a run:
			// what the general loop below would do for each, without
			// the bookkeeping
			hitFrom(s)
			if r := bareKlogRun(data, s, hit, max, pend.mon, pend.s); r.n > 0 {
				extend(r, plainK)
				s = r.end
				continue
			}
		}
		if runs && pend.kind == plainJ && curOpen && cur.n > 0 && cur.json {
			// plain JSON lines in a run: as the general loop below,
			// without the bookkeeping (jsonLogRun)
			hitFrom(s)
			if r := jsonLogRun(data, s, hit, max, pend.s, pend.ce, &cur); r.n > 0 {
				extend(r, plainJ)
				s = r.end
				continue
			}
		}
		e := len(data)
		if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
			e = s + i + 1
		}
		ce := e
		if ce > s && data[ce-1] == '\n' {
			ce--
		}
		l := line{kind: notPlain, s: s, e: e, ce: ce, pay: s}
		if ce-s <= max {
			if ce > s && data[ce-1] == '\r' {
				ce--
				l.ce = ce
			}
			if ce > s && data[s] == '{' {
				if plainJSON(data[s:ce]) {
					l.kind = plainJ
				}
			} else if m, ok := plainKlog(data[s:ce]); ok {
				l.kind, l.mon = plainK, m
			} else if w, ok := plainWrapped(data[s:ce]); ok {
				l.kind, l.mon, l.wk, l.pay, l.host, l.proc = plainK, w.mon, w.kind, s+w.pay, w.host, w.proc
			}
		}
		l.header = l.kind == plainK
		if l.kind != notPlain {
			hitFrom(s)
			if hit < ce && !(onlyTokens(data[s:ce], hit-s) && fromPlumbing(l.kind == plainJ, data[l.pay:ce])) {
				l.kind = notPlain
			}
		}
		if pend.e > 0 {
			// a klog line joins a run only when the next line closes
			// its entry: a plain line, or a klog header line with a hit
			if pend.kind == plainK && l.kind == notPlain && !l.header {
				pend.kind = notPlain
			}
			add(pend)
		}
		pend = l
		s = e
	}
	if pend.e > 0 {
		if pend.kind == plainK {
			pend.kind = notPlain
		}
		add(pend)
	}
	if curOpen {
		closeSeg()
	}
	return segs
}

// bareRun is what bareKlogRun found: n lines, the start of the last (last)
// and of the one before it (prev; unset when n is 1), the end of the last
// line after its newline (end) and of its content (ce).
type bareRun struct{ n, prev, last, end, ce int }

// bareKlogRun reads the lines of data from s, a line start, while each is
// a whole bare klog header line (plainKlog) of month mon, of at most max
// bytes, ending before hit. These are the lines analyzeBlock would add one
// by one to the open klog run of that month. ref is the start of such a
// line already taken: the kernel (bareKlogKernel, where there is one)
// takes the lines whose minute is the reference's; the others are read
// here, and each taken becomes the reference.
func bareKlogRun(data []byte, s, hit, max, mon, ref int) bareRun {
	r := bareRun{prev: -1, last: -1}
	for s < hit {
		if useBareKernel && ref+11 <= len(data) {
			n, prev, last, end := bareKlogKernel(unsafe.SliceData(data), len(data), s, hit, max,
				binary.LittleEndian.Uint64(data[ref+1:]), uint64(binary.LittleEndian.Uint16(data[ref+9:])))
			if n > 0 {
				if n == 1 {
					prev = r.last
				}
				r.n += n
				r.prev, r.last, r.end, r.ce = prev, last, end, end-1
				if data[r.ce-1] == '\r' {
					r.ce--
				}
				if s = end; s >= hit {
					break
				}
			}
		}
		e, ce, ok := bareKlogLine(data, s, hit, max, mon)
		if !ok {
			break
		}
		r.n++
		r.prev, r.last, r.end, r.ce = r.last, s, e, ce
		ref, s = s, e
	}
	return r
}

// bareKlogLine reports whether the line of data at s is one bareKlogRun
// takes, and where it ends (after its newline, e; its content, ce).
func bareKlogLine(data []byte, s, hit, max, mon int) (e, ce int, ok bool) {
	i := bytes.IndexByte(data[s:hit], '\n')
	if i < 0 {
		return 0, 0, false
	}
	e = s + i + 1
	ce = e - 1
	if ce-s > max {
		return 0, 0, false
	}
	if ce > s && data[ce-1] == '\r' {
		ce--
	}
	m, ok := plainKlog(data[s:ce])
	return e, ce, ok && m == mon
}
