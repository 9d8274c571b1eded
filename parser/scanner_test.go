package parser

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkFiling is the work of the goroutine that files an input's
// events in order (scanner.block over blocks analysed ahead, as run applies
// them), without the reading and the analysis, on 32 MiB of generated log
// of each era and of the churn shape (legacy).
func BenchmarkFiling(b *testing.B) {
	sets := []string{"churn-legacy"}
	for _, era := range loggen.Eras {
		sets = append(sets, string(era))
	}
	for _, name := range sets {
		b.Run(name, func(b *testing.B) {
			var blocks [][]byte
			var size int64
			if name == "churn-legacy" {
				blocks, size = churnBlocksOf(b, loggen.Legacy)
			} else {
				blocks, size = blocksOf(b, loggen.Era(name))
			}
			b.SetBytes(size)
			chunks := make([]*chunk, len(blocks))
			// the CPU time of the goroutine's thread, which on a shared
			// machine varies less than the time between start and stop
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				for i, blk := range blocks {
					chunks[i] = &chunk{data: blk, ready: make(chan struct{})}
					chunks[i].analyze(DefaultMaxLineBytes, true)
				}
				sc := newScanner(newInputState("x.log", 0), Options{})
				b.StartTimer()
				t0 := threadCPU()
				for _, c := range chunks {
					sc.specs, sc.specAt = c.ahead.specs, 0
					sc.block(c.data, c.segs)
					sc.specs, sc.lineOff = nil, -1
				}
				sc.flushPartial()
				sc.close()
				cpu += threadCPU() - t0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "thread-cpu-ns/op")
		})
	}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
