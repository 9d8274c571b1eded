package main

// The examples and the exit-code table, shown by --help and the man page.

import (
	"fmt"
	"strings"
)

var exitCodes = []struct {
	code    int
	meaning string
}{
	{exitOK, "success: no finding at or above --fail-on"},
	{exitFindings, "a finding at or above --fail-on"},
	{exitUsage, "usage error: bad flag or value, unknown rule, kind or format, a selector that matches nothing"},
	{exitInput, "an input could not be read (or only in part), or no input yielded any event"},
}

var examples = []struct{ cmd, what string }{
	{"kcmtrace analyze must-gather.tar.gz", "findings and incidents of a must-gather archive"},
	{"kcmtrace analyze -o json kcm.log kubelet.log | jq .findings", "the findings as JSON (-o names a format, as in kubectl)"},
	{"kcmtrace analyze --output-file report.html logs/", "an HTML report for the ticket (the format follows the extension)"},
	{"kcmtrace timeline --volume pvc-5d6c logs/", "one volume's swimlanes and events"},
	{"kcmtrace volumes logs/ -o wide", "every volume with all its names, nothing cut"},
	{"kcmtrace analyze --fail-on warning --since 2h logs/", "a CI gate over the last two hours of the logs"},
	{"source <(kcmtrace completion bash)", "tab completion (also zsh, fish)"},
}

// helpEpilogue is appended to the description that --help shows.
func helpEpilogue() string {
	var b strings.Builder
	b.WriteString("\n\nExamples:\n\n")
	for _, ex := range examples {
		fmt.Fprintf(&b, "    %-60s # %s\n", ex.cmd, ex.what)
	}
	b.WriteString("\nExit codes (the same for every format):\n\n")
	for _, ec := range exitCodes {
		fmt.Fprintf(&b, "    %d  %s\n", ec.code, ec.meaning)
	}
	return strings.TrimRight(b.String(), "\n")
}
