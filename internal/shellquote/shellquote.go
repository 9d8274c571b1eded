// Package shellquote owns quoting words for a POSIX shell, so that every
// command kcmtrace prints for a person to run can be pasted as it is.
package shellquote

import "strings"

// safe are the bytes a word may hold and still need no quotes.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,%@+"

// Quote returns s as one POSIX shell word: as it is when every byte is safe,
// else in single quotes (a ' inside becomes '\”).
func Quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = Quote(w)
	}
	return strings.Join(out, " ")
}
