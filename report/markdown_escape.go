package report

import (
	"strings"
	"unicode"
)

// Markdown output takes untrusted log text. These helpers make sure none of
// it can open a heading, a list, a link, raw HTML, a table cell or a code
// fence of its own.

// mdText escapes s for inline Markdown (a paragraph, list item or table
// cell): control characters stripped, newlines folded, every character with
// a Markdown or HTML meaning backslash-escaped.
func mdText(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '&', '#', '~', '!', '$':
			b.WriteByte('\\')
		case '-', '+', '=':
			if i == 0 {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. " or "1) " at the start makes an ordered list.
			if isDigits(s[:i]) && i > 0 {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// mdCode is an inline code span holding s, with a delimiter longer than any
// backtick run inside it. For table cells use mdCellCode.
func mdCode(s string) string {
	s = oneLine(s)
	if s == "" {
		return ""
	}
	n := longestRun(s, '`') + 1
	fence := strings.Repeat("`", n)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || (strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ")) {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdCellCode is a code span safe inside a GFM table cell: pipes cannot be
// escaped reliably inside code spans, so text with pipes is escaped instead.
func mdCellCode(s string) string {
	if strings.ContainsRune(s, '|') {
		return mdText(s)
	}
	return mdCode(s)
}

func longestRun(s string, c rune) int {
	best, cur := 0, 0
	for _, r := range s {
		if r == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

// mdFence returns the opening/closing fence for a code block holding body:
// backticks, at least three, longer than any run in the body.
func mdFence(body string) string {
	return strings.Repeat("`", max(3, longestRun(body, '`')+1))
}

// codeBlock renders lines as a fenced code block with an info string.
func codeBlock(info string, lines []string) string {
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(Sanitize(l), "\t", "    ")
	}
	body := strings.Join(lines, "\n")
	f := mdFence(body)
	return f + info + "\n" + body + "\n" + f + "\n"
}

// mermaidText keeps only characters that cannot break a Mermaid statement
// (letters, digits, space and . , _ / ( ) + = × -), collapses spaces and
// caps the length.
func mermaidText(s string, maxLen int) string {
	return mermaidClean(s, maxLen, "")
}

// mermaidMessage is mermaidText for the text of a sequence message, where
// colons after the first are plain text (times read "08:27:15").
func mermaidMessage(s string, maxLen int) string {
	return mermaidClean(s, maxLen, ":")
}

func mermaidClean(s string, maxLen int, extra string) string {
	s = oneLine(s)
	var b strings.Builder
	space := false
	for _, r := range s {
		ok := r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune(" .,_/()+=-"+extra, r) || r == '×'
		if !ok || r == ' ' {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	out := strings.TrimSpace(b.String())
	// "end" alone is a Mermaid keyword; "--" or "->" could read as arrows.
	out = strings.ReplaceAll(out, "--", "- -")
	if r := []rune(out); len(r) > maxLen {
		out = string(r[:maxLen-1]) + "…"
	}
	if strings.EqualFold(out, "end") || out == "" {
		out = "(" + out + ")"
	}
	return out
}
