package main

import "testing"

func TestNameFromArgv0(t *testing.T) {
	for argv0, want := range map[string]string{
		"/usr/local/bin/kubectl-kcmtrace": "kubectl kcmtrace",
		`C:\bin\kubectl-kcmtrace.exe`:     "kubectl kcmtrace",
		"./kcmtrace":                      "kcmtrace",
		"kcmtrace-process":                "kcmtrace",
	} {
		if got := nameFromArgv0(argv0); got != want {
			t.Errorf("nameFromArgv0(%q) = %q, want %q", argv0, got, want)
		}
	}
}
