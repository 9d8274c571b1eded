package shellquote

import (
	"os/exec"
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"logs/kcm.log":       "logs/kcm.log",
		"":                   "''",
		"my logs/kcm.log":    "'my logs/kcm.log'",
		"it's":               `'it'\''s'`,
		"$(rm -rf /)":        "'$(rm -rf /)'",
		"pvc-1,2":            "pvc-1,2",
		"2024-08-12 03:10":   "'2024-08-12 03:10'",
		"--skew=kubelet=-3s": "--skew=kubelet=-3s",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestJoinRoundTrip hands the joined words to a real shell and checks that
// it reads back the same words.
func TestJoinRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	words := []string{"a b", "it's", `"q"`, "$HOME", "`x`", "*", "tab\there", "new\nline", "ü", ""}
	out, err := exec.Command(sh, "-c", `for w in `+Join(words)+`; do printf '%s\0' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if strings.Join(got, "|") != strings.Join(words, "|") {
		t.Errorf("round trip: got %q, want %q", got, words)
	}
}
