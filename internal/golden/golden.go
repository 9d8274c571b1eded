// Package golden compares test output with files under testdata and rewrites
// them when KCMTRACE_UPDATE=1 is set. It is the repository's one update switch.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Update reports whether golden files should be rewritten.
func Update() bool { return os.Getenv("KCMTRACE_UPDATE") == "1" }

// Check compares got with the file at path. With KCMTRACE_UPDATE=1 it writes
// got to path instead (creating directories) and passes.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden %s: %v (run with KCMTRACE_UPDATE=1 to create it)", path, err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file (KCMTRACE_UPDATE=1 rewrites it):\n%s", path, diff(string(want), string(got)))
	}
}

// diff returns the first differing lines, enough to see what changed.
func diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(i + 1))
		b.WriteString("\n  want: " + wl + "\n  got:  " + gl + "\n")
		if shown++; shown == 5 {
			b.WriteString("  …\n")
			break
		}
	}
	return b.String()
}
