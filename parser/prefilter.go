package parser

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/teddy"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// prefilterTokens are the byte strings that make a line worth parsing; the
// list and why each is on it live in classifier (tokens.go).
var prefilterTokens = classifier.PrefilterTokens()

// prefilterHashBits sizes the gram table of indexToken.
const prefilterHashBits = 12

func le32(b []byte, i int) uint32 {
	_ = b[i+3]
	return uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
}

func prefilterHash(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - prefilterHashBits) }

// mayMatter reports whether line contains one of the prefilter tokens.
func mayMatter(line []byte) bool { return indexToken(line) >= 0 }

var (
	// tokenTeddy finds the prefilter tokens with the SIMD kernel.
	tokenTeddy = teddy.New(fingerprinted(prefilterTokens))
	// hitLiterals are the prefilter tokens, the NUL byte and the no-break
	// space: whatever keeps a line out of a plain run (analyzeBlock).
	hitLiterals = append([][]byte{{0}, nbsp}, prefilterTokens...)
	// hitTeddy finds hitLiterals.
	hitTeddy = teddy.New(fingerprinted(hitLiterals))
)

// tokenFingerprints gives, for the prefilter tokens whose first 3 bytes are
// common in logs, the offset of the 3 bytes the Teddy kernel looks for
// instead. Chosen by counting each 3-byte part of each token (outside the
// token) in 64 MiB of every era of generated KCM log, in the real logs of
// testdata and in 20 MB of English documentation: with the first bytes,
// "ser", "dis" and "Sta" (and "sta", which the bucket of "Sta" accepted)
// made 9 of 10 kernel candidates, each a return to Go for nothing.
var tokenFingerprints = map[string]int{
	`Started "`: 6, // `d "`: none in generated logs; "Sta" 21.7k per 64 MiB (Status, State, Starting)
	"serial":    2, // "ria": none in logs; "ser" 72k (server, service, user, observed)
	"diskId":    3, // "kId": 72; "dis" 48.6k (display, discovery, disabled)
}

// fingerprinted pairs each literal with its fingerprint offset
// (tokenFingerprints; 0, its first bytes, for the others).
func fingerprinted(lits [][]byte) []teddy.Literal {
	out := teddy.Prefix(lits)
	for i := range out {
		out[i].FP = tokenFingerprints[string(out[i].Lit)]
	}
	return out
}

// useTeddy reports whether the SIMD kernel runs here.
var useTeddy = teddy.Available

// indexToken returns the index of the first prefilter token in b, or -1.
func indexToken(b []byte) int {
	if useTeddy {
		return tokenTeddy.Index(b)
	}
	return indexTokenScalar(b)
}

// indexHit returns the index of the first prefilter token, NUL byte or
// no-break space in b, or -1.
func indexHit(b []byte) int {
	if useTeddy {
		return hitTeddy.Index(b)
	}
	best := indexTokenScalar(b)
	if i := bytes.IndexByte(b, 0); i >= 0 && (best < 0 || i < best) {
		best = i
	}
	if i := bytes.Index(b, nbsp); i >= 0 && (best < 0 || i < best) {
		best = i
	}
	return best
}

// mayMatterSlow is the reference implementation of mayMatter.
func mayMatterSlow(line []byte) bool {
	for _, t := range prefilterTokens {
		if bytes.Contains(line, t) {
			return true
		}
	}
	return false
}

// indexTokenScalar returns the index of the first prefilter token in b, or
// -1, without SIMD. It runs over whole blocks of the input, so the work per
// byte is what counts: it reads the 4 bytes at every even offset only. Every token is at
// least 5 bytes long, so an occurrence at p has its first 4 bytes at p or
// its bytes 1..4 at p+1, one of them even; tokenGrams holds both 4-byte
// grams of every token (hashed into tokenHit), and only a sampled gram whose
// bit is set is compared with the tokens it may start or continue.
func indexTokenScalar(b []byte) int {
	i := 0
	// six grams (offsets i, i+2, …, i+10) per two 8-byte loads; one branch
	// for all of them
	for ; i+14 <= len(b); i += 12 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := binary.LittleEndian.Uint64(b[i+6:])
		if tokenHit[prefilterHash(uint32(x))]|tokenHit[prefilterHash(uint32(x>>16))]|
			tokenHit[prefilterHash(uint32(x>>32))]|tokenHit[prefilterHash(uint32(y))]|
			tokenHit[prefilterHash(uint32(y>>16))]|tokenHit[prefilterHash(uint32(y>>32))] == 0 {
			continue
		}
		for j := i; j < i+12; j += 2 {
			k := le32(b, j)
			h := prefilterHash(k)
			if tokenHit[h] == 0 {
				continue
			}
			if p := tokenAt(b, j, k, h); p >= 0 {
				return p
			}
		}
	}
	for ; i+4 <= len(b); i += 2 {
		k := le32(b, i)
		h := prefilterHash(k)
		if tokenHit[h] == 0 {
			continue
		}
		if p := tokenAt(b, i, k, h); p >= 0 {
			return p
		}
	}
	return -1
}

