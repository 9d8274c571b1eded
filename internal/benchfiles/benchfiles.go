// Package benchfiles names the log files the *Files benchmarks of parser,
// timeline, rules and report read: the ones in KCMTRACE_BENCH_FILES
// (comma-separated), e.g. the logs scripts/bench.sh generates. Those
// benchmarks are skipped when the variable is unset, so `go test -bench .`
// needs no large file.
package benchfiles

import (
	"os"
	"strings"
	"testing"
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
