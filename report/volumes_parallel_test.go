package report

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestVolumeViewsOnEveryCore: the views that render their volumes in
// batches on every core (renderVolumes: timeline text, Markdown, HTML) write
// what they write in one batch on one core, byte for byte, over hundreds
// of volumes with colour and without.
func TestVolumeViewsOnEveryCore(t *testing.T) {
	tl := churnTimeline(t, 8<<20, 3)
	if len(tl.Volumes) < 4*volumeBatch {
		t.Fatalf("%d volumes: fewer than the test needs", len(tl.Volumes))
	}
	views := map[string]func(io.Writer, Options) error{
		"text":     func(w io.Writer, o Options) error { return TimelineText(w, tl, nil, o) },
		"markdown": func(w io.Writer, o Options) error { return TimelineMarkdown(w, tl, nil, o) },
		"html":     func(w io.Writer, o Options) error { return TimelineHTML(w, tl, nil, o) },
	}
	for name, view := range views {
		for _, o := range []Options{{}, {Color: true, Width: 100}} {
			var out [2]bytes.Buffer
			for k, procs := range []int{1, 4} {
				old, batch := runtime.GOMAXPROCS(procs), volumeBatch
				if procs == 1 {
					volumeBatch = len(tl.Volumes)
				}
				err := view(&out[k], o)
				runtime.GOMAXPROCS(old)
				volumeBatch = batch
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
				t.Errorf("%s (colour %v): in batches on every core %d bytes, in one on one core %d", name, o.Color, out[1].Len(), out[0].Len())
			}
		}
	}
}

// churnTimeline is the timeline of size bytes of generated KCM log (and
// its kubelet log) of a large cluster's churn: thousands of volumes, the
// planted incidents among them.
func churnTimeline(t *testing.T, size int64, seed uint64) *timeline.Timeline {
	t.Helper()
	var kcm, kubelet bytes.Buffer
	if _, err := loggen.Generate(&kcm, loggen.Config{Size: size, Seed: seed, Shape: loggen.ShapeChurn, Kubelet: &kubelet}); err != nil {
		t.Fatal(err)
	}
	return timeline.Build([]parser.Result{
		parser.ParseReader(&kcm, "kcm.log", parser.Options{}),
		parser.ParseReader(&kubelet, "kubelet.log", parser.Options{}),
	}, timeline.Options{})
}
