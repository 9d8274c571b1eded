package parser

import (
	"bytes"
	"sync"
	"testing"
)

// bareCall is one call analyzeBlock makes to bareKlogRun.
type bareCall struct {
	blk                   int
	s, hit, max, mon, ref int
}

var (
	bareCallsOnce sync.Once
	bareCalls     []bareCall
)

// bareKlogCalls walks every block of blocksOfGeneratedLog as analyzeBlock
// would and records its calls to bareKlogRun: from each plain bare klog
// line (the reference) the run of the lines after it, up to the next hit
// (indexHit); the line a run stops at is skipped, and becomes the next
// reference when it is a bare klog line itself.
func bareKlogCalls(b *testing.B) []bareCall {
	blocks := blocksOfGeneratedLog(b)
	bareCallsOnce.Do(func() {
		for k, data := range blocks {
			hit := -1
			ref, mon := -1, 0
			for s := 0; s < len(data); {
				if ref >= 0 {
					if hit < s {
						hit = len(data)
						if i := indexHit(data[s:]); i >= 0 {
							hit = s + i
						}
					}
					bareCalls = append(bareCalls, bareCall{k, s, hit, DefaultMaxLineBytes, mon, ref})
					if r := bareKlogRun(data, s, hit, DefaultMaxLineBytes, mon, ref); r.n > 0 {
						s = r.end
					}
				}
				e := len(data)
				if i := bytes.IndexByte(data[s:], '\n'); i >= 0 {
					e = s + i + 1
				}
				ref = -1
				line := bytes.TrimSuffix(bytes.TrimSuffix(data[s:e], []byte("\n")), []byte("\r"))
				if m, ok := plainKlog(line); ok && e-s-1 <= DefaultMaxLineBytes {
					ref, mon = s, m
				}
				s = e
			}
		}
	})
	return bareCalls
}

// BenchmarkBareKlogRun is bareKlogRun (the kernel, where there is one) over
// the generated log, called as analyzeBlock calls it: over all 32 MiB
// (more than the caches hold), and over 192 KiB of the middle block again
// and again (from the cache, as analyzeBlock mostly finds the bytes, its
// token search having just read them).
func BenchmarkBareKlogRun(b *testing.B) {
	blocks := blocksOfGeneratedLog(b)
	calls := bareKlogCalls(b)
	b.Run("all", func(b *testing.B) {
		benchBareKlogCalls(b, blocks, calls, benchBlockBytes)
	})
	b.Run("hot", func(b *testing.B) {
		var hot []bareCall
		mid := len(blocks) / 2
		for _, c := range calls {
			if c.blk == mid && c.s < 192<<10 {
				hot = append(hot, c)
			}
		}
		last := hot[len(hot)-1]
		end := last.s
		if r := bareKlogRun(blocks[mid], last.s, last.hit, last.max, last.mon, last.ref); r.n > 0 {
			end = r.end
		}
		benchBareKlogCalls(b, blocks, hot, int64(end-hot[0].s))
	})
}

// benchBareKlogCalls makes calls, over size bytes of blocks.
func benchBareKlogCalls(b *testing.B, blocks [][]byte, calls []bareCall, size int64) {
	b.SetBytes(size)
	n := 0
	for b.Loop() {
		n = 0
		for _, c := range calls {
			n += bareKlogRun(blocks[c.blk], c.s, c.hit, c.max, c.mon, c.ref).n
		}
	}
	if n == 0 {
		b.Fatal("no lines taken")
	}
	b.ReportMetric(float64(n)/float64(len(calls)), "lines/call")
}
