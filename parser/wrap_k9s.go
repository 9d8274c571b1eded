package parser

import "bytes"

// This file owns the k9s wrapper: text copied from a terminal UI's box
// (k9s's describe and log views), each row between vertical box-drawing
// borders, "│ Events: … │"; the rows inside are read as they are
// (kubectl describe, klog). The box's top and bottom edges
// ("┌── Describe(…) ──┐", "└──┘") are markup (isBoxEdge).

var k9sWrapper = wrapper{
	name:   "k9s",
	firsts: "\xe2", // the first byte of U+2502 │ and U+2551 ║
	claims: func(line []byte) bool { return boxBorder(line) > 0 },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapK9s(line, out) },
	time:   func([]byte) (wrapTime, bool) { return wrapTime{}, false },
}

// boxBorder returns the length of a vertical border at line's start, or 0.
func boxBorder(line []byte) int {
	if bytes.HasPrefix(line, []byte("│")) || bytes.HasPrefix(line, []byte("║")) {
		return 3
	}
	return 0
}

// unwrapK9s removes the borders (and one blank of padding inside each).
func unwrapK9s(line []byte, out *unwrapped) bool {
	n := boxBorder(line)
	if n == 0 {
		return false
	}
	p := line[n:]
	p = bytes.TrimRight(p, " ")
	if q, ok := bytes.CutSuffix(p, []byte("│")); ok {
		p = bytes.TrimRight(q, " ")
	} else if q, ok := bytes.CutSuffix(p, []byte("║")); ok {
		p = bytes.TrimRight(q, " ")
	}
	if len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	out.kind = wrapK9s
	out.payload = p
	return true
}

// isBoxEdge reports whether line is a box's top, bottom or divider edge:
// it starts with a box-drawing corner or tee and has no vertical border
// inside (a title may sit in it: "┌─── Describe(default/mysql-0) ───┐").
func isBoxEdge(line []byte) bool {
	for _, c := range []string{"┌", "└", "├", "╔", "╚", "╠"} {
		if bytes.HasPrefix(line, []byte(c)) {
			return !bytes.Contains(line[3:], []byte("│"))
		}
	}
	return false
}
