package main

import (
	"runtime/debug"
	"testing"
)

func TestDescribeBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, tc := range []struct{ ldflags, want string }{
		{"dev", "v0.3.0 (0123456789ab, dirty, 2026-01-02T03:04:05Z) go1.26.0"},
		{"v1.0.0", "v1.0.0 (0123456789ab, dirty, 2026-01-02T03:04:05Z) go1.26.0"},
	} {
		if got := describeBuild(tc.ldflags, bi); got != tc.want {
			t.Errorf("describeBuild(%q) = %q, want %q", tc.ldflags, got, tc.want)
		}
	}
	if got := describeBuild("dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); got != "dev" {
		t.Errorf("a devel build without VCS info = %q, want dev", got)
	}
}
