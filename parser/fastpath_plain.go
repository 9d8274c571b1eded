package parser

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// This file owns what makes a line plain for the fast path: a bare klog
// header line with a valid clock, a JSON log line, or a journald or CRI
// record carrying one, that no other registered wrapper claims.

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
//   - unwrap keeps p whole: it does not end in a code fence (cutMarkup
//     cuts it off), it is not itself a klog line (looksKlog) and
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
	if len(p) < 16 || bytes.HasSuffix(p, fence) {
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
