package classifier

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkClassify classifies every record of the catalog examples once per
// iteration (bytes = the records' text).
func BenchmarkClassify(b *testing.B) {
	recs := testRecords(b, testReadFile(b, filepath.Join("..", "..", "testdata", "catalog", "examples.log")))
	n := 0
	for _, r := range recs {
		n += len(r.rec.Rest) + len(r.rec.Msg)
		if r.rec.Table != nil {
			n += len(r.rec.Table.Message)
		}
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range recs {
			Classify(r.rec)
		}
	}
}

// BenchmarkClassifyGenerated classifies the candidate lines (those with a
// prefilter token) of a generated 4 MiB KCM log of each era and traffic
// shape, one sub-benchmark per class of line: Kubernetes events it ignores
// (ExternalProvisioning …) or understands (SuccessfulAttachVolume …), and
// other lines it understands or ignores (informer plumbing). An iteration
// classifies one line (the class's lines in turn), so ns/op is per line and
// bytes are the line's text.
func BenchmarkClassifyGenerated(b *testing.B) {
	for _, era := range loggen.Eras {
		for _, shape := range []loggen.Shape{loggen.ShapeDefault, loggen.ShapeChurn} {
			var buf bytes.Buffer
			if _, err := loggen.Generate(&buf, loggen.Config{Size: 4 << 20, Era: era, Shape: shape, Seed: 1}); err != nil {
				b.Fatal(err)
			}
			var cand []byte
			for line := range bytes.Lines(buf.Bytes()) {
				if hasPrefilterToken(line) {
					cand = append(cand, line...)
				}
			}
			classes := map[string][]testRec{}
			for _, r := range testRecords(b, cand) {
				msg, _ := recordMessage(r.rec, nil)
				_, ok := Classify(r.rec)
				name := map[[2]bool]string{{true, true}: "event-understood", {true, false}: "event-ignored",
					{false, true}: "other-understood", {false, false}: "other-ignored"}[[2]bool{isEventLine(msg), ok}]
				classes[name] = append(classes[name], r)
			}
			for _, name := range []string{"event-ignored", "event-understood", "other-understood", "other-ignored"} {
				recs := classes[name]
				if len(recs) == 0 {
					continue
				}
				n := 0
				for _, r := range recs {
					n += len(r.rec.Rest) + len(r.rec.Msg)
					for _, p := range r.rec.KV {
						n += len(p.Key) + len(p.Value)
					}
				}
				b.Run(fmt.Sprintf("%s/%s/%s", era, shape, name), func(b *testing.B) {
					b.SetBytes(int64(n / len(recs)))
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						Classify(recs[i].rec)
						if i++; i == len(recs) {
							i = 0
						}
					}
				})
			}
		}
	}
}
