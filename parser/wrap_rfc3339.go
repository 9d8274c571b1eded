package parser

import (
	"bytes"
)

// This file owns the wrappers that start with an RFC 3339 stamp: CRI
// ("ts stream F|P msg") and kubectl logs --timestamps ("ts msg"); one
// decoder tells them (and short-iso journald) apart. Lines of two
// envelopes start with such a stamp too and are left to the envelope
// detection (parser/envelope), which reads them whole: `aws logs tail`
// (detailed: Python's isoformat, "…T03:10:00.612000+00:00 stream msg",
// which Go's RFC 3339 never writes) and logcli's default output
// ("…Z {labels} msg").

var criWrapper = wrapper{
	name:   "cri",
	firsts: "0123456789",
	claims: func(line []byte) bool { n := rfc3339End(line); return n > 0 && !envelopeStamped(line, n) },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapRFC3339(line, out) },
	time:   stampTime,
}

// kubectlTSWrapper shares the CRI decoder (unwrapRFC3339 decides which of
// the two a line is), so it claims what CRI claims.
var kubectlTSWrapper = wrapper{
	name:   "kubectl-timestamps",
	firsts: criWrapper.firsts,
	claims: criWrapper.claims,
	decode: criWrapper.decode,
	shares: wrapCRI,
	time:   stampTime,
}

// rfc3339End returns the length of an RFC 3339 timestamp at the start of p
// ("2006-01-02T15:04:05[.frac](Z|±hh:mm|±hhmm)"), or 0.
func rfc3339End(p []byte) int {
	if len(p) < 20 || !isDigit(p[0]) || p[4] != '-' || p[7] != '-' || (p[10] != 'T' && p[10] != ' ') || p[13] != ':' {
		return 0
	}
	i := 19
	if i < len(p) && (p[i] == '.' || p[i] == ',') {
		i++
		for i < len(p) && isDigit(p[i]) {
			i++
		}
	}
	if i >= len(p) {
		return 0
	}
	switch p[i] {
	case 'Z':
		return i + 1
	case '+', '-':
		j := i + 1
		for j < len(p) && j < i+6 && (isDigit(p[j]) || p[j] == ':') {
			j++
		}
		if j-i >= 3 {
			return j
		}
	}
	return 0
}

// unwrapRFC3339 decodes CRI ("ts stream F|P msg"), kubectl --timestamps
// ("ts msg") and journalctl -o short-iso ("ts host proc[pid]: msg").
func unwrapRFC3339(line []byte, out *unwrapped) bool {
	n := rfc3339End(line)
	if n == 0 || n >= len(line) || line[n] != ' ' || line[10] != 'T' || envelopeStamped(line, n) {
		return false
	}
	ts := line[:n]
	rest := line[n+1:]
	for _, s := range [][]byte{[]byte("stderr "), []byte("stdout ")} {
		if bytes.HasPrefix(rest, s) && len(rest) >= len(s)+1 {
			tag := rest[len(s)]
			if (tag == 'F' || tag == 'P') && (len(rest) == len(s)+1 || rest[len(s)+1] == ' ') {
				out.kind = wrapCRI
				out.ts = ts
				out.partial = tag == 'P'
				if len(rest) > len(s)+2 {
					out.payload = rest[len(s)+2:]
				} else {
					out.payload = rest[len(rest):]
				}
				return true
			}
		}
	}
	// short-iso journald: second token ends with "]:" or ":" and the payload follows
	if sp := bytes.IndexByte(rest, ' '); sp > 0 && !looksKlog(rest) && rest[0] != '{' {
		if sp2 := bytes.IndexByte(rest[sp+1:], ' '); sp2 > 0 {
			tag := rest[sp+1 : sp+1+sp2]
			if bytes.HasSuffix(tag, []byte("]:")) {
				return journaldTail(line, ts, n+1, out)
			}
		}
	}
	out.kind = wrapKubectlTS
	out.ts = ts
	out.payload = rest
	return true
}

// envelopeStamped reports whether line, whose RFC 3339 stamp ends at n, is
// an `aws logs tail` detailed line ("2024-08-12T03:10:00.612000+00:00
// <stream> <msg>", microseconds and "+00:00", and no journald tail after
// it) or a logcli default line ("<stamp> {labels} <msg>").
func envelopeStamped(line []byte, n int) bool {
	rest := line[min(n+1, len(line)):]
	if len(rest) >= 2 && rest[0] == '{' {
		// logcli labels: {} or {name="…", …}; a JSON payload is {"…
		c := rest[1]
		return c == '}' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if n != 32 || line[19] != '.' || string(line[26:32]) != "+00:00" {
		return false
	}
	// short-iso-precise journald with a colon in the offset is not aws
	sp := bytes.IndexByte(rest, ' ')
	if sp > 0 {
		if sp2 := bytes.IndexByte(rest[sp+1:], ' '); sp2 > 0 && bytes.HasSuffix(rest[sp+1:sp+1+sp2], []byte("]:")) {
			return false
		}
	}
	return true
}
