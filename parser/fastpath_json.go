package parser

import (
	"bytes"
	"encoding/binary"
)

// This file owns the runs of plain JSON log lines of the fast path: while
// the next line starts `{"ts":` and ends before the next hit, analyzeBlock
// takes it with a newline search and the fold of its "ts", without the
// general per-line work (plainJSON's claimants and shape test).

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
// g's line count and range are the caller's.
func jsonLogRun(data []byte, s, hit, max, p0, ce0 int, g *seg) bareRun {
	r := bareRun{prev: -1, last: -1}
	if !jsonHeadPlain {
		return r
	}
	ps, pce := p0, ce0
	for s < hit && hit-s >= 8 {
		if binary.LittleEndian.Uint64(data[s:])&jsonHeadMask != jsonHead8 {
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
		g.trackTS(data[ps:pce])
		ps, pce = s, ce
		r.n++
		r.prev, r.last, r.end, r.ce = r.last, s, e, ce
		s = e
	}
	return r
}