// tokenAt checks the tokens whose gram k may sit at b[i:]; it returns the
// smallest start of a token found, or -1.
func tokenAt(b []byte, i int, k, h uint32) int {
	best := -1
	for _, g := range tokenGrams[h] {
		if g.k != k {
			continue
		}
		p := i - g.off
		if p < 0 || (best >= 0 && p >= best) {
			continue
		}
		if bytes.HasPrefix(b[p:], g.tok) {
			best = p
		}
	}
	return best
}

// tokenGram is a 4-byte gram of a token at offset off (0 or 1).
type tokenGram struct {
	k   uint32
	off int
	tok []byte
}

var (
	tokenHit   [1 << prefilterHashBits]uint8
	tokenGrams [1 << prefilterHashBits][]tokenGram
)

func init() {
	for _, t := range prefilterTokens {
		if len(t) < 5 {
			panic("prefilter token shorter than 5 bytes: " + string(t))
		}
		for off := 0; off < 2; off++ {
			k := le32(t, off)
			h := prefilterHash(k)
			tokenHit[h] = 1
			tokenGrams[h] = append(tokenGrams[h], tokenGram{k: k, off: off, tok: t})
		}
	}
}

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
	if len(f) >= 4 && isDigit(f[0]) && isDigit(f[1]) && isDigit(f[2]) && (f[3] == ',' || f[3] == '}') {
		// the logger's own: three digits of fraction (microseconds)
		return ms*1e6 + int64(f[0]-'0')*1e5 + int64(f[1]-'0')*1e4 + int64(f[2]-'0')*1e3, true
	}
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
func (g *seg) trackAbs(t time.Time) {
	if t.IsZero() {
		return
	}
	if g.minAbs.IsZero() || t.Before(g.minAbs) {
		g.minAbs = t
	}
	if t.After(g.maxAbs) {
		g.maxAbs = t
	}
}

