package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
)

// startVictoriaLogs starts the real server for one test and loads the seed
// incident among noise into it (internal/vlogstest).
func startVictoriaLogs(t *testing.T) string {
	t.Helper()
	s := startEmptyVictoriaLogs(t)
	recs, err := vlogstest.Seed(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Load(recs); err != nil {
		t.Fatal(err)
	}
	return "vlogs+" + s.URL
}

// startEmptyVictoriaLogs starts the real server for one test, empty.
func startEmptyVictoriaLogs(t *testing.T) *vlogstest.Server {
	t.Helper()
	s, skip, err := vlogstest.Start()
	if err != nil {
		t.Fatal(err)
	}
	if skip != "" {
		t.Skip(skip)
	}
	t.Cleanup(s.Stop)
	return s
}

// analyzed is the JSON report of one analyze run, split for comparing.
type analyzed struct {
	inputs    []map[string]any
	findings  []map[string]any
	incidents []map[string]any
}

func analyzeLive(t *testing.T, want int, args ...string) (analyzed, string) {
	t.Helper()
	code, stdout, stderr := runWithStdin(t, append([]string{"analyze", "--format", "json"}, args...), nil)
	if code != want {
		t.Fatalf("analyze %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr)
	}
	var doc struct {
		Inputs    []map[string]any `json:"inputs"`
		Findings  []map[string]any `json:"findings"`
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("analyze %s: %v", strings.Join(args, " "), err)
	}
	return analyzed{doc.Inputs, doc.Findings, doc.Incidents}, stderr
}

// normalised renders findings or incidents as JSON strings; with roles
// (input path → role; the items are changed in place), evidence paths become the input's role and line numbers go (a
// fetched file numbers its own records), as for the export envelopes
// (TestEnvelopesMatchPlain).
func normalised(t *testing.T, items []map[string]any, roles map[string]string) []string {
	t.Helper()
	var out []string
	for _, it := range items {
		if roles != nil {
			ev, _ := it["evidence"].([]any)
			for _, e := range ev {
				m := e.(map[string]any)
				m["path"] = roles[m["path"].(string)]
				delete(m, "line")
			}
		}
		out = append(out, jsonString(t, it))
	}
	return out
}

// inputRoles maps each input's path to its component.
func inputRoles(a analyzed) map[string]string {
	m := map[string]string{}
	for _, in := range a.inputs {
		m[in["path"].(string)] = in["component"].(string)
	}
	return m
}

// onSeedVolumes drops what concerns the noise volumes vlogstest.Seed adds
// to the KCM stream (pvc-noise-N, pvc-tie-N), which the seed files lack.
func onSeedVolumes(items []map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		v, _ := it["volume"].(string)
		if !strings.Contains(v, "pvc-noise-") && !strings.Contains(v, "pvc-tie-") {
			out = append(out, it)
		}
	}
	return out
}

// TestAnalyzeVictoriaLogsSaveReplay is the end-to-end contract of store
// sources on the real VictoriaLogs server: analyze on the vlogs+http URL
// with --save DIR, then analyze DIR offline, give the same findings and
// incidents (byte for byte, evidence paths included: the saved streams
// keep their names); and both give the plain seed files' findings on the
// seed's volumes.
func TestAnalyzeVictoriaLogsSaveReplay(t *testing.T) {
	url := startVictoriaLogs(t)
	save := t.TempDir()
	window := []string{"--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z"}
	selectors := []string{"--selector", `kcm=container:="kube-controller-manager"`, "--selector", `kubelet=_SYSTEMD_UNIT:="kubelet.service"`}
	live, stderr := analyzeLive(t, exitOK, append(append([]string{url, "--save", save}, selectors...), window...)...)
	if len(live.inputs) != 2 {
		t.Fatalf("live: %d inputs, want 2 (kcm, kubelet)\n%s", len(live.inputs), stderr)
	}
	for i, role := range []string{"kcm", "kubelet"} {
		in := live.inputs[i]
		f, _ := in["fetch"].(map[string]any)
		if f == nil {
			t.Fatalf("live input %d has no fetch: %v", i, in)
		}
		if in["component"] != role || !strings.HasPrefix(in["path"].(string), url+" "+role+"=") || in["wrapper"] != "victorialogs" {
			t.Errorf("live input %d: path %q component %q wrapper %q; want %s, named by source and selector", i, in["path"], in["component"], in["wrapper"], role)
		}
		if f["source"] != url || f["pushdown"] != "auto" || f["since"] != "2024-08-12T00:00:00Z" || f["default_window"] != false ||
			f["records"].(float64) == 0 || f["requests"].(float64) == 0 || !strings.Contains(f["query"].(string), "*olume*") {
			t.Errorf("live input %d: fetch %v", i, f)
		}
		if f["records"] != in["records"] {
			t.Errorf("live input %d: %v records fetched, %v read", i, f["records"], in["records"])
		}
	}
	if len(live.findings) == 0 || len(live.incidents) == 0 {
		t.Fatalf("live: no finding or incident\n%s", stderr)
	}

	t.Logf("live: %d findings (%d on the seed volumes), %d incidents; inputs %v / %v", len(live.findings), len(onSeedVolumes(live.findings)), len(live.incidents), live.inputs[0]["fetch"], live.inputs[1]["records"])
	offline, _ := analyzeLive(t, exitOK, save)
	compareLists(t, "offline findings", normalised(t, offline.findings, nil), normalised(t, live.findings, nil))
	compareLists(t, "offline incidents", normalised(t, offline.incidents, nil), normalised(t, live.incidents, nil))
	for i := range offline.inputs {
		if offline.inputs[i]["path"] != live.inputs[i]["path"] || offline.inputs[i]["fetch"] == nil {
			t.Errorf("offline input %d: %v, want the live input's name and fetch", i, offline.inputs[i])
		}
	}

	seed := absFixture(t, "incidents", "seed-legacy")
	plain, _ := analyzeLive(t, exitOK, filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log"))
	compareLists(t, "live findings vs the files", normalised(t, onSeedVolumes(live.findings), inputRoles(live)), normalised(t, plain.findings, inputRoles(plain)))
	compareLists(t, "live incidents vs the files", normalised(t, onSeedVolumes(live.incidents), nil), normalised(t, plain.incidents, nil))
}

// TestAnalyzeVictoriaLogsSelectionFlags: --volume, --node and --pod on a
// store source select locally, after the fetch, and give the files'
// findings, incidents and per-volume event counts. Sent to the store as a
// substring every line must hold they did not: the seed's volume named by
// its handle loses the lines naming only its PV, its first node loses the
// lines of the second (the multi-attach), the pod the detach and the
// kubelet lines that do not name it.
func TestAnalyzeVictoriaLogsSelectionFlags(t *testing.T) {
	url := startVictoriaLogs(t)
	seed := absFixture(t, "incidents", "seed-legacy")
	files := []string{filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log")}
	live := []string{url, "--selector", `kcm=container:="kube-controller-manager"`, "--selector", `kubelet=_SYSTEMD_UNIT:="kubelet.service"`,
		"--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z"}
	volumeEvents := func(args ...string) []string {
		t.Helper()
		code, stdout, stderr := runWithStdin(t, append([]string{"volumes", "--format", "json"}, args...), nil)
		if code != exitOK {
			t.Fatalf("volumes %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		var doc struct {
			Volumes []map[string]any `json:"volumes"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, v := range onSeedVolumes(doc.Volumes) {
			out = append(out, fmt.Sprint(v["volume"], " events=", v["events"], " kinds=", jsonString(t, v["kinds"])))
		}
		return out
	}
	for _, flag := range [][]string{
		{"--volume", "disk-7x9qk2mz"},
		{"--volume", "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f"},
		{"--node", "10.0.3.27"},
		{"--pod", "default/mysql-0"},
	} {
		l, _ := analyzeLive(t, exitOK, append(slices.Clone(live), flag...)...)
		p, _ := analyzeLive(t, exitOK, append(slices.Clone(files), flag...)...)
		what := strings.Join(flag, " ")
		if len(p.findings) == 0 {
			t.Fatalf("%s: no finding on the files: the case proves nothing", what)
		}
		for _, in := range l.inputs {
			if q := in["fetch"].(map[string]any)["query"].(string); strings.Contains(q, flag[1]) {
				t.Errorf("%s: sent to the store: %s", what, q)
			}
		}
		compareLists(t, what+": live findings vs the files", normalised(t, onSeedVolumes(l.findings), inputRoles(l)), normalised(t, p.findings, inputRoles(p)))
		compareLists(t, what+": live incidents vs the files", normalised(t, onSeedVolumes(l.incidents), nil), normalised(t, p.incidents, nil))
		compareLists(t, what+": live volumes vs the files", volumeEvents(append(slices.Clone(live), flag...)...), volumeEvents(append(slices.Clone(files), flag...)...))
	}
}

// TestAnalyzeVictoriaLogsJoinedInJSON: a multi-line entry stored one
// record a line is joined back on the real server, and the JSON says how
// many continuation lines were joined in inputs[].fetch.joined (absent
// when none: the kubelet stream here).
func TestAnalyzeVictoriaLogsJoinedInJSON(t *testing.T) {
	s := startEmptyVictoriaLogs(t)
	at := time.Date(2024, 8, 12, 6, 5, 0, 0, time.UTC)
	var recs []vlogstest.Record
	for i, m := range []string{
		`I0812 14:05:00.000000       1 reconciler.go:304] "attacherDetacher.AttachVolume started" volumeName="kubernetes.io/csi/disk.csi.azure.com^disk-ml" nodeName="node-ml" scheduledPods=<`,
		"\tdefault/pod-a", "\tdefault/pod-b", " >",
	} {
		recs = append(recs, vlogstest.Record{Role: "kcm", Time: at.Add(time.Duration(i) * time.Millisecond), Msg: m})
	}
	recs = append(recs, vlogstest.Record{Role: "kubelet", Time: at, Msg: `I0812 06:05:00.000000    2783 reconciler.go:224] "operationExecutor.VerifyControllerAttachedVolume started for volume \"pvc-ml\""`})
	if err := s.Load(recs); err != nil {
		t.Fatal(err)
	}
	l, stderr := analyzeLive(t, exitOK, "vlogs+"+s.URL, "--selector", `kcm=container:="kube-controller-manager"`, "--selector", `kubelet=_SYSTEMD_UNIT:="kubelet.service"`,
		"--since", "2024-08-12T06:00:00Z", "--until", "2024-08-12T06:10:00Z")
	if len(l.inputs) != 2 {
		t.Fatalf("%d inputs\n%s", len(l.inputs), stderr)
	}
	kcm, kubelet := l.inputs[0]["fetch"].(map[string]any), l.inputs[1]["fetch"].(map[string]any)
	if kcm["joined"] != 3.0 || kcm["records"] != 1.0 {
		t.Errorf("kcm fetch: joined %v into %v records, want 3 into 1", kcm["joined"], kcm["records"])
	}
	if _, ok := kubelet["joined"]; ok {
		t.Errorf("kubelet fetch has joined %v, want none", kubelet["joined"])
	}
}
