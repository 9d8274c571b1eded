// Command kcmtrace reads kube-controller-manager and kubelet logs (and kubectl
// describe / get events output), reconstructs what the attach/detach
// controller believed about every volume, and names what went wrong.
//
// main only wires the process to run; everything else lives in the packages
// parser, timeline, rules and report.
package main

import (
	"os"
	"runtime"

	// The heap's first pages on a huge page from the start: what the
	// initialisers, the command line and a small run allocate costs one
	// page fault instead of hundreds (a fifth of a small run's time).
	_ "github.com/kcmtrace/kcmtrace/internal/earlyheap"

	// The zone database in the binary (~450 KB): --tz and --display-tz
	// name zones on machines without /usr/share/zoneinfo (Windows,
	// distroless and scratch images, where an incident is often triaged).
	_ "time/tzdata"
)

func main() {
	// No allocation is sampled unless --profile heap or allocs asks
	// (profileFlags.start): the samples' records are ~1.4 MiB of a 1 GiB
	// churn run's peak RSS that nothing reads.
	runtime.MemProfileRate = 0
	progName = nameFromArgv0(os.Args[0])
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
