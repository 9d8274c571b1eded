package parser

import "bytes"

// wall is a clock reading without year and zone, as printed by klog and
// journald. mon == 0 means "no reading".
type wall struct {
	mon, day, hour, min, sec int
	nsec                     int
}

// valid reports whether every field is in range (month 13, hour 25 are not).
func (w wall) valid() bool {
	return w.mon >= 1 && w.mon <= 12 && w.day >= 1 && w.day <= 31 &&
		w.hour < 24 && w.min < 60 && w.sec <= 60
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
func parseKlogHeader(p []byte) (h klogHeader, ok bool) {
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
	// file:line]
	end := bytes.IndexByte(p[i:min(len(p), i+512)], ']')
	if end < 0 {
		h.rest = i
		return h, true
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
		h.rest = i
		return h, true
	}
	h.file = loc
	i += end + 1
	if i < len(p) && p[i] == ' ' {
		i++
	}
	h.rest = i
	return h, true
}
