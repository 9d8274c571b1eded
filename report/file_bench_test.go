package report

import (
	"io"
	"sync"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// benchFiles caches the analysis of the files named in KCMTRACE_BENCH_FILES,
// so that the benchmarks below parse, build and run the rules once.
var benchFiles struct {
	once sync.Once
	a    *Analysis
	err  error
	errs []error
}

// benchAnalysis returns the analysis of the files named in
// KCMTRACE_BENCH_FILES (comma-separated, e.g. the logs scripts/bench.sh
// generates), as `kcmtrace analyze` builds it, skipping the benchmark when
// the variable is unset.
func benchAnalysis(b *testing.B) *Analysis {
	paths := benchfiles.Paths(b)
	benchFiles.once.Do(func() {
		res, errs := parser.ParseAll(paths, parser.Options{})
		benchFiles.errs = errs
		if len(errs) > 0 {
			return
		}
		events := 0
		for i := range res {
			events += len(res[i].Events)
		}
		tl := timeline.Build(res, timeline.Options{Consume: true})
		rs, err := rules.Run(tl, rules.Config{})
		benchFiles.err = err
		benchFiles.a = &Analysis{Timeline: tl, Result: rs, Rules: rules.All(), Events: events}
	})
	if len(benchFiles.errs) > 0 {
		b.Fatal(benchFiles.errs)
	}
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.a
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// BenchmarkJSONFiles writes the analyze JSON report of the files named in
// KCMTRACE_BENCH_FILES to io.Discard; it is skipped when the variable is
// unset.
func BenchmarkJSONFiles(b *testing.B) {
	a := benchAnalysis(b)
	benchRender(b, func(w io.Writer) error { return JSON(w, a, Options{}) })
}

// BenchmarkViewsFiles writes the other large views of the files named in
// KCMTRACE_BENCH_FILES (every event, every volume's timeline, the volumes
// table; as text, JSON, YAML and coloured) to io.Discard, in MB/s of output; skipped when the variable is
// unset.
func BenchmarkViewsFiles(b *testing.B) {
	a := benchAnalysis(b)
	evs := a.Timeline.Events(a.Timeline.Volumes, true)
	for _, v := range []struct {
		name   string
		render func(io.Writer) error
	}{
		{"events-text", func(w io.Writer) error { return EventsText(w, evs, Options{}) }},
		{"events-jsonl", func(w io.Writer) error { return EventsJSONL(w, evs, Options{}) }},
		{"events-yaml", func(w io.Writer) error { return EventsYAML(w, evs, Options{}) }},
		{"timeline-json", func(w io.Writer) error { return TimelineJSON(w, a.Timeline, nil, Options{}) }},
		{"timeline-yaml", func(w io.Writer) error { return TimelineYAML(w, a.Timeline, nil, Options{}) }},
		{"timeline-text", func(w io.Writer) error { return TimelineText(w, a.Timeline, nil, Options{}) }},
		{"timeline-color", func(w io.Writer) error { return TimelineText(w, a.Timeline, nil, Options{Color: true}) }},
		{"volumes-text", func(w io.Writer) error { return VolumesTable(w, a.Timeline.Volumes, Options{}) }},
		{"volumes-yaml", func(w io.Writer) error { return VolumesYAML(w, a.Timeline.Volumes, Options{}) }},
	} {
		b.Run(v.name, func(b *testing.B) { benchRender(b, v.render) })
	}
}

// benchRender times render writing to io.Discard, in bytes of its output.
func benchRender(b *testing.B, render func(io.Writer) error) {
	var size countingWriter
	if err := render(&size); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size.n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := benchfiles.CPUTime()
	for b.Loop() {
		if err := render(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	benchfiles.ReportCPU(b, cpu)
}

// BenchmarkAppendVolumesFiles appends every volume of the files named in
// KCMTRACE_BENCH_FILES as the analyze document lays them out, on one
// goroutine into one reused buffer: the hand-written layout alone, without
// the batches' hand-offs (BenchmarkJSONFiles has them).
func BenchmarkAppendVolumesFiles(b *testing.B) {
	a := benchAnalysis(b)
	var buf []byte
	for _, v := range a.Timeline.Volumes {
		buf = appendVolume(buf, v, objectAt(arrayDepth))
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		buf = buf[:0]
		for _, v := range a.Timeline.Volumes {
			buf = appendVolume(buf, v, objectAt(arrayDepth))
		}
	}
}
