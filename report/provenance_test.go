package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func provenanceOptions() Options {
	return Options{Version: "v9.9.9 (test)", Filters: &Filters{
		Since: "2h", Start: time.Date(2021, 1, 13, 8, 0, 0, 0, time.UTC),
		Volume: "pvc-2708", Node: "172.28", Enable: []string{"attach-before-detach"},
		Set: []string{"attach-retry-storm.min-failures=5"}, InputFormat: "auto",
	}}
}

// TestProvenanceHeads pins the "tool" and "filters" objects: right after
// "schema" in analyze, timeline and volumes, valid against the schemas,
// absent when the options leave them out.
func TestProvenanceHeads(t *testing.T) {
	a := handSeed(false)
	renders := map[string]func(*bytes.Buffer, Options) error{
		"analyze":  func(b *bytes.Buffer, o Options) error { return JSON(b, a, o) },
		"timeline": func(b *bytes.Buffer, o Options) error { return TimelineJSON(b, a.Timeline, nil, o) },
		"volumes":  func(b *bytes.Buffer, o Options) error { return VolumesJSON(b, a.Timeline.Volumes, o) },
	}
	for name, render := range renders {
		var b bytes.Buffer
		if err := render(&b, provenanceOptions()); err != nil {
			t.Fatal(err)
		}
		validateJSON(t, name, b.Bytes())
		lines := strings.Split(b.String(), "\n")
		if len(lines) < 4 || !strings.HasPrefix(lines[2], `  "tool": {`) {
			t.Errorf("%s: tool does not follow schema:\n%s", name, strings.Join(lines[:4], "\n"))
		}
		var doc struct {
			Tool    wireTool    `json:"tool"`
			Filters wireFilters `json:"filters"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		want := wireFilters{Since: "2h", Window: wireWindow{Start: "2021-01-13T08:00:00Z"}, Volume: "pvc-2708", Node: "172.28",
			Enable: []string{"attach-before-detach"}, Disable: []string{}, Set: []string{"attach-retry-storm.min-failures=5"}, InputFormat: "auto"}
		if doc.Tool != (wireTool{Name: "kcmtrace", Version: "v9.9.9 (test)"}) {
			t.Errorf("%s: tool = %+v", name, doc.Tool)
		}
		if g, w := mustJSON(t, doc.Filters), mustJSON(t, want); g != w {
			t.Errorf("%s: filters = %s, want %s", name, g, w)
		}
		b.Reset()
		if err := render(&b, Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), `"tool"`) || strings.Contains(b.String(), `"filters"`) {
			t.Errorf("%s: tool/filters written without Version/Filters", name)
		}
	}
}

// TestProvenanceRedacts: under --redact the selector queries (fragments of
// names) are not echoed.
func TestProvenanceRedacts(t *testing.T) {
	o := provenanceOptions()
	o.Redact = true
	var b bytes.Buffer
	if err := JSON(&b, handSeed(false), o); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, `"pvc-2708"`) || strings.Contains(s, `"172.28"`) || !strings.Contains(s, `"volume": "[redacted]"`) {
		t.Errorf("redacted filters leak the queries:\n%s", s[:600])
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
