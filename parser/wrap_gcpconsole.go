package parser

import (
	"bytes"
	"time"
)

// This file owns the gcp-console wrapper: rows copied from the Google
// Cloud console's Logs Explorer results table, one row per entry, its
// cells TAB-separated — an optional row number, the severity word
// (DEFAULT, DEBUG, INFO, NOTICE, WARNING, ERROR, CRITICAL, ALERT,
// EMERGENCY), the time in the console's "2024-08-12 03:10:00.612 UTC"
// form, and the summary, which is the log text (a kubelet's klog line
// with its header; a GKE control-plane message without it, dated by the
// row):
//
//	12	INFO	2024-08-12 03:10:00.612 UTC	I0812 03:10:00.612388       1 reconciler.go:304] …
//
// Summary chips the console puts before the text (a resource name) are
// further cells; the text is the cell a klog header starts, else the last.
// The row's time is the wrapper time (UTC: year and zone evidence for the
// klog clock).

var gcpConsoleWrapper = wrapper{
	name:   "gcp-console",
	firsts: "0123456789DINWECA",
	claims: func(line []byte) bool { _, ok := gcpConsoleCells(line); return ok },
	decode: func(_ *unwrapper, line []byte, out *unwrapped) bool { return unwrapGCPConsole(line, out) },
	time:   gcpConsoleTime,
}

// gcpSeverities are the LogSeverity names the console prints.
var gcpSeverities = [...]string{"DEFAULT", "DEBUG", "INFO", "NOTICE", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY"}

// gcpConsoleLayout is the console's time cell.
const gcpConsoleLayout = "2006-01-02 15:04:05.999999999 MST"

// gcpConsoleCells returns the offset of the time cell of a console row
// (after the optional number and the severity), or false.
func gcpConsoleCells(line []byte) (int, bool) {
	i := 0
	for i < len(line) && i < 9 && isDigit(line[i]) {
		i++
	}
	if i > 0 {
		if i >= len(line) || line[i] != '\t' {
			return 0, false
		}
		i++
	}
	tab := bytes.IndexByte(line[i:min(len(line), i+10)], '\t')
	if tab < 4 {
		return 0, false
	}
	sev := line[i : i+tab]
	found := false
	for _, s := range gcpSeverities {
		if string(sev) == s {
			found = true
			break
		}
	}
	if !found {
		return 0, false
	}
	t := i + tab + 1
	// "2024-08-12 03:10:00[.fff] UTC\t"
	if len(line) < t+24 || line[t+4] != '-' || line[t+10] != ' ' || line[t+13] != ':' {
		return 0, false
	}
	return t, true
}

// unwrapGCPConsole decodes one console row.
func unwrapGCPConsole(line []byte, out *unwrapped) bool {
	t, ok := gcpConsoleCells(line)
	if !ok {
		return false
	}
	end := bytes.IndexByte(line[t:], '\t')
	if end < 0 || !bytes.HasSuffix(line[t:t+end], []byte(" UTC")) {
		return false
	}
	text := line[t+end+1:]
	for cell := text; ; {
		if looksKlog(cell) {
			text = cell
			break
		}
		i := bytes.IndexByte(cell, '\t')
		if i < 0 {
			break
		}
		cell = cell[i+1:]
	}
	out.kind = wrapGCPConsole
	out.ts = line[t : t+end]
	out.payload = text
	return true
}

// gcpConsoleTime reads the time cell.
func gcpConsoleTime(ts []byte) (wrapTime, bool) {
	t, err := time.Parse(gcpConsoleLayout, string(ts))
	if err != nil {
		return wrapTime{}, false
	}
	return wrapTime{abs: t.UTC()}, true
}
