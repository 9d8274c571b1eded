package parser

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkExportVsPlain parses a loggen KCM log of 8, 32 and 128 MiB (or
// of KCMTRACE_EXPORT_BENCH_MIB alone) as the plain file and rendered as
// `aws logs filter-log-events` JSON (one pretty-printed "events" document,
// the largest export per record, ~2.8 times the bytes), through
// ParseReader; "full" is the export with the skimming of token-free
// records off. MB/s is of each input's own bytes: equal MB/s across sizes
// is linear cost; ns/op of plain and cloudwatch is the cost of the same
// log content.
//
//	go test ./parser -run XXX -bench ExportVsPlain -benchtime 3x
func BenchmarkExportVsPlain(b *testing.B) {
	sizes := []int64{8 << 20, 32 << 20, 128 << 20}
	if s := os.Getenv("KCMTRACE_EXPORT_BENCH_MIB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		sizes = []int64{int64(n) << 20}
	}
	for _, size := range sizes {
		var plain bytes.Buffer
		if _, err := loggen.Generate(&plain, loggen.Config{Size: size, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		var export bytes.Buffer
		if err := exportgen.CloudWatchEvents(&export, bytes.NewReader(plain.Bytes()), loggen.DefaultStart.Year()); err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			in   []byte
			skim bool
		}{{"plain", plain.Bytes(), true}, {"cloudwatch", export.Bytes(), true}, {"cloudwatch-full", export.Bytes(), false}} {
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, tc.name), func(b *testing.B) {
				defer func(v bool) { envelopeSkim = v }(envelopeSkim)
				envelopeSkim = tc.skim
				b.SetBytes(int64(len(tc.in)))
				b.ReportAllocs()
				for b.Loop() {
					res := ParseReader(bytes.NewReader(tc.in), tc.name, Options{})
					if len(res.Events) == 0 {
						b.Fatal("no events")
					}
				}
			})
		}
	}
}
