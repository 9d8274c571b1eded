package loggen

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestFlat checks the flat shape: two lines per volume, FlatVolumeBytes
// per volume, well-formed six-digit fractions in time order,
// and distinct volume, handle and node names.
func TestFlat(t *testing.T) {
	var buf bytes.Buffer
	const n = 3000
	written, err := Flat(&buf, n, time.Time{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if written != n*FlatVolumeBytes {
		t.Errorf("%d bytes for %d volumes, want %d each", written, n, FlatVolumeBytes)
	}
	if written != int64(buf.Len()) {
		t.Errorf("Flat returned %d bytes, wrote %d", written, buf.Len())
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2*n {
		t.Fatalf("%d lines, want %d", len(lines), 2*n)
	}
	seen := map[string]bool{}
	prev := ""
	for k, l := range lines {
		ts := l[1:21]
		if _, err := time.Parse("0102 15:04:05.000000", ts); err != nil || l[21] != ' ' {
			t.Fatalf("line %d: bad klog time %q: %v", k+1, l[:22], err)
		}
		if ts < prev {
			t.Fatalf("line %d: %s before the previous line's %s", k+1, ts, prev)
		}
		prev = ts
		for _, key := range []string{`volume "`, `^`, `node "`} {
			_, rest, _ := strings.Cut(l, key)
			name, _, _ := strings.Cut(rest, `"`)
			if k%2 == 0 && seen[key+name] {
				t.Fatalf("line %d: %s%s seen before", k+1, key, name)
			}
			seen[key+name] = true
		}
	}
	if !strings.Contains(lines[0], "AttachVolume started") || !strings.Contains(lines[1], "Attach succeeded") {
		t.Errorf("first volume's lines:\n%s\n%s", lines[0], lines[1])
	}
}
