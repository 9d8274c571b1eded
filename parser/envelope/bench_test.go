package envelope

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/exportgen"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// cloudwatchExport renders the seed-legacy KCM lines, repeated, as one
// `aws logs filter-log-events` document of at least size bytes.
func cloudwatchExport(b testing.TB, size int) []byte {
	lines := readSeed(b, seedFiles[0])
	var out bytes.Buffer
	out.WriteString("{\n    \"events\": [\n")
	for i := 0; out.Len() < size; i++ {
		if i > 0 {
			out.WriteString(",\n")
		}
		ev := jsonText(cwEvent(seedFiles[0], lines[i%len(lines)], i), "    ")
		out.Write(bytes.TrimSuffix(ev, []byte("\n")))
	}
	out.WriteString("\n    ]\n}\n")
	return out.Bytes()
}

// BenchmarkCloudWatchEvents decodes CloudWatch JSON (the largest envelope
// per record) at three sizes, reading every message (typed) or skimming
// the token-free ones (skim): equal MB/s shows the cost is linear.
func BenchmarkCloudWatchEvents(b *testing.B) {
	for _, size := range []int{1 << 20, 4 << 20, 16 << 20} {
		in := cloudwatchExport(b, size)
		for _, mode := range []struct {
			name string
			opt  Options
		}{
			{"typed", Options{}},
			{"skim", Options{Prefilter: testPrefilter, Skim: func([]byte) bool { return true }}},
		} {
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, mode.name), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := DecodeWith("cloudwatch", bytes.NewReader(in), mode.opt, func(Record) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// generatedLines is a loggen KCM log (churn shape) of about size bytes
// as seed lines (UTC), for the JSON Lines benchmarks.
func generatedLines(b testing.TB, size int64) (plain []byte, lines []seedLine) {
	var log bytes.Buffer
	if _, err := loggen.Generate(&log, loggen.Config{Size: size, Seed: 1, Shape: loggen.ShapeChurn}); err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n") {
		sl, err := seedLineOf(l, time.UTC)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, sl)
	}
	return log.Bytes(), lines
}

// jsonLinesExport is a generated export in one JSON Lines envelope.
type jsonLinesExport struct {
	name, envelope string
	in             []byte
}

// jsonLinesExports renders a generated KCM log of about size bytes in each
// JSON Lines envelope: VictoriaLogs (internal/exportgen, three pods taking
// turns), logcli jsonl, Filebeat ndjson, journalctl -o json (the fixtures'
// renderers) and Elasticsearch hits one a line (_index, _id, _source as
// Fluent Bit writes it).
func jsonLinesExports(b testing.TB, size int64) []jsonLinesExport {
	plain, lines := generatedLines(b, size)
	var vl bytes.Buffer
	if err := exportgen.VictoriaLogs(&vl, bytes.NewReader(plain), exportgen.VictoriaLogsConfig{Year: 2024, Pods: 3, Run: 5000}); err != nil {
		b.Fatal(err)
	}
	out := []jsonLinesExport{{"victorialogs", "victorialogs", vl.Bytes()}}
	for _, fx := range fixtures {
		if fx.ext != "jsonl" && fx.ext != "ndjson" || fx.envelope == "victorialogs" || fx.envelope == "gcp" {
			continue
		}
		out = append(out, jsonLinesExport{fx.envelope, fx.envelope, fx.render(seedFiles[0], lines)})
	}
	var hits []any
	for i, l := range lines {
		hits = append(hits, map[string]any{"_index": "logstash-2024.08.12", "_id": fmt.Sprintf("kcm-%07d", i), "_source": fluentBitSource(seedFiles[0], l)})
	}
	return append(out, jsonLinesExport{"elasticsearch-hits", "elasticsearch", jsonLinesOf(hits)})
}

// BenchmarkJSONLines decodes a 16 MiB generated KCM log rendered in each
// JSON Lines envelope, reading every message (typed) or skimming the
// token-free ones whose start is a klog header (skim), as the parser does.
//
//	go test ./parser/envelope -run '^$' -bench JSONLines -benchtime 5x
func BenchmarkJSONLines(b *testing.B) {
	klog := func(h []byte) bool { return len(h) > 21 && h[5] == ' ' && h[8] == ':' && h[14] == '.' }
	for _, ex := range jsonLinesExports(b, 16<<20) {
		for _, mode := range []struct {
			name string
			opt  Options
		}{
			{"typed", Options{}},
			{"skim", Options{Prefilter: testPrefilter, Skim: klog}},
		} {
			b.Run(ex.name+"/"+mode.name, func(b *testing.B) {
				b.SetBytes(int64(len(ex.in)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := DecodeWith(ex.envelope, bytes.NewReader(ex.in), mode.opt, func(Record) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDocuments decodes 16 MiB of generated log rendered in each JSON
// document shape, reading every message: the shapes read from their bytes
// (arrays of record objects, Loki's values) against those read through
// encoding/json (Azure's REST rows, Logs Insights' field lists).
//
//	go test ./parser/envelope -run '^$' -bench Documents -benchtime 5x
func BenchmarkDocuments(b *testing.B) {
	_, lines := generatedLines(b, 16<<20)
	for _, fx := range fixtures {
		if fx.ext != "json" {
			continue
		}
		in := fx.render(seedFiles[0], lines)
		b.Run(fx.envelope+"-"+fx.shape, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(fx.envelope, bytes.NewReader(in), func(Record) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
