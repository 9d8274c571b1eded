package envelope

import (
	"bytes"
	"fmt"
	"testing"
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
