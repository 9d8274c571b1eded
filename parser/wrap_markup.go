package parser

import "bytes"

// This file owns the markup a line pasted into an issue, a chat or a wiki
// carries around its log text, which unwrap removes before the wrappers:
//
//   - Markdown code fences glued to the text at either end
//     ("```Warning  FailedMount …```", real-logs/040 and 048); a fence
//     line of its own ("```", "```console") is markup and skipped
//     (isFence);
//   - inline-code backticks around the line ("`MountVolume… `",
//     real-logs/054);
//   - a blockquote mark, "> " or ">" (real-logs/045 and 069), and on the
//     lines after a quoted one the mark of the same quote;
//   - a leading dot before an event message (".AttachVolume.Attach
//     succeeded …", real-logs/061: a bullet the paste kept).
//
// A blockquote mark and a dot are removed only before text the parser
// reads (a klog header, a JSON log line, an event table row, an event
// message, a line a wrapper claims) or, for a quote, on the lines that
// follow a quoted one: text that merely starts with ">" or "." stays as it
// is.

// fence is a Markdown code fence.
var fence = []byte("```")

// isFence reports whether line is a fence line of its own: "```" with at
// most a language tag after it.
func isFence(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, fence)
	if !ok {
		return false
	}
	rest = bytes.TrimSpace(bytes.TrimLeft(rest, "`"))
	return len(rest) <= 24 && bytes.IndexAny(rest, " \t") < 0
}

// cutMarkup removes the paste markup around line (see the file comment).
func (u *unwrapper) cutMarkup(line []byte) []byte {
	if len(line) == 0 {
		u.quoted = false
		return line
	}
	switch line[0] {
	case '`':
		line = bytes.TrimRight(bytes.TrimLeft(line, "`"), "`")
	case '>':
		rest := bytes.TrimPrefix(line[1:], []byte(" "))
		if u.quoted || readable(rest) {
			u.quoted = true
			return rest
		}
	case '.':
		if rest := line[1:]; eventMessageAt(rest) >= 0 || looksKlog(rest) {
			line = rest
		}
	}
	u.quoted = false
	if line[len(line)-1] == '`' {
		line = bytes.TrimSuffix(line, fence)
	}
	return line
}

// readable reports whether p starts like text the parser reads: a klog
// header, a JSON log line, an event table row, an event message, or a
// line a wrapper claims.
func readable(p []byte) bool {
	if len(p) == 0 {
		return false
	}
	t := bytes.TrimLeft(p, " ")
	return looksKlog(p) || looksJSONLog(p) || bytes.HasPrefix(t, []byte("Warning ")) || bytes.HasPrefix(t, []byte("Normal ")) ||
		eventMessageAt(p) >= 0 || claimedBy(p, wrapNone)
}
