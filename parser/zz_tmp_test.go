package parser
import ("os";"testing")
func BenchmarkTmpIndexToken(b *testing.B) {
	d, _ := os.ReadFile("/tmp/kcmtrace-bench/kcm-legacy-128MiB-seed1-c610ac1f.log")
	d = d[:64<<20]
	b.SetBytes(int64(len(d)))
	hits, probes := 0, 0
	for b.Loop() {
		hits = 0
		for s := 0; s < len(d); {
			i := indexToken(d[s:])
			if i < 0 { break }
			hits++
			s += i + 1
		}
	}
	for i := 0; i+4 <= len(d); i += 2 { h := prefilterHash(le32(d, i)); if tokenBits[h/64]&(1<<(h%64)) != 0 { probes++ } }
	b.Logf("hits %d probes %d of %d samples", hits, probes, len(d)/2)
}
func BenchmarkTmpAnalyze(b *testing.B) {
	d, _ := os.ReadFile("/tmp/kcmtrace-bench/kcm-legacy-128MiB-seed1-c610ac1f.log")
	d = d[:64<<20]
	b.SetBytes(int64(len(d)))
	var segs []seg
	for b.Loop() {
		for s := 0; s < len(d); s += 4<<20 {
			blk := d[s:min(len(d), s+4<<20)]
			segs = analyzeBlock(blk, 1<<24, true, segs)
		}
	}
}
