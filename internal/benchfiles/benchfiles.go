// Package benchfiles names the log files the *Files benchmarks of parser,
// timeline, rules and report read: the ones in KCMTRACE_BENCH_FILES
// (comma-separated), e.g. the logs scripts/bench.sh generates. Those
// benchmarks are skipped when the variable is unset, so `go test -bench .`
// needs no large file.
package benchfiles

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Env is the variable that names the files.
const Env = "KCMTRACE_BENCH_FILES"

// Paths returns the files named in Env, skipping b when there are none.
func Paths(b testing.TB) []string {
	env := os.Getenv(Env)
	if env == "" {
		b.Skip(Env + " not set")
	}
	return strings.Split(env, ",")
}

// CPUTime is the CPU time (user and system) the process has used so far:
// the benchmarks report it per operation (cpu-ns/op), every goroutine and
// the collector included, which is steadier than the wall time on a shared
// machine and is what parallel work costs.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU reports the CPU time used since start (a CPUTime) per
// operation of b, as cpu-ns/op.
func ReportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(CPUTime()-start)/float64(b.N), "cpu-ns/op")
}
