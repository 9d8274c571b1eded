package report

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/kcmtrace/kcmtrace/internal/swar"
	"github.com/rivo/uniseg"
)

// Fitting text into terminal cells: cutting, windows, wrapping, padding.

// displayWidth is the display cells of s: ansi.StringWidth, without its
// cost for printable ASCII (one cell a byte), which most names and times
// are.
func displayWidth(s string) int {
	if n, ok := markCells(s); ok {
		return n
	}
	return ansi.StringWidth(s)
}

// printableASCII reports whether s is bytes 0x20-0x7e only, eight bytes a
// test (swar.Unprintable).
func printableASCII(s string) bool {
	for len(s) >= 8 {
		if swar.Unprintable(swar.Load(s)) != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// shorten cuts s to max display cells, keeping both ends: "pvc-2708…3c36".
func shorten(s string, max int) string {
	if max <= 1 {
		return s
	}
	if w := displayWidth(s); w <= max {
		return s
	} else if w == len(s) { // printable ASCII: bytes are runes
		head := (max - 1) / 2
		return s[:head] + "…" + s[len(s)-(max-1-head):]
	}
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// truncate cuts s to max display cells with a trailing "…".
func truncate(s string, max int) string {
	if max < 1 {
		return ""
	}
	if cut, ok := simpleCut(s, max); ok {
		if cut < 0 {
			return s
		}
		return s[:cut] + "…"
	}
	if displayWidth(s) <= max {
		return s
	}
	return ansi.Truncate(s, max, "…")
}

// appendTruncated appends truncate(s, max) to dst, without making the cut
// string where simpleCut cuts it.
func appendTruncated(dst []byte, s string, max int) []byte {
	if cut, ok := simpleCut(s, max); ok && max >= 1 {
		if cut < 0 {
			return append(dst, s...)
		}
		return append(append(dst, s[:cut]...), "…"...)
	}
	return append(dst, truncate(s, max)...)
}

// markCells is the width of s when it is printable ASCII and the one-cell
// marks the reports write themselves (→ … × ·), a rune a cell (what
// lipgloss measures: TestMarkCellsMatchLipgloss); ok is false otherwise.
func markCells(s string) (cells int, ok bool) {
	if printableASCII(s) {
		return len(s), true
	}
	for _, r := range s {
		if !oneCell(r) {
			return 0, false
		}
		cells++
	}
	return cells, true
}

// oneCell reports whether r is printable ASCII or one of the one-cell
// marks the reports write themselves (→ … × ·).
func oneCell(r rune) bool {
	return r >= 0x20 && r < 0x7f || r == '→' || r == '…' || r == '×' || r == '·'
}

// simpleCut is where truncate cuts s (max >= 1): the byte offset the "…"
// replaces the rest from, or -1 when s fits; ok is false unless s is
// printable ASCII and the one-cell marks the reports write themselves
// (→ … × ·), a rune a cell, which it cuts as ansi.Truncate does
// (FuzzTruncate) without its allocations.
func simpleCut(s string, max int) (cut int, ok bool) {
	if len(s) <= max && printableASCII(s) {
		return -1, true
	}
	cells := 0
	cut = -1
	for i, r := range s {
		if !oneCell(r) {
			return 0, false
		}
		if cells == max-1 {
			cut = i
		}
		cells++
	}
	if cells <= max {
		return -1, true
	}
	return cut, true
}

// middle cuts s to max cells, keeping a third of the head and the rest of
// the tail: log lines carry their header first and their error last.
func middle(s string, max int) string {
	if max < 8 || ansi.StringWidth(s) <= max {
		return truncate(s, max)
	}
	head := max / 3
	tail := max - head - 3
	h := ansi.Truncate(s, head, "")
	t := ansi.TruncateLeft(s, ansi.StringWidth(s)-tail, "")
	return strings.TrimRight(h, " ") + " … " + strings.TrimLeft(t, " ")
}

// windowKeys are what makes a log line matter, most telling first: window
// centres on the first it finds.
var windowKeys = []string{"ZoneNotMatch", "ZoneMismatch", "can not find", "cannot find", "not find", "NotFound",
	"not attached", "Multi-Attach", "already used by", "maxWaitForUnmountDuration", "DeadlineExceeded",
	"Error:", "failed", "error", "succeeded", "started", "Verified", "marked"}

// window cuts s to max cells around the first of keys (then windowKeys)
// found, with "…" where text was cut; the start stays when no key is found
// or the key is near the start.
func window(s string, max int, keys ...string) string {
	if ansi.StringWidth(s) <= max {
		return s
	}
	k := -1
	for _, key := range append(keys, windowKeys...) {
		if key == "" {
			continue
		}
		if i := strings.Index(s, key); i >= 0 {
			k = i
			break
		}
	}
	startCells := 0
	if k >= 0 {
		startCells = ansi.StringWidth(s[:k]) - max/3
	}
	if startCells <= 0 {
		return truncate(s, max)
	}
	// Keep the subject ("… failed for volume "x" from node "n" : ") whole
	// when it is short, and cut between it and the cause.
	if h := strings.Index(s, " : "); h > 0 && h < k && ansi.StringWidth(s[:h+3]) < max/2 {
		head := s[:h+3]
		return head + window(s[h+3:], max-ansi.StringWidth(head), keys...)
	}
	cut := ansi.TruncateLeft(s, startCells+1, "")
	return "…" + truncate(cut, max-1)
}

// cutCells cuts word, wider than width cells, into lines of width cells
// in one pass, as repeated ansi.Truncate(word, width, "") would (which reads
// the whole rest of the word for each line: quadratic in its length): parts
// are the full lines, rest (restW cells, at most width) what remains. ok is
// false, and word is left to ansi, when word holds control bytes or is not
// valid UTF-8, where ansi's escape parser decides the widths.
func cutCells(word string, width int) (parts []string, rest string, restW int, ok bool) {
	if !utf8.ValidString(word) {
		return nil, "", 0, false
	}
	start, w := 0, 0
	for i := 0; i < len(word); {
		c, n, cw := word[i], 1, 1
		switch {
		case c < 0x20 || c == 0x7f:
			return nil, "", 0, false
		case c >= utf8.RuneSelf:
			// a grapheme cluster from here, as ansi measures one
			var cl string
			cl, _, cw, _ = uniseg.FirstGraphemeClusterInString(word[i:], -1)
			n = len(cl)
		}
		if w+cw > width {
			parts = append(parts, word[start:i])
			start, w = i, 0
		}
		w += cw
		i += n
	}
	return parts, word[start:], w, true
}

// wrap word-wraps s to width cells and returns the lines; words longer
// than a line are cut.
func wrap(s string, width int) []string {
	if wrapsToItself(s, width) {
		return []string{s}
	}
	return wrapWords(s, max(width, 10))
}

// wrapsToItself reports whether wrap(s, width) is s alone: one line of
// printable ASCII and the reports' one-cell marks (markCells), spaced as
// wrapWords spaces it (FuzzWrapOneLine).
func wrapsToItself(s string, width int) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.Contains(s, "  ") {
		return false
	}
	cells, ok := markCells(s)
	return ok && cells <= max(width, 10)
}

// wrapWords is wrap of s at width (at least 10), word by word.
func wrapWords(s string, width int) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	for _, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		if ww > width {
			if parts, rest, rw, ok := cutCells(word, width); ok {
				if curW > 0 {
					lines = append(lines, cur.String())
					cur.Reset()
					curW = 0
				}
				lines = append(lines, parts...)
				word, ww = rest, rw
			}
		}
		for ww > width { // words cutCells leaves (control bytes, invalid UTF-8)
			if curW > 0 {
				lines = append(lines, cur.String())
				cur.Reset()
				curW = 0
			}
			part := ansi.Truncate(word, width, "")
			lines = append(lines, part)
			word = word[len(part):]
			ww = ansi.StringWidth(word)
		}
		if ww == 0 {
			continue
		}
		if curW > 0 && curW+1+ww > width {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		if curW > 0 {
			cur.WriteByte(' ')
			curW++
		}
		cur.WriteString(word)
		curW += ww
	}
	if curW > 0 || len(lines) == 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// padRight pads s with spaces to width display cells.
func padRight(s string, width int) string {
	w := displayWidth(s)
	if w >= width {
		return s
	}
	return s + strings.Repeat(" ", width-w)
}
