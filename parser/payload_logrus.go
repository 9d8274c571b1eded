package parser

import (
	"fmt"
	"strings"
)

// This file owns the logrus text payload: time="…" level=… msg="…".

// logrusFields reads level= and msg= of a logrus text line.
func logrusFields(p []byte) (level byte, msg string) {
	s := string(p)
	if i := strings.Index(s, " level="); i >= 0 {
		switch {
		case strings.HasPrefix(s[i+7:], "error"), strings.HasPrefix(s[i+7:], "fatal"):
			level = 'E'
		case strings.HasPrefix(s[i+7:], "warn"):
			level = 'W'
		default:
			level = 'I'
		}
	}
	if i := strings.Index(s, ` msg="`); i >= 0 {
		rest := s[i+5:]
		if j := closingQuote(rest); j > 0 {
			if u, err := unquoteLoose(rest[:j+1]); err == nil {
				msg = u
			}
		}
	}
	return level, msg
}

func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func unquoteLoose(s string) (string, error) {
	var u unwrapper
	b, _, ok := u.jsonString([]byte(s), 0)
	if !ok {
		return "", fmt.Errorf("bad quoted string")
	}
	return string(b), nil
}
