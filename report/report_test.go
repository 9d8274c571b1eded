package report

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kcmtrace/kcmtrace/internal/golden"
)

type renderFn func(*bytes.Buffer) error

func render(t *testing.T, f renderFn) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := f(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkPlain fails when out carries an escape or control character.
func checkPlain(t *testing.T, name string, out []byte) {
	t.Helper()
	for i, c := range out {
		if c == 0x1b || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("%s: control byte %#x at offset %d: %q", name, c, i, out[max(0, i-20):min(len(out), i+20)])
			return
		}
	}
}

// checkWidth fails when a line is wider than width cells.
func checkWidth(t *testing.T, name string, out []byte, width int) {
	t.Helper()
	for i, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(ansi.Strip(l)), "kcmtrace ") {
			continue // a command to paste is never cut (timelineCommand)
		}
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("%s line %d is %d cells wide (> %d): %q", name, i+1, w, width, l)
		}
	}
}

func TestHandSeedGoldens(t *testing.T) {
	a := handSeed(false)
	dir := filepath.Join("testdata", "hand-seed")
	for _, w := range []int{100, 80} {
		o := Options{Width: w}
		out := render(t, func(b *bytes.Buffer) error { return Text(b, a, o) })
		checkPlain(t, "text", out)
		checkWidth(t, "text", out, w)
		golden.Check(t, filepath.Join(dir, "analyze-"+itoa(w)+".txt"), out)

		out = render(t, func(b *bytes.Buffer) error { return TimelineText(b, a.Timeline, nil, o) })
		checkPlain(t, "timeline", out)
		checkWidth(t, "timeline", out, w)
		golden.Check(t, filepath.Join(dir, "timeline-"+itoa(w)+".txt"), out)

		out = render(t, func(b *bytes.Buffer) error { return VolumesTable(b, a.Timeline.Volumes, o) })
		checkPlain(t, "volumes", out)
		checkWidth(t, "volumes", out, w)
		golden.Check(t, filepath.Join(dir, "volumes-"+itoa(w)+".txt"), out)
	}
	o := Options{Width: 100}
	cases := map[string]renderFn{
		"analyze.json":          func(b *bytes.Buffer) error { return JSON(b, a, o) },
		"analyze.md":            func(b *bytes.Buffer) error { return Markdown(b, a, o) },
		"timeline.json":         func(b *bytes.Buffer) error { return TimelineJSON(b, a.Timeline, nil, o) },
		"timeline.md":           func(b *bytes.Buffer) error { return TimelineMarkdown(b, a.Timeline, nil, o) },
		"volumes.json":          func(b *bytes.Buffer) error { return VolumesJSON(b, a.Timeline.Volumes, o) },
		"events.jsonl":          func(b *bytes.Buffer) error { return EventsJSONL(b, a.Timeline.Volumes[0].Events, o) },
		"events.txt":            func(b *bytes.Buffer) error { return EventsText(b, a.Timeline.Volumes[0].Events, o) },
		"rules.txt":             func(b *bytes.Buffer) error { return RulesTable(b, a.Rules, o) },
		"explain.txt":           func(b *bytes.Buffer) error { return Explain(b, a.Rules[1], o) },
		"analyze-redacted.txt":  func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 100, Redact: true}) },
		"analyze-redacted.json": func(b *bytes.Buffer) error { return JSON(b, a, Options{Redact: true}) },
		"analyze-redacted.md":   func(b *bytes.Buffer) error { return Markdown(b, a, Options{Redact: true}) },
		// YAML is the JSON model rewritten (yaml.go): one golden per
		// shape of document it streams
		"analyze.yaml": func(b *bytes.Buffer) error { return AnalysisFormats.For("yaml").Render(b, a, o) },
		"timeline.yaml": func(b *bytes.Buffer) error {
			return TimelineFormats.For("yaml").Render(b, TimelineView{Timeline: a.Timeline}, o)
		},
		"volumes.yaml": func(b *bytes.Buffer) error { return VolumeFormats.For("yaml").Render(b, a.Timeline.Volumes, o) },
		"events.yaml": func(b *bytes.Buffer) error {
			return EventFormats.For("yaml").Render(b, a.Timeline.Volumes[0].Events, o)
		},
		"rules.yaml": func(b *bytes.Buffer) error { return RuleFormats.For("yaml").Render(b, a.Rules, o) },
	}
	for name, f := range cases {
		out := render(t, f)
		checkPlain(t, name, out)
		golden.Check(t, filepath.Join(dir, name), out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
