package parser

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// benchBlockSet is 32 MiB of generated KCM log of one era and shape cut
// into blocks of whole lines, as blockReader does.
type benchBlockSet struct {
	once   sync.Once
	blocks [][]byte
	bytes  int64
}

// benchBlockSets are the sets of the default shape, churnBlockSets those of
// the churn shape.
var (
	benchBlockSets = map[loggen.Era]*benchBlockSet{
		loggen.Legacy: {}, loggen.Structured: {}, loggen.JSON: {},
	}
	churnBlockSets = map[loggen.Era]*benchBlockSet{
		loggen.Legacy: {}, loggen.Structured: {}, loggen.JSON: {},
	}
)

// blocksOf returns the blocks of era's generated log (and their size).
func blocksOf(b *testing.B, era loggen.Era) ([][]byte, int64) {
	return benchBlockSets[era].get(b, loggen.Config{Size: 32 << 20, Era: era, Seed: 1})
}

// churnBlocksOf is blocksOf for the churn shape.
func churnBlocksOf(b *testing.B, era loggen.Era) ([][]byte, int64) {
	return churnBlockSets[era].get(b, loggen.Config{Size: 32 << 20, Era: era, Seed: 1, Shape: loggen.ShapeChurn})
}

// get generates the set's log (cfg) the first time.
func (set *benchBlockSet) get(b *testing.B, cfg loggen.Config) ([][]byte, int64) {
	set.once.Do(func() {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, cfg); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		for len(data) > 0 {
			n := min(len(data), blockSize)
			if k := bytes.LastIndexByte(data[:n], '\n'); k >= 0 && n < len(data) {
				n = k + 1
			}
			set.blocks = append(set.blocks, data[:n])
			set.bytes += int64(n)
			data = data[n:]
		}
	})
	return set.blocks, set.bytes
}

// benchBlockBytes is the size of blocksOfGeneratedLog's blocks.
var benchBlockBytes int64

// blocksOfGeneratedLog is blocksOf the legacy era.
func blocksOfGeneratedLog(b *testing.B) [][]byte {
	blocks, size := blocksOf(b, loggen.Legacy)
	benchBlockBytes = size
	return blocks
}

// BenchmarkAnalyzeBlock is the per-block work of the analysis goroutines
// (token search, line shapes, runs, entries decoded ahead) on one core,
// for each era.
func BenchmarkAnalyzeBlock(b *testing.B) {
	benchEras(b, func(blk []byte) {
		c := &chunk{data: blk, ready: make(chan struct{})}
		c.analyze(DefaultMaxLineBytes, true)
		putSegs(c.segs)
	})
}

// BenchmarkAnalyzeSegs is analyzeBlock alone (token search, line shapes,
// runs), for each era.
func BenchmarkAnalyzeSegs(b *testing.B) {
	segs := make([]seg, 0, 1024)
	benchEras(b, func(blk []byte) { segs = analyzeBlock(blk, DefaultMaxLineBytes, true, segs) })
}

// benchEras runs do over every block of each era's generated log.
func benchEras(b *testing.B, do func(blk []byte)) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			blocks, size := blocksOf(b, era)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, blk := range blocks {
					do(blk)
				}
			}
		})
	}
}

// BenchmarkAheadChurn is the decoding ahead of the analysis goroutines
// (ahead.build: the entries of the line-by-line spans found, decoded,
// classified and prepared) on 32 MiB of the churn shape of each era. Each
// block's spans are found just before (analyzeBlock), which leaves the
// block in cache as in a run, and left out of cpu-ns/spec: the CPU time of
// the goroutine's thread in ahead.build (steadier than wall time on a
// shared machine) per entry decoded ahead.
func BenchmarkAheadChurn(b *testing.B) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			blocks, size := churnBlocksOf(b, era)
			b.SetBytes(size)
			b.ReportAllocs()
			a := &ahead{}
			var segs []seg
			specs := 0
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			for b.Loop() {
				for _, blk := range blocks {
					segs = analyzeBlock(blk, DefaultMaxLineBytes, true, segs)
					t0 := threadCPU()
					a.build(blk, segs, DefaultMaxLineBytes)
					cpu += threadCPU() - t0
					specs += len(a.specs)
					clear(a.results) // as putAhead
					a.results, a.arena = a.results[:0], a.arena[:0]
				}
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(specs), "cpu-ns/spec")
		})
	}
}
