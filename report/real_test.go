package report

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// analyzeFiles runs the real pipeline over files in dir (paths stay relative
// to dir, so goldens do not depend on where the repository lives).
func analyzeFiles(t *testing.T, dir string, year int, files ...string) (*Analysis, []parser.Event) {
	t.Helper()
	t.Chdir(dir)
	results, errs := parser.ParseAll(files, parser.Options{Year: year})
	for _, err := range errs {
		t.Logf("parse: %v", err)
	}
	tl := timeline.Build(results, timeline.Options{})
	res, err := rules.Run(tl, rules.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []parser.Event
	for _, r := range results {
		evs = append(evs, r.Events...)
	}
	return &Analysis{Timeline: tl, Result: res, Rules: rules.All(), Events: len(evs)}, evs
}

// TestRealGoldens renders the seed incident fixtures and real logs through
// the whole pipeline, in every format.
func TestRealGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("pipeline goldens skipped in -short")
	}
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		dir   string
		year  int
		files []string
	}{
		{name: "seed-legacy", dir: "../testdata/incidents/seed-legacy", files: []string{"kcm.log", "kubelet.log"}},
		{name: "seed-1.28", dir: "../testdata/incidents/seed-1.28", files: []string{"kcm.log", "kubelet.log"}},
		{name: "real-008-tencent-zonenotmatch", dir: "../testdata/real-logs", year: 2021, files: []string{"008-tencent-cbs-csi-zonenotmatch-attach-retry.log"}},
		{name: "real-026-vsphere-multiattach", dir: "../testdata/real-logs", year: 2017, files: []string{"026-vsphere-intree-poweroff-multiattach-docker-json.log"}},
		{name: "real-005-azure-multiattach", dir: "../testdata/real-logs", year: 2019, files: []string{"005-azure-vmss-multiattach-then-detach.log"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, evs := analyzeFiles(t, filepath.Join(here, c.dir), c.year, c.files...)
			out := filepath.Join(here, "testdata", c.name)
			check := func(name string, width int, f renderFn) {
				t.Helper()
				b := render(t, f)
				if name != "analyze-color.txt" {
					checkPlain(t, name, b)
				}
				if width > 0 {
					checkWidth(t, name, b, width)
				}
				golden.Check(t, filepath.Join(out, name), b)
			}
			check("analyze-100.txt", 100, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 100}) })
			check("analyze-80.txt", 80, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 80}) })
			check("analyze.json", 0, func(b *bytes.Buffer) error { return JSON(b, a, Options{}) })
			check("analyze.md", 0, func(b *bytes.Buffer) error { return Markdown(b, a, Options{}) })
			check("timeline-80.txt", 80, func(b *bytes.Buffer) error { return TimelineText(b, a.Timeline, nil, Options{Width: 80}) })
			check("timeline.json", 0, func(b *bytes.Buffer) error { return TimelineJSON(b, a.Timeline, nil, Options{}) })
			// Not width-bound: volume names are never cut (TestTableNamesWhole).
			check("volumes-80.txt", 0, func(b *bytes.Buffer) error { return VolumesTable(b, a.Timeline.Volumes, Options{Width: 80}) })
			check("events.jsonl", 0, func(b *bytes.Buffer) error { return EventsJSONL(b, evs, Options{}) })
			check("events.txt", 0, func(b *bytes.Buffer) error { return EventsText(b, evs, Options{}) })
			check("analyze-redacted.md", 0, func(b *bytes.Buffer) error { return Markdown(b, a, Options{Redact: true}) })
			check("analyze-redacted.json", 0, func(b *bytes.Buffer) error { return JSON(b, a, Options{Redact: true}) })
			check("analyze-redacted-100.txt", 100, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 100, Redact: true}) })
			if c.name == "seed-legacy" {
				check("analyze-color.txt", 0, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 100, Color: true}) })
				flagged := Options{FlaggedOnly: true, Filters: &Filters{FlaggedOnly: true, InputFormat: "auto"}}
				check("analyze-flagged.json", 0, func(b *bytes.Buffer) error { return JSON(b, a, flagged) })
			}
		})
	}
}

// TestRedactRemovesIdentifiers: with Redact on, no node name, IP, disk ID,
// PV or pod of the seed incident survives in any format.
func TestRedactRemovesIdentifiers(t *testing.T) {
	here, _ := filepath.Abs(".")
	a, evs := analyzeFiles(t, filepath.Join(here, "../testdata/incidents/seed-legacy"), 0, "kcm.log", "kubelet.log")
	var secrets []string
	for _, v := range a.Timeline.Volumes {
		secrets = append(secrets, v.Nodes()...)
		secrets = append(secrets, v.Handle, v.PV)
		for _, p := range v.Pods() {
			_, name, _ := strings.Cut(p, "/")
			secrets = append(secrets, name)
		}
	}
	if len(secrets) < 4 {
		t.Fatalf("too few identifiers to check: %q", secrets)
	}
	o := Options{Redact: true, Width: 100}
	outs := map[string][]byte{
		"text":     render(t, func(b *bytes.Buffer) error { return Text(b, a, o) }),
		"json":     render(t, func(b *bytes.Buffer) error { return JSON(b, a, o) }),
		"markdown": render(t, func(b *bytes.Buffer) error { return Markdown(b, a, o) }),
		"timeline": render(t, func(b *bytes.Buffer) error { return TimelineText(b, a.Timeline, nil, o) }),
		"tljson":   render(t, func(b *bytes.Buffer) error { return TimelineJSON(b, a.Timeline, nil, o) }),
		"volumes":  render(t, func(b *bytes.Buffer) error { return VolumesTable(b, a.Timeline.Volumes, o) }),
		"jsonl":    render(t, func(b *bytes.Buffer) error { return EventsJSONL(b, evs, o) }),
		"events":   render(t, func(b *bytes.Buffer) error { return EventsText(b, evs, o) }),
	}
	ip := regexp.MustCompile(`\b10\.\d+\.\d+\.\d+\b`)
	for name, out := range outs {
		for _, s := range secrets {
			if s != "" && bytes.Contains(out, []byte(s)) {
				t.Errorf("%s still contains %q", name, s)
			}
		}
		if m := ip.Find(out); m != nil {
			t.Errorf("%s still contains IP %s", name, m)
		}
		if bytes.Contains(out, []byte("disk-7x9qk2mz")) {
			t.Errorf("%s still contains the disk id", name)
		}
	}
	// Same input, same pseudonyms.
	again := render(t, func(b *bytes.Buffer) error { return Text(b, a, o) })
	if !bytes.Equal(again, outs["text"]) {
		t.Errorf("redaction is not deterministic")
	}
}
