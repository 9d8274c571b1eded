package main

// The version string: -ldflags "-X main.version=…" when a release sets it,
// else Go's build info (module version, VCS revision and dirty flag).

import (
	"fmt"
	"runtime/debug"
)

// versionString is what --version prints and the JSON names.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	return describeBuild(version, bi)
}

// describeBuild renders the version from an -ldflags value (anything but
// "dev") or the build info.
func describeBuild(ldflags string, bi *debug.BuildInfo) string {
	v := ldflags
	if v == "" || v == "dev" {
		v = bi.Main.Version
		if v == "" || v == "(devel)" {
			v = "dev"
		}
	}
	var rev, when string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	out := v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " (" + rev
		if dirty {
			out += ", dirty"
		}
		if when != "" {
			out += ", " + when
		}
		out += ")"
	}
	if bi.GoVersion != "" {
		out += fmt.Sprintf(" %s", bi.GoVersion)
	}
	return out
}
