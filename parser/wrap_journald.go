package parser

import (
	"bytes"
	"strconv"
	"time"
)

// This file owns the journald wrapper: "Mon DD hh:mm:ss host proc[pid]: "
// (journalctl's default); the short-iso form is decoded by the RFC 3339
// decoder (wrap_rfc3339.go), which hands its tail to journaldTail.

var journaldWrapper = wrapper{
	name:   "journald",
	firsts: "ADFJMNOS", // the month names' first letters
	claims: func(line []byte) bool { return monthIndex(line) > 0 },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapJournald(line, out) },
	time:   stampTime,
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func monthIndex(p []byte) int {
	if len(p) < 3 {
		return 0
	}
	for i, m := range monthNames {
		if p[0] == m[0] && p[1] == m[1] && p[2] == m[2] {
			return i + 1
		}
	}
	return 0
}

// unwrapJournald decodes "Mon DD hh:mm:ss host proc[pid]: msg" (syslog style,
// journalctl's default).
func unwrapJournald(line []byte, out *unwrapped) bool {
	if len(line) < 16 || monthIndex(line) == 0 || line[3] != ' ' {
		return false
	}
	i := 4
	if line[i] == ' ' {
		i++
	}
	for i < len(line) && isDigit(line[i]) {
		i++
	}
	if i >= len(line) || line[i] != ' ' || i+9 > len(line) {
		return false
	}
	tsEnd := i + 9
	if line[i+3] != ':' || line[i+6] != ':' || !isDigit(line[i+1]) || !isDigit(line[i+8]) {
		return false
	}
	if tsEnd >= len(line) || line[tsEnd] != ' ' {
		return false
	}
	return journaldTail(line, line[:tsEnd], tsEnd+1, out)
}

// journaldTail decodes "host proc[pid]: msg" starting at i.
func journaldTail(line, ts []byte, i int, out *unwrapped) bool {
	sp := bytes.IndexByte(line[i:], ' ')
	if sp <= 0 {
		return false
	}
	host := line[i : i+sp]
	j := i + sp + 1
	colon := bytes.Index(line[j:min(len(line), j+128)], []byte(": "))
	if colon <= 0 {
		// "proc[pid]:" at the very end (empty message)
		if bytes.HasSuffix(line, []byte(":")) && j < len(line)-1 {
			colon = len(line) - 1 - j
		} else {
			return false
		}
	}
	tag := line[j : j+colon]
	if bytes.IndexByte(tag, ' ') >= 0 {
		return false
	}
	proc := tag
	if b := bytes.IndexByte(tag, '['); b >= 0 {
		if !bytes.HasSuffix(tag, []byte("]")) {
			return false
		}
		proc = tag[:b]
	}
	out.kind = wrapJournald
	out.ts = ts
	out.host = host
	out.proc = proc
	if j+colon+2 <= len(line) {
		out.payload = line[j+colon+2:]
	} else {
		out.payload = line[len(line):]
	}
	return true
}

// stampTime decodes a wrapper timestamp that is either RFC 3339 (CRI,
// kubectl --timestamps, docker, short-iso journald) or a syslog
// "Jun  7 05:19:34" wall clock without a year (journald).
func stampTime(ts []byte) (wt wrapTime, ok bool) {
	if isDigit(ts[0]) {
		s := string(ts)
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999-0700"} {
			if t, err := time.Parse(layout, s); err == nil {
				wt.abs = t
				return wt, true
			}
		}
		return wt, false
	}
	// "Jun  7 05:19:34"
	m := monthIndex(ts)
	if m == 0 || len(ts) < 15 {
		return wt, false
	}
	f := bytes.Fields(ts[4:])
	if len(f) != 2 || len(f[1]) != 8 {
		return wt, false
	}
	d, err := strconv.Atoi(string(f[0]))
	if err != nil {
		return wt, false
	}
	h, ok1 := num(f[1], 0, 2)
	mi, ok2 := num(f[1], 3, 2)
	se, ok3 := num(f[1], 6, 2)
	if !ok1 || !ok2 || !ok3 {
		return wt, false
	}
	wt.w = wall{mon: m, day: d, hour: h, min: mi, sec: se}
	return wt, wt.w.valid()
}
