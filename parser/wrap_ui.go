package parser

import (
	"bytes"
	"time"
)

// This file owns the ui-timestamp wrapper: "7/29/2016 7:38:17 PM" glued to
// the payload (Rancher's log viewer).

var uiWrapper = wrapper{
	name:   "ui-timestamp",
	firsts: "0123456789",
	// "M/" or "MM/": a "/" among the first three bytes
	claims: func(line []byte) bool { return bytes.IndexByte(line[:min(len(line), 3)], '/') > 0 },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapUI(line, out) },
	time:   uiTime,
}

// unwrapUI decodes the Rancher UI prefix "M/D/YYYY H:MM:SS AM|PM" glued to the
// klog level letter (real-logs/015).
func unwrapUI(line []byte, out *unwrapped) bool {
	if len(line) < 18 || !isDigit(line[0]) {
		return false
	}
	s1 := bytes.IndexByte(line[:min(len(line), 3)], '/')
	if s1 <= 0 {
		return false
	}
	sp := bytes.IndexByte(line[:min(len(line), 12)], ' ')
	if sp < 0 {
		return false
	}
	i := sp + 1
	for i < len(line) && (isDigit(line[i]) || line[i] == ':') {
		i++
	}
	if i+3 > len(line) || line[i] != ' ' || (line[i+1] != 'A' && line[i+1] != 'P') || line[i+2] != 'M' {
		return false
	}
	out.kind = wrapUI
	out.ts = line[:i+3]
	rest := line[i+3:]
	if len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	out.payload = rest
	return true
}

// uiTime decodes "7/29/2016 7:38:17 PM": a wall clock with a year, no zone.
func uiTime(ts []byte) (wt wrapTime, ok bool) {
	t, err := time.Parse("1/2/2006 3:04:05 PM", string(ts))
	if err != nil {
		return wt, false
	}
	wt.w = wall{mon: int(t.Month()), day: t.Day(), hour: t.Hour(), min: t.Minute(), sec: t.Second()}
	wt.year = t.Year()
	return wt, true
}