// nbsp is the UTF-8 no-break space that physical normalises.
var nbsp = []byte("\u00a0")

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
	for s := 0; s < len(data); {
		if pend.kind == plainK && pend.wk == wrapNone && curOpen && cur.n > 0 && !cur.json && cur.wk == wrapNone && cur.mon == pend.mon {
			// the common case, bare klog lines of one month in a run:
			// what the general loop below would do for each, without
			// the bookkeeping
			hitFrom(s)
			if r := bareKlogRun(data, s, hit, max, pend.mon, pend.s); r.n > 0 {
				cur.n += r.n
				cur.end = r.last
				cur.lastOff, cur.payL = r.prev, r.prev
				if r.n == 1 {
					cur.lastOff, cur.payL = pend.s, pend.s
				}
				pend = line{kind: plainK, s: r.last, e: r.end, ce: r.ce, mon: pend.mon, pay: r.last}
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

// fromPlumbing reports whether a plain klog line's payload p, or a plain
// JSON line p (json), is informer plumbing (fromInformerPlumbing,
// jsonFromInformerPlumbing): never relevant, so its tokens do not take it
// out of its run.
func fromPlumbing(json bool, p []byte) bool {
	if json {
		return jsonFromInformerPlumbing(p)
	}
	return fromInformerPlumbing(p)
}

// onlyTokens reports whether line, whose first hit (indexHit) is at i, has
// no NUL byte and no no-break space: its hits are all tokens.
func onlyTokens(line []byte, i int) bool {
	return bytes.IndexByte(line[i:], 0) < 0 && !bytes.Contains(line[i:], nbsp)
}

// plainJSON reports whether the scanner reads p (a whole physical line
// without its line end, starting with "{") as a --logging-format=json
// entry with nothing else to do: no registered wrapper claims it
// (claimedBy; a grep prefix cannot contain "{") and payload sees a JSON
// log line (looksJSONLog).
func plainJSON(p []byte) bool {
	return !claimedBy(p, wrapNone) && looksJSONLog(p)
}

// wrappedLine is what plainWrapped finds in a wrapped klog line.
type wrappedLine struct {
	kind       wrapKind // wrapJournald or wrapCRI
	pay        int      // offset of the payload (the klog header) in the line
	mon        int      // month of the klog header
	host, proc []byte   // journald host and process name
}

// plainWrapped reports whether physical reads p (a whole physical line
// without its line end) as one journald or CRI "F" record carrying a klog
// header line with a valid clock (plainKlog), whatever wrapper the
// unwrapper prefers at that point:
//
//   - no skip rule of physical applies: p starts with a letter or digit
//     (none of "#[$`-") and is no loose prompt (isPromptLoose);
//   - unwrap keeps p whole: it is not itself a klog line (looksKlog) and
//     has no grep prefix (cutGrepPrefix needs a prefix before the first
//     ":" without a blank, with "/" or a log extension; a journald line has
//     a blank before its first ":", a CRI line checked here has
//     "dddd-dd-ddTdd" there);
//   - no other wrapper of the registry claims it (claimedBy), so the
//     unwrapper's preference cannot change the outcome: the journald or
//     CRI decoder reads it whichever wrapper is tried first (the CRI
//     decoder is the kubectl --timestamps decoder alike).
//
// The scanner applies the rest (votes, journald host and process
// bookkeeping, the unwrapper's new preference) in wrappedRun.
func plainWrapped(p []byte) (w wrappedLine, ok bool) {
	if len(p) < 16 {
		return w, false
	}
	var u unwrapped
	switch c := p[0]; {
	case c >= 'A' && c <= 'Z':
		if looksKlog(p) || isPromptLoose(p) || claimedBy(p, wrapJournald) || !unwrapJournald(p, &u) {
			return w, false
		}
	case isDigit(c):
		if len(p) < 20 {
			return w, false // no RFC 3339 stamp (rfc3339End)
		}
		for _, i := range [...]int{1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
			if !isDigit(p[i]) {
				return w, false
			}
		}
		if p[4] != '-' || p[7] != '-' || p[10] != 'T' || p[13] != ':' || p[16] != ':' {
			return w, false
		}
		if isPromptLoose(p) || claimedBy(p, wrapCRI) || !unwrapRFC3339(p, &u) || u.kind != wrapCRI || u.partial {
			return w, false
		}
	default:
		return w, false
	}
	mon, ok := plainKlog(u.payload)
	if !ok {
		return w, false
	}
	return wrappedLine{kind: u.kind, pay: len(p) - len(u.payload), mon: mon, host: u.host, proc: u.proc}, true
}

// plainKlog is plainKlogWall for the month only, checking the fixed
// positions of the header 8 bytes at a time.
func plainKlog(p []byte) (mon int, ok bool) {
	if len(p) < 16 {
		w, ok := plainKlogWall(p)
		return w.mon, ok
	}
	switch p[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return 0, false
	}
	if p[5] != ' ' || p[8] != ':' || p[11] != ':' {
		return 0, false
	}
	// digits at 1-4, 6-7 (first word) and 9-10, 12-13 (second word): a
	// byte c is a digit when c^'0' <= 9, i.e. neither it nor it+0x76 has
	// the top bit set (a carry can only reject, never accept)
	const zeros, add = 0x3030303030303030, 0x7676767676767676
	x := binary.LittleEndian.Uint64(p) ^ zeros
	y := binary.LittleEndian.Uint64(p[8:]) ^ zeros
	if ((x+add)|x)&0x8080008080808000 != 0 || ((y+add)|y)&0x0000808000808000 != 0 {
		return 0, false
	}
	d := func(i int) int { return int(p[i]-'0')*10 + int(p[i+1]-'0') }
	mon, day, hour, mi, sec := d(1), d(3), d(6), d(9), d(12)
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour >= 24 || mi >= 60 || sec > 60 {
		return 0, false
	}
	i := 14
	if p[i] == '.' {
		i += 1 + leadingDigits(p[i+1:])
	}
	i += leadingSpaces(p[i:])
	return mon, i < len(p) && isDigit(p[i])
}

// leadingDigits is the number of ASCII digits at the start of b, found 8
// bytes at a time (plainKlog's fraction of a second).
func leadingDigits(b []byte) int {
	n := 0
	for ; len(b)-n >= 8; n += 8 {
		// as in plainKlog: a byte is a non-digit when it or it+0x76 has
		// the top bit set after ^'0'; a carry only leaves a non-digit,
		// so the lowest flagged byte is the first non-digit
		x := binary.LittleEndian.Uint64(b[n:]) ^ 0x3030303030303030
		if m := ((x + 0x7676767676767676) | x) & 0x8080808080808080; m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
	}
	for n < len(b) && isDigit(b[n]) {
		n++
	}
	return n
}

// leadingSpaces is the number of blanks at the start of b, found 8 bytes at
// a time (the padding before klog's thread id).
func leadingSpaces(b []byte) int {
	n := 0
	for ; len(b)-n >= 8; n += 8 {
		if x := binary.LittleEndian.Uint64(b[n:]) ^ 0x2020202020202020; x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
	}
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// plainKlogWall is parseKlogHeader's decision without the file:line part:
// ok when parseKlogHeader(p) succeeds without badTime; w is the clock.
func plainKlogWall(p []byte) (w wall, ok bool) {
	if len(p) < 15 {
		return w, false
	}
	switch p[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return w, false
	}
	if p[5] != ' ' || p[8] != ':' || p[11] != ':' {
		return w, false
	}
	for _, i := range [...]int{1, 2, 3, 4, 6, 7, 9, 10, 12, 13} {
		if !isDigit(p[i]) {
			return w, false
		}
	}
	w.mon = int(p[1]-'0')*10 + int(p[2]-'0')
	w.day = int(p[3]-'0')*10 + int(p[4]-'0')
	w.hour = int(p[6]-'0')*10 + int(p[7]-'0')
	w.min = int(p[9]-'0')*10 + int(p[10]-'0')
	w.sec = int(p[12]-'0')*10 + int(p[13]-'0')
	if !w.valid() {
		return w, false
	}
	i := 14
	if i < len(p) && p[i] == '.' {
		i++
		scale := 100000000
		for i < len(p) && isDigit(p[i]) {
			w.nsec += int(p[i]-'0') * scale
			scale /= 10
			i++
		}
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	return w, i < len(p) && isDigit(p[i])
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
