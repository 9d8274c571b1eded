package parser

import (
	"bytes"
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

var (
	benchBlocksOnce sync.Once
	benchBlocks     [][]byte
	benchBlockBytes int64
)

// blocksOfGeneratedLog cuts 32 MiB of generated legacy KCM log into blocks
// of whole lines, as blockReader does.
func blocksOfGeneratedLog(b *testing.B) [][]byte {
	benchBlocksOnce.Do(func() {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 32 << 20, Era: loggen.Legacy, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		for len(data) > 0 {
			n := min(len(data), blockSize)
			if k := bytes.LastIndexByte(data[:n], '\n'); k >= 0 && n < len(data) {
				n = k + 1
			}
			benchBlocks = append(benchBlocks, data[:n])
			benchBlockBytes += int64(n)
			data = data[n:]
		}
	})
	return benchBlocks
}

// BenchmarkAnalyzeBlock is the per-block work of the analysis goroutines
// (token search, line shapes, runs, entries decoded ahead) on one core.
func BenchmarkAnalyzeBlock(b *testing.B) {
	blocks := blocksOfGeneratedLog(b)
	b.SetBytes(benchBlockBytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, blk := range blocks {
			c := &chunk{data: blk, ready: make(chan struct{})}
			c.analyze(DefaultMaxLineBytes, true)
			putSegs(c.segs)
		}
	}
}
