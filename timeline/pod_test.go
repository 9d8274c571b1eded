package timeline

import (
	"regexp"
	"strings"
	"testing"
)

// isUID takes exactly lower-case 8-4-4-4-12 hex.
func TestIsUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	uid := "cc262a69-56bf-4117-a375-8c9c73dd758f"
	cases := []string{uid, "", "pod-a", strings.ToUpper(uid), uid + "0", uid[:35]}
	for i := range uid { // every byte replaced by a dash, a letter past f, an upper-case hex digit, a non-ASCII byte
		for _, c := range []byte{'-', 'g', 'A', 0xc3, '0'} {
			b := []byte(uid)
			b[i] = c
			cases = append(cases, string(b))
		}
	}
	for _, s := range cases {
		if got, want := isUID(s), re.MatchString(s); got != want {
			t.Errorf("isUID(%q) = %v, want %v", s, got, want)
		}
	}
}
