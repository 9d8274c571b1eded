package envelope

import "bytes"

// jsonScore scores a JSON sample: 0 unless it starts with "{" or "[" and
// contains every required marker (member names with their quotes, such as
// `"insertId"`); then 60 plus 10 for each optional marker present, at most
// 100. Markers are plain substrings of the sample, so scoring never needs
// the sample to be a whole JSON value.
func jsonScore(s *sample, required, optional []string) int {
	if c := s.first(); c != '{' && c != '[' {
		return 0
	}
	if !s.has(required...) {
		return 0
	}
	score := 60
	for _, o := range optional {
		if s.has(o) {
			score += 10
		}
	}
	return min(score, 100)
}

// lineScore scores a text sample by the share of its lines that fit,
// scaled so that every line fitting gives 90 (a text form is never as
// certain as JSON markers), and 0 when fewer than half fit.
func lineScore(s *sample, fits func([]byte) bool) int {
	f := s.fraction(fits)
	if f < 50 {
		return 0
	}
	return f * 90 / 100
}

// isDigits reports whether b is non-empty and all ASCII digits.
func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// cutSpace splits b at its first space.
func cutSpace(b []byte) (before, after []byte, ok bool) {
	return bytes.Cut(b, []byte(" "))
}

// klogHeaderLike reports whether b starts like a klog header "I0812 …".
func klogHeaderLike(b []byte) bool {
	return len(b) >= 5 && bytes.IndexByte([]byte("IWEF"), b[0]) >= 0 && isDigits(b[1:5])
}
