package main

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestProfileSamplingRate pins who samples allocations: main turns the
// runtime's sampling off, and only a heap or allocs profile turns it on
// again (at the rate that profile needs).
func TestProfileSamplingRate(t *testing.T) {
	old := runtime.MemProfileRate
	defer func() { runtime.MemProfileRate = old }()
	for _, tc := range []struct {
		profile string
		want    int
	}{
		{"none", 0},
		{"cpu", 0},
		{"heap", 4096},
		{"allocs", defaultMemProfileRate},
	} {
		t.Run(tc.profile, func(t *testing.T) {
			runtime.MemProfileRate = 0 // as main leaves it
			stop, err := profileFlags{Profile: tc.profile, ProfileOutput: filepath.Join(t.TempDir(), "p.pprof")}.start()
			if err != nil {
				t.Fatal(err)
			}
			got := runtime.MemProfileRate
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("--profile %s: MemProfileRate %d, want %d", tc.profile, got, tc.want)
			}
		})
	}
}
