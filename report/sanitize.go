package report

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/internal/swar"
)

// Sanitize makes untrusted log text safe to print: it removes ANSI escape
// sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-byte ESC sequences, and
// their C1 forms), every other C0/C1 control character except tab and
// newline, DEL, and bidirectional override characters; invalid UTF-8 becomes
// U+FFFD. Carriage returns and backspaces are dropped, so a line cannot
// overwrite what was printed before it.
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == 0x1b: // ESC
			i = skipEscape(s, i+1)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
			continue
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// dropped
		case isBidi(r), isZeroWidth(r):
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s needs no work (the common case: printable
// ASCII, tabs and newlines). Eight bytes of printable ASCII are one test
// (swar.Unprintable); a word with any other byte is looked at byte by byte.
func isClean(s string) bool {
	for len(s) >= 8 {
		if swar.Unprintable(swar.Load(s)) != 0 && !cleanBytes(s[:8]) {
			return false
		}
		s = s[8:]
	}
	return cleanBytes(s)
}

// cleanBytes is isClean one byte at a time.
func cleanBytes(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false
		}
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

// isZeroWidth reports invisible characters that can hide text or split a
// name in two on a terminal: zero-width space/joiners, word joiner and
// invisible operators, BOM, Mongolian vowel separator, soft hyphen.
func isZeroWidth(r rune) bool {
	return (r >= 0x200b && r <= 0x200d) || (r >= 0x2060 && r <= 0x2064) || r == 0xfeff || r == 0x180e || r == 0x00ad
}

func isBidi(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// skipEscape skips an escape sequence whose ESC was just before i and returns
// the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20–0x2F, then one final byte 0x30–0x7E.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips CSI parameters, intermediates and the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips an OSC/DCS/SOS/PM/APC string up to its terminator (BEL,
// ESC \, or C1 ST). An unterminated string is cut at the end of the line so
// that one bad byte does not swallow the rest of the text.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case s[i] == '\n':
			return i
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

// OneLine is oneLine for the CLI: every file name and message it prints on
// stderr goes through the sanitiser log text goes through.
func OneLine(s string) string { return oneLine(s) }

// oneLine sanitises s and folds it onto one line (newlines and tabs become
// spaces, runs of spaces are kept).
func oneLine(s string) string {
	if printableASCII(s) {
		return s // clean, and on one line
	}
	s = Sanitize(s)
	if strings.ContainsAny(s, "\n\t") {
		s = strings.NewReplacer("\n", " ⏎ ", "\t", " ").Replace(s)
	}
	return s
}

// lazyRegexp returns a function that compiles expr on its first call: a
// run uses few of the reports' expressions, and compiling all of them at
// start-up took ~0.8 ms of every command (GODEBUG=inittrace=1).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
