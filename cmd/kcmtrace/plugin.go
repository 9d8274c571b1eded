package main

// kubectl plugin: the same binary installed as kubectl-kcmtrace (krew, or
// GoReleaser's second build of this package) is `kubectl kcmtrace …`.

import "strings"

// progName is the name help, usage and completion use.
var progName = "kcmtrace"

// nameFromArgv0 is "kubectl kcmtrace" for a binary called kubectl-kcmtrace
// (kubectl's plugin convention), else kcmtrace.
func nameFromArgv0(argv0 string) string {
	base := argv0[strings.LastIndexAny(argv0, `/\`)+1:] // either separator, whatever the OS
	base = strings.TrimSuffix(base, ".exe")
	if base == "kubectl-kcmtrace" {
		return "kubectl kcmtrace"
	}
	return "kcmtrace"
}
