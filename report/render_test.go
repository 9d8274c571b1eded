package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// checkDefault fails when a table's default names no renderer or For
// gives none for an empty or unknown name.
func checkDefault[V any](t *testing.T, name string, f Formats[V]) {
	t.Helper()
	if _, ok := f.ByName[f.Default]; !ok {
		t.Errorf("%s: default %q has no renderer", name, f.Default)
	}
	if f.For("") == nil || f.For("no-such-format") == nil {
		t.Errorf("%s: For gave no renderer for an empty or unknown name", name)
	}
}

func TestFormatsDefault(t *testing.T) {
	checkDefault(t, "analysis", AnalysisFormats)
	checkDefault(t, "timeline", TimelineFormats)
	checkDefault(t, "events", EventFormats)
	checkDefault(t, "volumes", VolumeFormats)
}

// The tables dispatch to the renderers their names say: the output through
// the table is the renderer's own, byte for byte.
func TestFormatsDispatch(t *testing.T) {
	ev := parser.Draft{Kind: parser.AttachStarted, Volume: "kubernetes.io/csi/d^h", Node: "n1",
		Source: parser.Source{File: parser.InternPath("kcm.log"), Line: 1}, Text: parser.TextOf("I0812 03:10:00.000000 1 f.go:1] attach")}.Event()
	v := &timeline.Volume{UniqueName: ev.Volume, Events: []parser.Event{ev}}
	v.SetNodes([]string{"n1"})
	v.SetKey(ev.Volume)
	tl := &timeline.Timeline{Volumes: []*timeline.Volume{v}}
	a := &Analysis{Timeline: tl, Events: 1}
	o := Options{Width: 80}
	type pair struct {
		name      string
		via, want func(*bytes.Buffer) error
	}
	var pairs []pair
	add := func(name string, via, want func(*bytes.Buffer) error) { pairs = append(pairs, pair{name, via, want}) }
	for name, f := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return Text(b, a, o) },
		"json":     func(b *bytes.Buffer) error { return JSON(b, a, o) },
		"markdown": func(b *bytes.Buffer) error { return Markdown(b, a, o) },
		"md":       func(b *bytes.Buffer) error { return Markdown(b, a, o) },
		"":         func(b *bytes.Buffer) error { return Text(b, a, o) },
	} {
		add("analysis "+name, func(b *bytes.Buffer) error { return AnalysisFormats.For(name).Render(b, a, o) }, f)
	}
	view := TimelineView{Timeline: tl, Volumes: tl.Volumes}
	for name, f := range map[string]func(*bytes.Buffer) error{
		"text":     func(b *bytes.Buffer) error { return TimelineText(b, tl, tl.Volumes, o) },
		"json":     func(b *bytes.Buffer) error { return TimelineJSON(b, tl, tl.Volumes, o) },
		"markdown": func(b *bytes.Buffer) error { return TimelineMarkdown(b, tl, tl.Volumes, o) },
		"md":       func(b *bytes.Buffer) error { return TimelineMarkdown(b, tl, tl.Volumes, o) },
	} {
		add("timeline "+name, func(b *bytes.Buffer) error { return TimelineFormats.For(name).Render(b, view, o) }, f)
	}
	evs := v.Events
	for name, f := range map[string]func(*bytes.Buffer) error{
		"jsonl": func(b *bytes.Buffer) error { return EventsJSONL(b, evs, o) },
		"text":  func(b *bytes.Buffer) error { return EventsText(b, evs, o) },
	} {
		add("events "+name, func(b *bytes.Buffer) error { return EventFormats.For(name).Render(b, evs, o) }, f)
	}
	for name, f := range map[string]func(*bytes.Buffer) error{
		"text": func(b *bytes.Buffer) error { return VolumesTable(b, tl.Volumes, o) },
		"json": func(b *bytes.Buffer) error { return VolumesJSON(b, tl.Volumes, o) },
	} {
		add("volumes "+name, func(b *bytes.Buffer) error { return VolumeFormats.For(name).Render(b, tl.Volumes, o) }, f)
	}
	outputs := map[string]string{}
	for _, p := range pairs {
		var got, want bytes.Buffer
		if err := p.via(&got); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if err := p.want(&want); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		if got.String() != want.String() || got.Len() == 0 {
			t.Errorf("%s: table output differs from the renderer's (%d vs %d bytes)", p.name, got.Len(), want.Len())
		}
		outputs[p.name] = got.String()
	}
	// the formats of one view really differ (a table mapping every name to one renderer fails here)
	for _, view := range []string{"analysis", "timeline", "events", "volumes"} {
		seen := map[string]string{}
		for name, out := range outputs {
			if !strings.HasPrefix(name, view+" ") || strings.HasSuffix(name, " md") || name == "analysis " {
				continue
			}
			if prev, ok := seen[out]; ok {
				t.Errorf("%s and %s render the same", prev, name)
			}
			seen[out] = name
		}
	}
}

// TestEveryFormatRendersTheSeed: every format of every view renders the
// hand seed, hostile or not, without an error and not empty (a format
// that failed only past one event, as `events -o yaml` did, shows here).
func TestEveryFormatRendersTheSeed(t *testing.T) {
	for _, hostile := range []bool{false, true} {
		a := handSeed(hostile)
		o := Options{Width: 100}
		check := func(view, name string, err error, out *bytes.Buffer) {
			t.Helper()
			if err != nil || out.Len() == 0 {
				t.Errorf("hostile=%v %s -o %s: %v, %d bytes", hostile, view, name, err, out.Len())
			}
		}
		for name, r := range AnalysisFormats.ByName {
			var out bytes.Buffer
			check("analyze", name, r.Render(&out, a, o), &out)
		}
		for name, r := range TimelineFormats.ByName {
			var out bytes.Buffer
			check("timeline", name, r.Render(&out, TimelineView{Timeline: a.Timeline, Volumes: a.Timeline.Volumes}, o), &out)
		}
		for name, r := range EventFormats.ByName {
			var out bytes.Buffer
			check("events", name, r.Render(&out, a.Timeline.Volumes[0].Events, o), &out)
		}
		for name, r := range VolumeFormats.ByName {
			var out bytes.Buffer
			check("volumes", name, r.Render(&out, a.Timeline.Volumes, o), &out)
		}
		for name, r := range RuleFormats.ByName {
			var out bytes.Buffer
			check("rules", name, r.Render(&out, a.Rules, o), &out)
		}
	}
}
