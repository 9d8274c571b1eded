package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// TestPrefilterFalseCandidates: the SIMD search proposes few positions
// where no prefilter token is, on every era of generated KCM log and on
// the real corpus. Each such position is a verification for nothing, and
// mostly a return from the kernel too; with the fingerprint "eta" for
// "etach" (metadata, beta) and buckets merged by the count of strings
// they accept, a generated klog printf log had 0.42 of them a line, and
// the search ran at half the speed (BenchmarkIndexToken). The bound is a
// tenth of a line of the generated logs' (mostly other controllers'
// lines). The real corpus is nearly all volume lines, whose tokens
// propose their neighbours' fingerprints ("attach" holds "tac", the
// fingerprint of "etach"): there the bound is one for each token found.
// It counts; it does not time.
func TestPrefilterFalseCandidates(t *testing.T) {
	if !useTeddy {
		t.Skip("no SIMD kernel here")
	}
	inputs := map[string][]byte{}
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured, loggen.JSON} {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 8 << 20, Era: era, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		inputs["generated "+string(era)] = buf.Bytes()
	}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "real-logs", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the real corpus: %v (%d files)", err, len(files))
	}
	var corpus []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		corpus = append(corpus, b...)
	}
	const real = "testdata/real-logs"
	inputs[real] = corpus
	for name, data := range inputs {
		proposed, found := hitTeddy.Candidates(data)
		lines := bytes.Count(data, []byte{'\n'})
		t.Logf("%s: %d lines, %d positions proposed, %d of them tokens", name, lines, proposed, found)
		switch wasted := proposed - found; {
		case name == real && wasted > found:
			t.Errorf("%s: %d positions proposed that are no token's, more than the %d tokens found", name, wasted, found)
		case name != real && wasted*10 > lines:
			t.Errorf("%s: %d positions proposed that are no token's, more than a tenth of its %d lines", name, wasted, lines)
		}
	}
}
