package parser

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// This file owns the docker json-file wrapper:
// {"log":"…\n","stream":"stderr","time":"…"}.

// dockerHead is how every docker json-file record starts.
const dockerHead = `{"log":"`

var dockerWrapper = wrapper{
	name:   "docker-json",
	firsts: "{",
	claims: func(line []byte) bool { return bytes.HasPrefix(line, []byte(dockerHead)) },
	decode: (*unwrapper).unwrapDocker,
	time:   stampTime,
}

// unwrapDocker decodes one docker json-file record without a full JSON
// decoder: only "log" and "time" are read.
func (u *unwrapper) unwrapDocker(line []byte, out *unwrapped) bool {
	const head = dockerHead
	if !bytes.HasPrefix(line, []byte(head)) {
		return false
	}
	s, end, ok := u.jsonString(line, len(head)-1)
	if !ok {
		out.broken = true
		out.kind = wrapDocker
		return false
	}
	out.kind = wrapDocker
	if t := bytes.Index(line[end:], []byte(`"time":"`)); t >= 0 {
		ts := line[end+t+len(`"time":"`):]
		if q := bytes.IndexByte(ts, '"'); q >= 0 {
			out.ts = ts[:q]
		}
	}
	if bytes.HasSuffix(s, []byte("\n")) {
		s = s[:len(s)-1]
		if bytes.HasSuffix(s, []byte("\r")) {
			s = s[:len(s)-1]
		}
	} else {
		out.partial = true
	}
	out.payload = s
	return true
}

// jsonString decodes the JSON string whose opening quote is at p[i]. It
// returns the decoded bytes (aliasing p when there is no escape), the offset
// after the closing quote, and ok.
func (u *unwrapper) jsonString(p []byte, i int) ([]byte, int, bool) {
	if i >= len(p) || p[i] != '"' {
		return nil, 0, false
	}
	i++
	start := i
	for j := i; j < len(p); j++ {
		switch p[j] {
		case '"':
			return p[start:j], j + 1, true
		case '\\':
			return u.jsonStringSlow(p, start)
		}
	}
	return nil, 0, false
}

func (u *unwrapper) jsonStringSlow(p []byte, start int) ([]byte, int, bool) {
	b := u.scratch[:0]
	for j := start; j < len(p); j++ {
		c := p[j]
		if c == '"' {
			u.scratch = b
			return b, j + 1, true
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		j++
		if j >= len(p) {
			break
		}
		switch p[j] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			if j+4 < len(p) {
				if r, err := strconv.ParseUint(string(p[j+1:j+5]), 16, 32); err == nil {
					b = utf8.AppendRune(b, rune(r))
					j += 4
					continue
				}
			}
			b = append(b, 'u')
		default:
			b = append(b, p[j])
		}
	}
	u.scratch = b
	return nil, 0, false
}
