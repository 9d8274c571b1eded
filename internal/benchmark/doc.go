// Package benchmark holds the end-to-end benchmarks of kcmtrace: a generated
// KCM log (internal/loggen) through parser.ParseAll → timeline.Build →
// rules.Run, reported in MB/s with allocations. It has no code of its own;
// the benchmarks only run under `go test -bench`.
//
//	go test -run '^$' -bench Analyze -benchtime 5x ./internal/benchmark
//	go test -run '^$' -bench Analyze -cpuprofile cpu.prof ./internal/benchmark
//
// The log (32 MiB by default, KCMTRACE_BENCH_SIZE to change) is generated
// once per process into $TMPDIR/kcmtrace-bench and reused across runs.
package benchmark
