//go:build linux

package thp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetting(t *testing.T) {
	p := filepath.Join(t.TempDir(), "overcommit_memory")
	if err := os.WriteFile(p, []byte("2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Setting(p); got != "2" {
		t.Errorf("Setting = %q, want \"2\"", got)
	}
	if got := Setting(filepath.Join(t.TempDir(), "missing")); got != "" {
		t.Errorf("Setting of a missing file = %q, want \"\"", got)
	}
}
