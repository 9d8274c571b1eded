package parser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkExportVsPlain parses a loggen KCM log (64 MiB, or
// KCMTRACE_EXPORT_BENCH_MIB) as the plain file and rendered as
// `aws logs filter-log-events` JSON (one pretty-printed "events" document,
// the largest export per record), through ParseReader. MB/s is of each
// input's own bytes; ns/op of the two is the cost of the same log content.
//
//	go test ./parser -run XXX -bench ExportVsPlain -benchtime 3x
func BenchmarkExportVsPlain(b *testing.B) {
	size := int64(64 << 20)
	if s := os.Getenv("KCMTRACE_EXPORT_BENCH_MIB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		size = int64(n) << 20
	}
	var plain bytes.Buffer
	if _, err := loggen.Generate(&plain, loggen.Config{Size: size, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	export := cloudwatchEvents(b, plain.Bytes())
	for _, tc := range []struct {
		name string
		in   []byte
	}{{"plain", plain.Bytes()}, {"cloudwatch", export}} {
		b.Run(tc.name, func(b *testing.B) {
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

// cloudwatchEvents renders klog lines (of year loggen.DefaultStart, UTC)
// as a filter-log-events document, laid out as the aws CLI prints it.
func cloudwatchEvents(b *testing.B, log []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(log) * 3 / 2)
	out.WriteString("{\n    \"events\": [\n")
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(nil, 16<<20)
	year := loggen.DefaultStart.Year()
	for i := 0; sc.Scan(); i++ {
		line := sc.Bytes()
		h, ok := parseKlogHeader(line)
		if !ok {
			b.Fatalf("line %d is not klog: %.80q", i+1, line)
		}
		t := time.Date(year, time.Month(h.w.mon), h.w.day, h.w.hour, h.w.min, h.w.sec, h.w.nsec, time.UTC)
		msg, _ := json.Marshal(string(line))
		if i > 0 {
			out.WriteString(",\n")
		}
		fmt.Fprintf(&out, "        {\n            \"logStreamName\": \"kube-controller-manager-0123456789abcdef0123456789abcdef\",\n            \"timestamp\": %d,\n            \"message\": %s,\n            \"ingestionTime\": %d,\n            \"eventId\": \"%056d\"\n        }",
			t.UnixMilli(), msg, t.UnixMilli()+900, i)
	}
	out.WriteString("\n    ]\n}\n")
	return out.Bytes()
}
