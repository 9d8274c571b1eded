// Package benchmark holds the end-to-end benchmarks of kcmtrace: a generated
// KCM log (internal/loggen) through parser.ParseAll → timeline.Build →
// rules.Run, reported in MB/s with allocations. It has no code of its own;
// the benchmarks only run under `go test -bench`.
//
//	go test -run '^$' -bench Analyze -benchtime 5x ./internal/benchmark
//	go test -run '^$' -bench Analyze -cpuprofile cpu.prof ./internal/benchmark
//
// The logs (32 MiB of KCM log per era by default, KCMTRACE_BENCH_SIZE=bytes
// to change) are generated once per process into a temporary directory that
// is removed at exit. TestHeapStages (skipped unless KCMTRACE_HEAP_INPUTS is
// set) writes heap profiles after each pipeline stage. TestShapesFound, a
// plain test, runs the pipeline over every traffic shape (loggen.Shapes) in
// every era and checks the planted incidents are found.
package benchmark
