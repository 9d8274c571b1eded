package parser

import "strings"

// This file owns HasRWXKey, which the scanner answers for each event while
// its text is at hand (Event.RWXKey): the timeline's test of a volume that
// may attach to many nodes.

// HasRWXKey reports whether text has a nestedpendingoperations key that
// carries a node (the ADC uses nodeName only for volumes that may attach to
// many nodes, RWX/ROX): the regexp
//
//	Operation for "\{volumeName:\S+ podName:\S* nodeName:[^}\s]
//
// matched by hand, once per event:
// \S+ and \S* cannot cross a blank, so after each `Operation for
// "{volumeName:` the first whitespace byte must be the blank before
// "podName:", the next one the blank before "nodeName:", and the byte after
// that must be neither "}" nor whitespace.
func HasRWXKey(text string) bool {
	const lead = `Operation for "{volumeName:`
	for {
		i := strings.Index(text, lead)
		if i < 0 {
			return false
		}
		text = text[i+len(lead):]
		if rest, ok := afterWord(text, " podName:", true); ok {
			if rest, ok = afterWord(rest, " nodeName:", false); ok && rest != "" && rest[0] != '}' && !isRESpace(rest[0]) {
				return true
			}
		}
	}
}

// afterWord skips a run of non-whitespace bytes (at least one when
// nonEmpty) and returns what follows word, which must come right after the
// run.
func afterWord(s, word string, nonEmpty bool) (string, bool) {
	j := 0
	for j < len(s) && !isRESpace(s[j]) {
		j++
	}
	if nonEmpty && j == 0 || !strings.HasPrefix(s[j:], word) {
		return "", false
	}
	return s[j+len(word):], true
}

// isRESpace is RE2's \s: [\t\n\f\r ].
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
