package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEnvelopesMatchPlain runs the whole chain (parser → timeline → rules →
// JSON report) on every log-export fixture of parser/envelope/testdata (the
// seed scenarios seed-legacy and seed-1.28, KCM and kubelet, rendered into
// every shape of every envelope) and on the plain seed files, and requires
// the same findings, incidents and events.
//
// What is normalised, and nothing else:
//   - input paths (evidence path, event source path) become the role,
//     "kcm" or "kubelet";
//   - input line numbers (evidence line, event source line, the line an
//     Event echo is linked to) are dropped: an export numbers its own lines
//     (a pretty-printed record spans many); that an echo is linked is kept;
//   - trailing white space of evidence text is removed (aws logs tail,
//     logcli and Grafana's text download trim each message);
//   - for GKE control-plane records (gcp kcm), whose klog header the
//     export split into fields (severity, sourceLocation) and which carry
//     no thread id, evidence text is compared from "] " on and the event's
//     pid is dropped; the time in that header is the record's, in UTC.
//
// The inputs block is not compared (its wrapper, line counts and year/zone
// sources name the export); it is checked to name the envelope, to count
// the records, and to keep the line accounting.
func TestEnvelopesMatchPlain(t *testing.T) {
	for _, seed := range []string{"seed-legacy", "seed-1.28"} {
		plainDir := absFixture(t, "incidents", seed)
		plain := []string{filepath.Join(plainDir, "kcm.log"), filepath.Join(plainDir, "kubelet.log")}
		want := chainResult(t, plain, false)
		wantGKE := chainResult(t, plain, true)
		if len(want.findings) == 0 || len(want.incidents) == 0 {
			t.Fatalf("%s: the plain seed gives no finding or incident", seed)
		}
		kcms, err := filepath.Glob(filepath.Join("..", "..", "parser", "envelope", "testdata", seed, "kcm.*.gz"))
		if err != nil || len(kcms) < 19 {
			t.Fatalf("%s: %d export fixtures (%v)", seed, len(kcms), err)
		}
		for _, kcm := range kcms {
			form := strings.TrimPrefix(filepath.Base(kcm), "kcm.") // e.g. gcp.array.json.gz
			envName := form[:strings.IndexByte(form, '.')]
			kubelet := filepath.Join(filepath.Dir(kcm), "kubelet."+form)
			t.Run(seed+"/"+strings.TrimSuffix(form, ".gz"), func(t *testing.T) {
				got, want := chainResult(t, []string{kcm, kubelet}, envName == "gcp"), want
				if envName == "gcp" {
					want = wantGKE
				}
				for _, in := range got.inputs {
					if in.Wrapper != envName || in.Records == 0 {
						t.Errorf("input %s: wrapper %q, %d records; want %s and records", in.Path, in.Wrapper, in.Records, envName)
					}
				}
				compareLists(t, "findings", got.findings, want.findings)
				compareLists(t, "incidents", got.incidents, want.incidents)
				compareLists(t, "events", got.events, want.events)
			})
		}
	}
}

// chain is the normalised output of analyze and events on some inputs.
type chain struct {
	inputs                      []chainInput
	findings, incidents, events []string
}

type chainInput struct {
	Path    string `json:"path"`
	Wrapper string `json:"wrapper"`
	Records int    `json:"records"`
}

var klogHeaderRE = regexp.MustCompile(`^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [^ \]]+\] `)

// chainResult runs analyze --format json and events on paths (KCM first,
// kubelet second) and normalises them (see TestEnvelopesMatchPlain);
// gkeSplit applies the GKE control-plane normalisation to the KCM input
// (to the plain files' result too, for comparing with it).
func chainResult(t *testing.T, paths []string, gkeSplit bool) chain {
	t.Helper()
	roles := map[string]string{paths[0]: "kcm", paths[1]: "kubelet"}
	code, stdout, stderr := runWithStdin(t, append([]string{"analyze", "--format", "json"}, paths...), nil)
	if code != exitOK || stderr != "" {
		t.Fatalf("analyze %v: exit %d\n%s", paths, code, stderr)
	}
	var doc struct {
		Inputs    []chainInput     `json:"inputs"`
		Findings  []map[string]any `json:"findings"`
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	var c chain
	c.inputs = doc.Inputs
	for _, f := range doc.Findings {
		ev, _ := f["evidence"].([]any)
		for _, e := range ev {
			m := e.(map[string]any)
			role := roles[m["path"].(string)]
			m["path"] = role
			delete(m, "line")
			if text, ok := m["text"].(string); ok {
				if gkeSplit && role == "kcm" {
					text = klogHeaderRE.ReplaceAllString(text, "")
				}
				m["text"] = strings.TrimRight(text, " \t")
			}
		}
		c.findings = append(c.findings, jsonString(t, f))
	}
	for _, inc := range doc.Incidents {
		c.incidents = append(c.incidents, jsonString(t, inc))
	}
	code, stdout, stderr = runWithStdin(t, append([]string{"events"}, paths...), nil)
	if code != exitOK || stderr != "" {
		t.Fatalf("events %v: exit %d\n%s", paths, code, stderr)
	}
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("events: %v: %q", err, l)
		}
		src := ev["source"].(map[string]any)
		role := roles[src["path"].(string)]
		ev["source"] = role
		if _, ok := ev["echo_of"]; ok {
			ev["echo_of"] = "linked"
		}
		if gkeSplit && role == "kcm" {
			delete(ev, "pid")
		}
		c.events = append(c.events, jsonString(t, ev))
	}
	return c
}

func jsonString(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// compareLists reports the first differences between got and want, in
// order; events of equal time may come in another order, so a list that
// differs only in order is reported as such.
func compareLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	if len(got) == len(want) {
		g, w := slices.Clone(got), slices.Clone(want)
		slices.Sort(g)
		slices.Sort(w)
		if slices.Equal(g, w) {
			t.Errorf("%s: the same %d, in another order", what, len(got))
			return
		}
	}
	t.Errorf("%s: %d, want %d", what, len(got), len(want))
	shown := 0
	for i := 0; i < max(len(got), len(want)) && shown < 3; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("%s[%d]:\n got  %.600s\n want %.600s", what, i, g, w)
			shown++
		}
	}
}
