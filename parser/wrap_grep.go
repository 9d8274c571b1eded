package parser

import (
	"bytes"
	"strconv"
)

// This file owns the `grep -r` file-name prefix, the one "wrapper" that may
// sit outside another: it is not in the registry (wrappers), unwrap removes
// it first.

// cutGrepPrefix removes a `grep -r` "path:" or "path:123:" prefix when what
// follows starts like a log line.
func cutGrepPrefix(line []byte) ([]byte, bool) {
	n := min(len(line), 512)
	c := bytes.IndexByte(line[:n], ':')
	if c <= 0 {
		return nil, false
	}
	prefix := line[:c]
	if bytes.ContainsAny(prefix, " \t\"'{}[]<>=") {
		return nil, false
	}
	if bytes.IndexByte(prefix, '/') < 0 && !hasLogExt(prefix) {
		return nil, false
	}
	rest := line[c+1:]
	// grep -n line number
	if i := bytes.IndexByte(rest[:min(len(rest), 12)], ':'); i > 0 {
		if _, err := strconv.Atoi(string(rest[:i])); err == nil {
			rest = rest[i+1:]
		}
	}
	if len(rest) == 0 {
		return nil, false
	}
	switch c := rest[0]; {
	case isDigit(c), c == '{', c == '`':
		return rest, true
	case looksKlog(rest), monthIndex(rest) > 0:
		return rest, true
	}
	return nil, false
}

func hasLogExt(p []byte) bool {
	for _, ext := range []string{".log", ".txt", ".out", ".gz", "messages"} {
		if bytes.Contains(p, []byte(ext)) {
			return true
		}
	}
	return false
}
