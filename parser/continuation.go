package parser

import "bytes"

// This file tells a log store's fetch (package livesource) which records
// leave a multi-line klog entry open. A collector that ships every
// physical line as its own record splits a structured entry's "key=<"
// block (klog's multi-line value: "key=<", the value's lines indented by
// a tab, then " >") into records; a line filter keeps the header record,
// which names the volume, and drops the block's lines, which need not.
// The fetch asks Unterminated of each record, fetches a short window of
// that record's stream without the line filter, and joins to the record's
// text the lines BlockLine accepts, so the parser reads the whole entry.

// Unterminated reports whether text (one record's message, possibly of
// several lines) is a klog text entry that leaves a "key=<" block open: a
// line ending in "=<" with no " >" line after it.
func Unterminated(text []byte) bool {
	if _, ok := parseKlogHeader(text); !ok {
		return false
	}
	open := false
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimRight(line, " \r")
		switch {
		case bytes.HasSuffix(line, []byte("=<")):
			open = true
		case open && len(line) > 0 && bytes.Equal(bytes.TrimSpace(line), []byte(">")):
			open = false
		}
	}
	return open
}

// BlockLine says how a record that follows an unterminated entry relates
// to it: part of the entry (a line without a klog header) or not (a new
// entry), and whether it closes the block (" >").
func BlockLine(line []byte) (part, closes bool) {
	if _, ok := parseKlogHeader(line); ok {
		return false, false
	}
	return true, bytes.Equal(bytes.TrimSpace(line), []byte(">"))
}
