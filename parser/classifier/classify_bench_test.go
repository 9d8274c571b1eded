package classifier

import (
	"path/filepath"
	"testing"
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
