package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// analyze runs the whole chain — parser, timeline, rules — over paths.
func analyze(t *testing.T, paths ...string) (Result, *timeline.Timeline) {
	t.Helper()
	results, errs := parser.ParseAll(paths, parser.Options{})
	for _, err := range errs {
		t.Logf("parse: %v", err)
	}
	tl := timeline.Build(results, timeline.Options{})
	res, err := Run(tl, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Errorf("internal errors: %v", res.Errors)
	}
	return res, tl
}

// TestSeedPostMortem: the hand-written post-mortem that started the project
// holds only the real lines around the move (attach to B, then detach from
// A) and a describe row whose PV name was anonymised. The detach from A
// after B's attach, with no Multi-Attach error, is the attach-before-detach
// signature; the describe row joins the volume through the disk id in its
// error and makes it critical.
func TestSeedPostMortem(t *testing.T) {
	res, _ := analyze(t, filepath.Join("..", "testdata", "seed"))
	if len(res.Incidents) != 1 {
		t.Fatalf("%d incidents, want 1:\n%s", len(res.Incidents), dump(res))
	}
	inc := res.Incidents[0]
	if inc.Severity != Critical || !strings.Contains(inc.Volume, "disk-rhtsqync") {
		t.Errorf("incident %s on %s, want critical on disk-rhtsqync", inc.Severity, inc.Volume)
	}
	var chain []string
	for _, i := range inc.Chain {
		chain = append(chain, res.Findings[i].Rule)
	}
	if want := []string{"attach-before-detach", "mount-device-not-found"}; !slices.Equal(chain, want) {
		t.Errorf("chain %v, want %v", chain, want)
	}
	if f := res.Findings[inc.Chain[0]]; !slices.Equal(f.Nodes, []string{"172.28.16.10", "172.28.1.72"}) {
		t.Errorf("attach-before-detach nodes %v, want A=172.28.16.10 then B=172.28.1.72", f.Nodes)
	}
}

// TestSeedIncidents: each seed incident directory must yield exactly one
// critical incident, on the seed volume, telling the whole chain, and no
// finding on the clean-move volume.
func TestSeedIncidents(t *testing.T) {
	for _, tc := range []struct {
		dir       string
		volume    string // the incident's volume (UniqueName substring)
		cleanMove string // a volume that moved cleanly: no finding may name it
	}{
		{dir: "seed-legacy", volume: "disk-7x9qk2mz", cleanMove: "disk-4k8m2p1q"},
		{dir: "seed-1.28", volume: "disk-7x9qk2mz", cleanMove: "disk-4k8m2p1q"},
		{dir: "seed-2021", volume: "disk-rhtsqync", cleanMove: ""},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("..", "testdata", "incidents", tc.dir)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("fixture missing: %v", err)
			}
			res, _ := analyze(t, dir)
			golden.Check(t, filepath.Join("testdata", "golden", "e2e", tc.dir+".txt"), []byte(dump(res)))

			var crit []Incident
			for _, inc := range res.Incidents {
				if inc.Severity == Critical {
					crit = append(crit, inc)
				}
			}
			if len(crit) != 1 {
				t.Fatalf("want exactly 1 critical incident, got %d:\n%s", len(crit), dump(res))
			}
			inc := crit[0]
			if !strings.Contains(inc.Volume, tc.volume) {
				t.Errorf("incident volume %q, want %q", inc.Volume, tc.volume)
			}
			var rules []string
			for _, i := range inc.Chain {
				rules = append(rules, res.Findings[i].Rule)
			}
			want := []string{"attach-retry-storm", "attach-before-detach", "mount-device-not-found"}
			for _, w := range want {
				if !slices.Contains(rules, w) {
					t.Errorf("chain %v lacks %s", rules, w)
				}
			}
			if i, j := slices.Index(rules, "attach-retry-storm"), slices.Index(rules, "attach-before-detach"); i > j {
				t.Errorf("chain %v: storm after attach-before-detach", rules)
			}
			if j, k := slices.Index(rules, "attach-before-detach"), slices.Index(rules, "mount-device-not-found"); j > k {
				t.Errorf("chain %v: device missing before attach-before-detach", rules)
			}
			story := strings.Join(inc.Story, "\n")
			for _, w := range []string{"ZoneNotMatch", "pod moved", "still uncertain", "detach from", "by serial"} {
				if !strings.Contains(story, w) {
					t.Errorf("story lacks %q:\n%s", w, story)
				}
			}
			if !strings.Contains(inc.Summary, "ControllerUnpublishVolume") || !strings.Contains(inc.Component, "v2.3.2") {
				t.Errorf("summary/component do not name the root cause: %q / %q", inc.Summary, inc.Component)
			}
			for _, f := range res.Findings {
				if tc.cleanMove != "" && strings.Contains(f.Volume, tc.cleanMove) {
					t.Errorf("clean move raised %s: %s", f.Rule, f.Summary)
				}
			}
		})
	}
}

// TestEvidenceQuotesTheLine: every log line a finding quotes is the line
// of its input at that line number (its text read back from the file in
// one pass for the whole run: readEvidence), its wrapper removed.
func TestEvidenceQuotesTheLine(t *testing.T) {
	dir := filepath.Join("..", "testdata", "incidents", "seed-legacy")
	res, _ := analyze(t, dir)
	lines := map[string][]string{}
	n := 0
	for _, f := range res.Findings {
		for _, e := range f.Evidence {
			if e.SourceKind != "" {
				continue
			}
			if lines[e.Path] == nil {
				b, err := os.ReadFile(e.Path)
				if err != nil {
					t.Fatal(err)
				}
				lines[e.Path] = strings.Split(string(b), "\n")
			}
			if e.Line < 1 || e.Line > len(lines[e.Path]) {
				t.Fatalf("%s: evidence at line %d of %s", f.Rule, e.Line, e.Path)
			}
			if line := lines[e.Path][e.Line-1]; e.Text == "" || !strings.HasSuffix(line, e.Text) {
				t.Errorf("%s: evidence %s:%d is %q, the line %q", f.Rule, e.Path, e.Line, e.Text, line)
			}
			n++
		}
	}
	if n < 10 {
		t.Errorf("%d log lines quoted, want the seed's (10 or more)", n)
	}
}
