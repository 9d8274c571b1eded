package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/rules"
)

// TestFlaggedOnly: with Options.FlaggedOnly, analyze's JSON, YAML and HTML
// list exactly the volumes a finding names, each as the full report lists
// it, and count the rest; everything else in the document is unchanged.
// Over a large cluster's traffic with its planted incidents, so that most
// volumes are left out.
func TestFlaggedOnly(t *testing.T) {
	tl := churnTimeline(t, 4<<20, 5)
	res, err := rules.Run(tl, rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a := &Analysis{Timeline: tl, Result: res, Rules: rules.All()}
	named := map[string]bool{}
	for _, f := range res.Findings {
		named[f.Volume] = true
	}
	var want []string // the flagged volumes, by the name volumes[] gives them
	for _, v := range tl.Volumes {
		if named[wireVolumeName(v)] {
			want = append(want, wireVolumeName(v))
		}
	}
	if len(want) == 0 || len(tl.Volumes) < 10*len(want) {
		t.Fatalf("%d volumes, %d flagged: not the shape the test needs", len(tl.Volumes), len(want))
	}
	full, flagged := Options{}, Options{FlaggedOnly: true}

	t.Run("json", func(t *testing.T) {
		fullDoc := render(t, func(b *bytes.Buffer) error { return JSON(b, a, full) })
		flagDoc := render(t, func(b *bytes.Buffer) error { return JSON(b, a, flagged) })
		validateJSON(t, "flagged", flagDoc)
		var all, some map[string]any
		if err := json.Unmarshal(fullDoc, &all); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(flagDoc, &some); err != nil {
			t.Fatal(err)
		}
		byName := map[string]any{}
		for _, v := range all["volumes"].([]any) {
			byName[v.(map[string]any)["volume"].(string)] = v
		}
		var got []string
		for _, v := range some["volumes"].([]any) {
			name := v.(map[string]any)["volume"].(string)
			got = append(got, name)
			if !reflect.DeepEqual(v, byName[name]) {
				t.Errorf("volume %s is not listed as the full report lists it", name)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d volumes listed (%q…), want the %d flagged: %q", len(got), got[:min(len(got), 3)], len(want), want)
		}
		sum := some["summary"].(map[string]any)
		if n := sum["volumes_omitted"]; n != float64(len(tl.Volumes)-len(want)) {
			t.Errorf("summary.volumes_omitted %v, want %d", n, len(tl.Volumes)-len(want))
		}
		if _, ok := all["summary"].(map[string]any)["volumes_omitted"]; ok {
			t.Error("the full report has summary.volumes_omitted")
		}
		delete(sum, "volumes_omitted")
		delete(all, "volumes")
		delete(some, "volumes")
		if !reflect.DeepEqual(all, some) {
			t.Error("the document differs from the full one outside volumes[] and summary.volumes_omitted")
		}
	})
	t.Run("yaml", func(t *testing.T) {
		out := string(render(t, func(b *bytes.Buffer) error { return AnalysisYAML(b, a, flagged) }))
		_, vols, _ := strings.Cut(out, "\nvolumes:\n")
		vols, _, _ = strings.Cut(vols, "\nfindings:")
		if got := strings.Count("\n"+vols, "\n  - volume: "); got != len(want) {
			t.Errorf("%d volumes listed, want %d", got, len(want))
		}
		if !strings.Contains(out, "volumes_omitted: ") {
			t.Error("no volumes_omitted in the summary")
		}
	})
	t.Run("html", func(t *testing.T) {
		out := string(render(t, func(b *bytes.Buffer) error { return HTML(b, a, flagged) }))
		all := string(render(t, func(b *bytes.Buffer) error { return HTML(b, a, full) }))
		if got := strings.Count(out, `<tr class="has-findings"`); got != len(want) {
			t.Errorf("%d volume rows with findings, want %d", got, len(want))
		}
		// a volume without findings, the last (the others are in no
		// finding's evidence either)
		last := tl.Volumes[len(tl.Volumes)-1]
		if named[wireVolumeName(last)] {
			t.Fatal("the last volume has findings")
		}
		row := "<code>" + htmlText(volumeLabel(last)) + "</code>"
		if !strings.Contains(all, row) || strings.Contains(out, row) {
			t.Errorf("%s: in the full page %v, in the flagged one %v; want only in the full", row, strings.Contains(all, row), strings.Contains(out, row))
		}
		note := plural(len(tl.Volumes)-len(want), "volume") + " without findings not listed (--flagged-only)"
		if !strings.Contains(out, note) {
			t.Errorf("no note %q", note)
		}
	})
}
