package parser

import (
	"bytes"
	"encoding/binary"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// wall is a clock reading without year and zone, as printed by klog and
// journald. mon == 0 means "no reading".
type wall struct {
	mon, day, hour, min, sec int
	nsec                     int
}

// valid reports whether every field is in range (month 13, hour 25 are not).
func (w wall) valid() bool { return validClock(w.mon, w.day, w.hour, w.min, w.sec) }

// validClock is wall.valid on the fields.
func validClock(mon, day, hour, min, sec int) bool {
	return mon >= 1 && mon <= 12 && day >= 1 && day <= 31 &&
		hour < 24 && min < 60 && sec <= 60
}

// klogHeader is the decoded `Lmmdd hh:mm:ss.uuuuuu pid file:line] ` prefix.
type klogHeader struct {
	level   byte
	w       wall
	pid     int
	file    []byte // basename, without ":line"
	rest    int    // offset of the message in the payload
	badTime bool   // header shape is right but a field is out of range
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// num parses p[i:i+n] as a decimal number; ok is false if a byte is not a digit.
func num(p []byte, i, n int) (v int, ok bool) {
	if i+n > len(p) {
		return 0, false
	}
	for _, c := range p[i : i+n] {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// looksKlog is the cheap shape test used for entry boundaries: level letter,
// four digits, a space, and "hh:" .
func looksKlog(p []byte) bool {
	if len(p) < 15 {
		return false
	}
	switch p[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return false
	}
	return isDigit(p[1]) && isDigit(p[2]) && isDigit(p[3]) && isDigit(p[4]) && p[5] == ' ' &&
		isDigit(p[6]) && isDigit(p[7]) && p[8] == ':' && p[11] == ':'
}

// parseKlogHeader decodes a klog/glog header. ok is false when p does not
// start with one. The parser is lenient about the padding of the pid field,
// a missing fraction and a missing "file:line" (then rest starts after the
// pid); a header whose numbers are out of range is still a header (badTime).
//
// The common clock, "Lmmdd hh:mm:ss.uuuuuu " (six digits of fraction, then
// a blank), takes a fast path: it is checked 8 bytes at a time
// (canonicalKlogClock) and read from fixed offsets. Any other header, and
// one without a pid, is left to parseKlogHeaderSlow, the general code. The
// "file:line]" part is klogFile's in either case.
func parseKlogHeader(p []byte) (h klogHeader, ok bool) {
	if !canonicalKlogClock(p) {
		return parseKlogHeaderSlow(p)
	}
	q := p[:22] // the clock (no bounds checks below)
	// d2 is the two-digit number at q[i:]
	d2 := func(i int) int { return int(q[i])*10 + int(q[i+1]) - '0'*11 }
	mon, day, hour, mi, sec := d2(1), d2(3), d2(6), d2(9), d2(12)
	h.level = q[0]
	h.w.mon, h.w.day, h.w.hour, h.w.min, h.w.sec = mon, day, hour, mi, sec
	h.w.nsec = (d2(15)*10000 + d2(17)*100 + d2(19)) * 1000 // six digits of µs
	h.badTime = !validClock(mon, day, hour, mi, sec)
	i := 22
	for i < len(p) && p[i] == ' ' {
		i++
	}
	start, pid := i, 0
	for i < len(p) && isDigit(p[i]) && i-start < 12 {
		pid = pid*10 + int(p[i]-'0')
		i++
	}
	if i == start {
		return parseKlogHeaderSlow(p) // no pid
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	h.pid = pid
	h.file, h.rest = klogFile(p, i)
	return h, true
}

// canonicalKlogClock reports whether p starts with a level letter and
// "mmdd hh:mm:ss.uuuuuu " (digits where the letters are: exactly six of
// fraction, then a blank), followed by at least two bytes. The bytes after
// the letter are checked as three little-endian words, each XORed with a
// template ('0' at the digits, the punctuation itself elsewhere): a digit
// then reads 0–9 and a punctuation byte 0. A byte b is flagged (top bit)
// by (b + add) | b, with add 0x76 where b must be ≤ 9 and 0x7F where it
// must be 0; a byte that passes adds no carry into the next, so the lowest
// wrong byte is always flagged.
func canonicalKlogClock(p []byte) bool {
	if len(p) < 24 {
		return false
	}
	// words at p[1:], p[9:], p[16:] (the last byte of a word first)
	const (
		tmpl0, add0 = 0x3A30_3020_3030_3030, 0x7F76_767F_7676_7676 // "mmdd hh:"
		tmpl1, add1 = 0x3030_2E30_303A_3030, 0x7676_7F76_767F_7676 // "mm:ss.uu"
		tmpl2, add2 = 0x0000_2030_3030_3030, 0x0000_7F76_7676_7676 // "uuuuu " and two bytes
		mask, mask2 = 0x8080_8080_8080_8080, 0x0000_8080_8080_8080
	)
	x := binary.LittleEndian.Uint64(p[1:]) ^ tmpl0
	y := binary.LittleEndian.Uint64(p[9:]) ^ tmpl1
	z := binary.LittleEndian.Uint64(p[16:]) ^ tmpl2
	if ((x+add0)|x)&mask|((y+add1)|y)&mask|((z+add2)|z)&mask2 != 0 {
		return false
	}
	switch p[0] {
	case 'I', 'W', 'E', 'F':
		return true
	}
	return false
}

// parseKlogHeaderSlow is parseKlogHeader for any header.
func parseKlogHeaderSlow(p []byte) (h klogHeader, ok bool) {
	if !looksKlog(p) {
		return h, false
	}
	h.level = p[0]
	h.w.mon, _ = num(p, 1, 2)
	h.w.day, _ = num(p, 3, 2)
	var ok1, ok2, ok3 bool
	h.w.hour, ok1 = num(p, 6, 2)
	h.w.min, ok2 = num(p, 9, 2)
	h.w.sec, ok3 = num(p, 12, 2)
	if !ok1 || !ok2 || !ok3 {
		return h, false
	}
	i := 14
	if i < len(p) && p[i] == '.' {
		i++
		scale := 100000000
		for i < len(p) && isDigit(p[i]) {
			h.w.nsec += int(p[i]-'0') * scale
			scale /= 10
			i++
		}
	}
	if !h.w.valid() {
		h.badTime = true
	}
	// pid
	for i < len(p) && p[i] == ' ' {
		i++
	}
	start := i
	for i < len(p) && isDigit(p[i]) && i-start < 12 {
		h.pid = h.pid*10 + int(p[i]-'0')
		i++
	}
	if i == start {
		return h, false
	}
	for i < len(p) && p[i] == ' ' {
		i++
	}
	h.file, h.rest = klogFile(p, i)
	return h, true
}

// klogFile decodes the "file:line]" part of a klog header that starts at
// p[i]: file is the basename before the line number, rest the offset of
// the message. The first ']' within 512 bytes ends the part; file is what
// lies between the last '/' and the last ':' before it (or the ']'), and
// is nil, rest i, when there is no ']' or a blank in file (the ']' was
// the message's).
//
// The common shape, "dir/file:digits]" without a blank, is decoded here
// by one forward scan, 8 bytes at a time, for the first ']' or blank and
// the last '/' before it; the ':' is the last non-digit of the 8 bytes
// before the ']' (a line number has at most 7 digits). Any other shape
// (a blank first, no ']', no ':' there) is left to klogFileSlow, the
// general code.
func klogFile(p []byte, i int) (file []byte, rest int) {
	lim := min(len(p), i+512)
	end := i   // the first ']' or ' ' from i
	start := i // after the last '/' before end
	for ; lim-end >= 8; end += 8 {
		w := binary.LittleEndian.Uint64(p[end:])
		m := firstBytes(w, ']') | firstBytes(w, ' ')
		s := bytesEqual(w, '/') & (m&-m - 1) // before the first flagged, if any
		if s != 0 {
			start = end + lastByte(s) + 1
		}
		if m != 0 {
			end += bits.TrailingZeros64(m) / 8
			break
		}
	}
	for ; end < lim && p[end] != ']' && p[end] != ' '; end++ {
		if p[end] == '/' {
			start = end + 1
		}
	}
	if end == lim || p[end] != ']' || end < 8 {
		return klogFileSlow(p, i)
	}
	// the ':' is the last non-digit of the 8 bytes before the ']' (a byte
	// v = b^'0' is no digit when v&0x7F + 0x76 or v has the top bit set)
	v := binary.LittleEndian.Uint64(p[end-8:]) ^ 0x3030_3030_3030_3030
	nd := ((v&0x7F7F_7F7F_7F7F_7F7F + 0x7676_7676_7676_7676) | v) & 0x8080_8080_8080_8080
	colon := end - 8 + lastByte(nd)
	if nd == 0 || colon < i || p[colon] != ':' {
		return klogFileSlow(p, i)
	}
	end++
	if end < len(p) && p[end] == ' ' {
		end++
	}
	return p[start:colon], end
}

// firstBytes flags the first byte of w equal to c with its top bit, and
// maybe bytes after it: a byte v = b^c borrows in v - 1 when it is 0, and
// a borrow can only flag bytes above a 0.
func firstBytes(w uint64, c byte) uint64 {
	const ones, tops = 0x0101_0101_0101_0101, 0x8080_8080_8080_8080
	v := w ^ uint64(c)*ones
	return (v - ones) &^ v & tops
}

// bytesEqual flags the bytes of w equal to c with their top bit: a byte
// v = b^c has its top bit set after (v&0x7F + 0x7F) | v exactly when it is
// not 0 (no carry crosses bytes).
func bytesEqual(w uint64, c byte) uint64 {
	const low7, tops = 0x7F7F_7F7F_7F7F_7F7F, 0x8080_8080_8080_8080
	v := w ^ uint64(c)*0x0101_0101_0101_0101
	return ^((v&low7 + low7) | v) & tops
}

// lastByte is the index of the highest byte flagged in m (m != 0).
func lastByte(m uint64) int { return (63 - bits.LeadingZeros64(m)) / 8 }

// klogFileSlow is klogFile for any shape: the first ']', then the last ':'
// and the last '/' before it, each searched for on its own.
func klogFileSlow(p []byte, i int) (file []byte, rest int) {
	end := bytes.IndexByte(p[i:min(len(p), i+512)], ']')
	if end < 0 {
		return nil, i
	}
	loc := p[i : i+end]
	if c := bytes.LastIndexByte(loc, ':'); c >= 0 {
		loc = loc[:c]
	}
	if s := bytes.LastIndexByte(loc, '/'); s >= 0 {
		loc = loc[s+1:]
	}
	if bytes.IndexByte(loc, ' ') >= 0 {
		// "] " found inside the message: no file:line in this header.
		return nil, i
	}
	i += end + 1
	if i < len(p) && p[i] == ' ' {
		i++
	}
	return loc, i
}

// This file owns turning a klog text entry into an event (klogEmit,
// emitKlog), with the retry deadline as clock evidence.

// klogEmit decodes and classifies the klog entry buf.
func klogEmit(buf []byte) emitResult {
	h, _ := parseKlogHeader(buf)
	return klogEmitHeader(buf, h)
}

// klogEmitHeader is klogEmit for an entry whose header h is known
// (parseKlogHeader(buf), as decoding ahead reads it from the first line).
func klogEmitHeader(buf []byte, h klogHeader) emitResult { return klogEmitArena(buf, h, nil) }

// klogEmitArena is klogEmitHeader with the values the classifier unquotes
// in classifying a view of buf appended to arena when not nil
// (Record.Arena): they then live as long as buf's bytes, as the view's
// parts do, and addEvent copies them with the rest.
func klogEmitArena(buf []byte, h klogHeader, arena *[]byte) (r emitResult) {
	klogEmitInto(&r, buf, h, arena)
	return r
}

// klogEmitInto is klogEmitArena into *r (zeroed first), which decoding
// ahead points at the block's next result: a result is over 500 bytes,
// and returned it would be copied twice more on its way there.
func klogEmitInto(r *emitResult, buf []byte, h klogHeader, arena *[]byte) {
	*r = emitResult{}
	var rec record
	// h.file is empty when the header is not one (parseKlogHeader sets it
	// last), so this is fromInformerPlumbing(buf)
	if classifier.IsInformerPlumbing(string(h.file)) {
		r.plumbing = true
		return // never an event (classifyMessage): not worth a copy
	}
	rec.Level, rec.PID = h.level, h.pid
	// the text, and the message as its tail when no byte was replaced
	if t := bytes.TrimRight(buf, "\n"); h.rest <= len(t) && utf8.Valid(t) {
		// Most entries classified are no event: classify a view of buf;
		// for an event, addEvent copies what it keeps (the text into the
		// input's text store, the names interned), so that nothing kept
		// points into buf. The header, file name included, lies within
		// the view.
		view := unsafe.String(unsafe.SliceData(t), len(t))
		rec.File = unsafe.String(unsafe.SliceData(h.file), len(h.file))
		rec.Rest = view[h.rest:]
		rec.Arena = arena
		r.ev, r.ok, r.panicV = classifyGuarded(&rec)
		switch {
		case r.ok:
			r.text = view
		case r.panicV != nil:
			// the panic value may hold parts of the view: panic again
			// on a copy (rare)
			r.text = string(t)
			rec.File, rec.Rest, rec.Arena = string(h.file), r.text[h.rest:], nil
			r.ev, r.ok, r.panicV = classifyGuarded(&rec)
		}
	} else {
		rec.File = string(h.file)
		r.text = sanitizeText(buf)
		rec.Rest = sanitizeText(buf[h.rest:])
		r.ev, r.ok, r.panicV = classifyGuarded(&rec)
	}
	if !r.ok {
		r.ev, r.text = Draft{}, ""
		return
	}
	if rec.Level != 0 {
		r.ev.Level = rec.Level
	}
	if r.ev.PID == 0 {
		r.ev.PID = Int32(rec.PID)
	}
	if r.ev.Retry != nil && r.ev.Retry.Until != "" {
		r.until, r.okU = parseRetryUntil(r.ev.Retry.Until)
		r.backoff = r.ev.Retry.Backoff
	}
	if !r.okU {
		r.until, r.backoff, r.okU = retryFromText(r.text)
	}
}

// emitKlog is emit for a klog entry: it uses the entry's spec when the
// spec's text is exactly the entry's.
func (sc *scanner) emitKlog(e *entry) bool {
	r, event := e.result(klogEmit)
	if !event || sc.failed(r, e.line) {
		return false
	}
	st := sc.st
	// The event is filed from the result itself, which is used once (a
	// spec's by one entry, e.res until the next): finishEvent fills its
	// envelope fields in place rather than in a copy. Of the names
	// prepared, it may change only the node.
	ev := &r.ev
	node := ev.Node
	var m evMeta
	if e.hasWall {
		m.setWall(e.w, e.yoff)
	}
	sc.finishEvent(ev, e)
	// in-band year/zone evidence
	if e.hasWall && r.okU {
		if !plausibleYear(r.until.Year()) {
			st.problem(e.line, "implausible year %d in retry deadline ignored", r.until.Year())
		} else if y, off, ok := matchWall(e.w, r.until.Add(-r.backoff)); ok {
			st.addEvidence(evidence{from: FromRetry, year: y - e.yoff, off: off, hasOff: true, hasYear: true})
		}
	}
	var p *ownPrep
	if r.prepared && ev.Node == node {
		p = &r.prep
	}
	st.addPrepared(ev, m, r.text, p)
	return true
}
