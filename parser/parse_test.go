package parser

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/golden"
)

// testNow pins the "current" time so that inputs without year evidence get
// a stable year in golden files.
var testNow = time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)

// testInputs lists every shipped log: the catalog examples, the real logs and
// the seed document.
func testInputs(t testing.TB) []string {
	var files []string
	for _, pat := range []string{"../testdata/catalog/examples.log", "../testdata/real-logs/*.log", "../testdata/seed/*.txt"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 17 {
		t.Fatalf("only %d test inputs found", len(files))
	}
	return files
}

func parseFile(t testing.TB, path string, opt Options) Result {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opt.now = testNow
	return ParseReader(bytes.NewReader(data), filepath.Base(path), opt)
}

type goldenInput struct {
	Path       string         `json:"path"`
	Component  string         `json:"component"`
	Wrapper    string         `json:"wrapper"`
	Format     string         `json:"format"`
	Lines      int            `json:"lines"`
	Relevant   int            `json:"relevant"`
	EventLines int            `json:"event_lines"`
	Irrelevant int            `json:"irrelevant"`
	Skipped    map[string]int `json:"skipped,omitempty"`
	Events     int            `json:"events"`
	Unknown    int            `json:"unknown"`
	First      string         `json:"first,omitempty"`
	Last       string         `json:"last,omitempty"`
	Year       int            `json:"year"`
	YearFrom   string         `json:"year_from"`
	Zone       string         `json:"zone"`
	ZoneFrom   string         `json:"zone_from"`
	Problems   []string       `json:"problems,omitempty"`
}

type goldenEvent struct {
	Line       int    `json:"line"`
	Time       string `json:"time,omitempty"`
	Relative   bool   `json:"relative,omitempty"`
	Age        string `json:"age,omitempty"`
	Kind       Kind   `json:"kind"`
	Volume     string `json:"volume,omitempty"`
	PV         string `json:"pv,omitempty"`
	Handle     string `json:"handle,omitempty"`
	Attachment string `json:"attachment,omitempty"`
	Node       string `json:"node,omitempty"`
	Pod        string `json:"pod,omitempty"`
	Code       string `json:"code,omitempty"`
	Count      int    `json:"count,omitempty"`
	Span       string `json:"span,omitempty"`
	Component  string `json:"component,omitempty"`
	Origin     string `json:"origin,omitempty"`
	Level      string `json:"level,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Backoff    string `json:"backoff,omitempty"`
	Error      string `json:"error,omitempty"`
	Text       string `json:"text"`
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// goldenJSONL renders a result as JSON Lines: the input summary first, then
// one event per line in (line, kind) order.
func goldenJSONL(t testing.TB, res Result) []byte {
	in := res.Input
	gi := goldenInput{Path: in.Path, Component: in.Component, Wrapper: in.Wrapper, Format: in.Format,
		Lines: in.Lines, Relevant: in.Relevant, EventLines: in.EventLines, Irrelevant: in.Irrelevant,
		Skipped: in.Skipped, Events: in.Events, Unknown: in.Unknown, Year: in.Year, YearFrom: in.YearFrom,
		Zone: in.Zone, ZoneFrom: in.ZoneFrom}
	if !in.First.IsZero() {
		gi.First, gi.Last = in.First.Format(time.RFC3339Nano), in.Last.Format(time.RFC3339Nano)
	}
	for _, p := range in.Problems {
		gi.Problems = append(gi.Problems, fmt.Sprintf("%d: %s", p.Line, p.Message))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]goldenInput{"input": gi}); err != nil {
		t.Fatal(err)
	}
	evs := append([]Event(nil), res.Events...)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Source.Line < evs[j].Source.Line })
	for _, ev := range evs {
		ge := goldenEvent{Line: int(ev.Source.Line), Relative: ev.Relative, Kind: ev.Kind, Volume: ev.Volume, PV: ev.PV,
			Handle: ev.Handle, Attachment: ev.Attachment, Node: ev.Node, Pod: ev.Pod, Code: ev.Code, Count: int(ev.Count),
			Component: ev.Component.String(), Origin: ev.Origin.String(), PID: int(ev.PID), Reason: ev.Reason,
			Error: clipText(ev.Error, 100), Text: clipText(ev.Text.String(), 100)}
		if !ev.Time.IsZero() {
			ge.Time = ev.Time.Format(time.RFC3339Nano)
		}
		if ev.Age != 0 {
			ge.Age = ev.Age.String()
		}
		if ev.Span != 0 {
			ge.Span = ev.Span.String()
		}
		if ev.Level != 0 {
			ge.Level = string(ev.Level)
		}
		if ev.Retry != nil {
			ge.Backoff = ev.Retry.Backoff.String()
		}
		if err := enc.Encode(ge); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// TestGoldenEvents pins the events of every shipped log under
// testdata/golden/ (KCMTRACE_UPDATE=1 rewrites them).
func TestGoldenEvents(t *testing.T) {
	for _, f := range testInputs(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res := parseFile(t, f, Options{})
			name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)) + ".jsonl"
			golden.Check(t, filepath.Join("testdata", "golden", name), goldenJSONL(t, res))
		})
	}
}

// TestRealLogInputs pins the Input accounting of every real log.
func TestRealLogInputs(t *testing.T) {
	tests := []struct {
		file      string
		lines     int
		wrapper   string
		format    string
		component string
		events    int
		unknown   int
		yearFrom  string
	}{
		{file: "001-cinder-kcm-leader-election-mass-detach.log", lines: 31, wrapper: "none", format: "klog-text", component: "kcm", events: 9, yearFrom: FromAssumed}, // 3 `Started "…"` lines date the KCM (re)start
		{file: "003-cinder-docker-json-detach-request-pending.log", lines: 3, wrapper: "docker-json", format: "klog-text", component: "kcm", events: 3, yearFrom: FromWrapper},
		{file: "005-azure-vmss-multiattach-then-detach.log", lines: 5, wrapper: "none", format: "klog-text", component: "kcm", events: 3, yearFrom: FromAssumed},
		{file: "006-tencent-qcloud-cbs-journald-detach-retry-sts-recreate.log", lines: 9, wrapper: "journald", format: "klog-text", component: "kcm", events: 6, yearFrom: FromAssumed},
		{file: "008-tencent-cbs-csi-zonenotmatch-attach-retry.log", lines: 1, wrapper: "none", format: "describe", component: "events", events: 4, yearFrom: FromAssumed},
		{file: "010-huawei-csi-openshift-kubenswrapper-mountdevice.log", lines: 7, wrapper: "journald", format: "klog-text", component: "kubelet", events: 5, yearFrom: FromAssumed},
		{file: "012-cinder-intree-attach-loop-v1.4.log", lines: 3, wrapper: "none", format: "klog-text", component: "kcm", events: 3, yearFrom: FromAssumed},
		{file: "015-aws-ebs-rancher-ui-prefixed-kubelet-volumesinuse.log", lines: 3, wrapper: "ui-timestamp", format: "klog-text", component: "kubelet", events: 3, yearFrom: FromRetry},
		{file: "017-aws-ebs-v1.4-old-events-volumeinuse-retry.log", lines: 6, wrapper: "none", format: "describe", component: "events", events: 2, yearFrom: FromAssumed},
		{file: "019-aws-ebs-csi-attach-timeout-deadline-exceeded.log", lines: 7, wrapper: "none", format: "describe", component: "events", events: 2, yearFrom: FromAssumed},
		{file: "021-k3s-journald-mixed-klog-logrus-cinder-csi-detach.log", lines: 6, wrapper: "journald", format: "mixed", component: "kcm", events: 1, yearFrom: FromAssumed},
		{file: "023-cinder-intree-node-shutdown-multiattach.log", lines: 14, wrapper: "none", format: "klog-text", component: "kcm", events: 1, yearFrom: FromAssumed},
		{file: "026-vsphere-intree-poweroff-multiattach-docker-json.log", lines: 3, wrapper: "docker-json", format: "klog-text", component: "kcm", events: 1, yearFrom: FromWrapper},
		{file: "028-longhorn-csi-attacher-grep-prefixed-detach-attach-flap.log", lines: 3, wrapper: "grep-prefix+kubectl-timestamps", format: "klog-text", component: "csi", events: 3, yearFrom: FromWrapper},
		{file: "030-openebs-iscsi-node-shutdown-multiattach-used-by-pods.log", lines: 5, wrapper: "none", format: "describe", component: "events", events: 1, yearFrom: FromAssumed},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res := parseFile(t, filepath.Join("..", "testdata", "real-logs", tt.file), Options{})
			in := res.Input
			if in.Lines != tt.lines || in.Wrapper != tt.wrapper || in.Format != tt.format || in.Component != tt.component ||
				in.Events != tt.events || in.Unknown != tt.unknown || in.YearFrom != tt.yearFrom {
				t.Errorf("got lines=%d wrapper=%s format=%s component=%s events=%d unknown=%d yearFrom=%s",
					in.Lines, in.Wrapper, in.Format, in.Component, in.Events, in.Unknown, in.YearFrom)
			}
			if u := in.Unaccounted(); u != 0 {
				t.Errorf("%d lines unaccounted: %+v", u, in)
			}
		})
	}
}

// TestPrefilterPassesClassified parses every shipped log with and without
// the prefilter: every event classify can produce must survive it.
func TestPrefilterPassesClassified(t *testing.T) {
	for _, f := range testInputs(t) {
		with := parseFile(t, f, Options{})
		without := parseFile(t, f, Options{noPrefilter: true})
		seen := map[string]bool{}
		for _, ev := range with.Events {
			seen[fmt.Sprintf("%d %s", ev.Source.Line, ev.Kind)] = true
		}
		for _, ev := range without.Events {
			if !seen[fmt.Sprintf("%d %s", ev.Source.Line, ev.Kind)] {
				t.Errorf("%s:%d: %s event dropped by the prefilter: %s", filepath.Base(f), ev.Source.Line, ev.Kind, clipText(ev.Text.String(), 160))
			}
		}
	}
}

// numbered repeats line n times with distinct pids so that it compresses badly.
func numbered(line string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%s %d\n", strings.Replace(line, "       1 ", fmt.Sprintf(" %7d ", i*7919%100003), 1), i)
	}
	return b.String()
}

func gz(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

const goodLine = `I0812 03:14:15.619804       1 operation_generator.go:358] AttachVolume.Attach succeeded for volume "pvc-5" (UniqueName: "kubernetes.io/csi/d^disk-1") from node "10.0.3.27" `

// TestBadInput has one case per kind of broken input: the message, the
// accounting, and the good line beside it still analysed.
func TestBadInput(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name      string
		data      []byte
		opt       Options
		problem   string // substring of a Problem ("" = none expected)
		skipped   string // Skipped reason expected
		events    int
		truncated bool
		check     func(t *testing.T, res Result)
	}{
		{name: "binary junk", data: []byte("\x00\x01\x02\xff\xfe junk\x00\n" + goodLine + "\n"), problem: "binary", skipped: SkipBinary, events: 1},
		{name: "invalid utf-8", data: []byte(goodLine + "\xff\xfe\n"), events: 1, check: func(t *testing.T, res Result) {
			if !strings.HasSuffix(res.Events[0].Text.String(), "\uFFFD") {
				t.Errorf("text %q not sanitised", res.Events[0].Text)
			}
		}},
		{name: "crlf", data: []byte(goodLine + "\r\n" + goodLine + "\r\n"), events: 2, check: func(t *testing.T, res Result) {
			if strings.Contains(res.Events[0].Text.String(), "\r") {
				t.Error("CR kept")
			}
		}},
		{name: "truncated gzip", data: gz(t, numbered(goodLine, 400))[:3000], problem: "truncated", events: -1, truncated: true},
		{name: "half-written last line", data: []byte(goodLine + "\n" + goodLine[:60]), problem: "no newline", events: 1},
		{name: "too long line", data: []byte(long + "\n" + goodLine + "\n"), opt: Options{MaxLineBytes: 1000}, problem: "longer than 1000 bytes", skipped: SkipTooLong, events: 1},
		{name: "month 13", data: []byte(strings.Replace(goodLine, "I0812", "I1312", 1) + "\n"), problem: "invalid timestamp", events: 1, check: func(t *testing.T, res Result) {
			if !res.Events[0].Time.IsZero() {
				t.Errorf("time %v for an absurd timestamp", res.Events[0].Time)
			}
		}},
		{name: "empty", data: nil, problem: "empty input"},
		{name: "year 0 in retry deadline", data: []byte("E0812 03:12:08.905133       1 nestedpendingoperations.go:348] Operation for \"{volumeName:v podName: nodeName:}\" failed. No retries permitted until 0000-08-12 03:14:10.905101877 +0000 UTC m=+1.9 (durationBeforeRetry 2m2s). Error: AttachVolume.Attach failed for volume \"p\" (UniqueName: \"v\") from node \"n\" : x\n"), problem: "implausible year 0", events: 1, check: func(t *testing.T, res Result) {
			if y := res.Events[0].Time.UTC().Year(); y != 2025 || res.Input.YearFrom != FromAssumed {
				t.Errorf("year %d from %s", y, res.Input.YearFrom)
			}
		}},
		{name: "json ts in year 60000", data: []byte(`{"ts":1.8e15,"caller":"a/b.go:1","msg":"AttachVolume.Attach succeeded for volume \"p\" (UniqueName: \"v\") from node \"n\" ","v":0}` + "\n"), events: 1, check: func(t *testing.T, res Result) {
			if !res.Events[0].Time.IsZero() {
				t.Errorf("time %v", res.Events[0].Time)
			}
		}},
		{name: "only blank lines", data: []byte("\n\n\n"), skipped: SkipBlank},
		{name: "unknown format", data: []byte("hello world\nnothing to see\n")},
		{name: "broken docker record", data: []byte(`{"log":"I0812 03:14:15.6 never closed` + "\n"), problem: "malformed", skipped: SkipMalformed},
		{name: "cri partial lines joined", data: []byte("2024-08-12T03:14:15.619804Z stderr P " + goodLine[:40] + "\n2024-08-12T03:14:15.619804Z stderr F " + goodLine[40:] + "\n"), events: 1, check: func(t *testing.T, res Result) {
			if res.Events[0].Text.String() != goodLine || res.Events[0].Source.Line != 1 {
				t.Errorf("joined text %q line %d", res.Events[0].Text, res.Events[0].Source.Line)
			}
		}},
		{name: "continuation lines kept", data: []byte(goodLine + "\nOutput: mount failed\n\tdetails\nI0812 03:14:16.000000       1 other.go:1] unrelated\n"), events: 1, check: func(t *testing.T, res Result) {
			if want := goodLine + "\nOutput: mount failed\n\tdetails"; res.Events[0].Text.String() != want {
				t.Errorf("text %q", res.Events[0].Text)
			}
			if res.Input.EventLines != 3 || res.Input.Irrelevant != 1 {
				t.Errorf("event lines %d irrelevant %d", res.Input.EventLines, res.Input.Irrelevant)
			}
		}},
		{name: "duplicated and reversed lines", data: []byte(strings.Replace(goodLine, "03:14:15", "03:14:19", 1) + "\n" + goodLine + "\n" + goodLine + "\n"), events: 3},
		{name: "10 MiB struct dump", data: []byte(`I0812 03:14:10.912376       1 reconciler.go:360] "attacherDetacher.AttachVolume started" volume={VolumeToAttach:{VolumeName:kubernetes.io/csi/d^disk-1 NodeName:10.0.3.27 ScheduledPods:[` + strings.Repeat("&Pod{ObjectMeta:{mysql-0 default} } ", 10<<20/36) + "]}}\n" + goodLine + "\n"), events: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := tt.opt
			opt.now = testNow
			done := make(chan Result, 1)
			go func() { done <- ParseReader(bytes.NewReader(tt.data), "bad.log", opt) }()
			var res Result
			select {
			case res = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("parse hung")
			}
			in := res.Input
			if u := in.Unaccounted(); u != 0 {
				t.Errorf("%d lines unaccounted: %+v", u, in)
			}
			if tt.problem != "" {
				found := false
				for _, p := range in.Problems {
					found = found || strings.Contains(p.Message, tt.problem)
				}
				if !found {
					t.Errorf("no problem mentioning %q in %+v", tt.problem, in.Problems)
				}
			}
			if tt.skipped != "" && in.Skipped[tt.skipped] == 0 {
				t.Errorf("nothing skipped as %q: %v", tt.skipped, in.Skipped)
			}
			if tt.events >= 0 && len(res.Events) != tt.events {
				t.Errorf("%d events, want %d (problems %v)", len(res.Events), tt.events, in.Problems)
			}
			if tt.events < 0 && len(res.Events) == 0 {
				t.Error("no events kept from the readable part")
			}
			if in.Truncated != tt.truncated {
				t.Errorf("truncated = %v", in.Truncated)
			}
			if tt.check != nil && len(res.Events) > 0 {
				tt.check(t, res)
			}
		})
	}
}

func TestParseAllPaths(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// a must-gather-like tree with rotated and compressed logs and noise
	tree := filepath.Join(dir, "must-gather", "namespaces", "kube-system", "pods", "kcm", "logs")
	must(os.MkdirAll(tree, 0o755))
	must(os.WriteFile(filepath.Join(tree, "current.log"), []byte(goodLine+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(tree, "previous.log.1"), []byte(goodLine+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(tree, "older.log.2.gz"), gz(t, goodLine+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(tree, "pod.yaml"), []byte("kind: Pod\n"), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "empty", ".git"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "empty", "manifest.yaml"), []byte("x: y\n"), 0o644))

	res, errs := ParseAll([]string{filepath.Join(dir, "must-gather"), "nope.log", filepath.Join(dir, "empty")}, Options{})
	if len(res) != 3 {
		t.Fatalf("%d results, want 3 log files", len(res))
	}
	for i, r := range res {
		if len(r.Events) != 1 || int(r.Events[0].Source.Input) != i {
			t.Errorf("%s: %d events, input index %d", r.Input.Path, len(r.Events), r.Events[0].Source.Input)
		}
	}
	if len(errs) != 2 {
		t.Fatalf("errors %v, want 2", errs)
	}
	if got := errs[0].Error(); got != "open nope.log: no such file or directory" {
		t.Errorf("missing file error %q", got)
	}
	if !strings.Contains(errs[1].Error(), "no log files") {
		t.Errorf("empty directory error %q", errs[1])
	}
}

func TestProgressAndFormatOverride(t *testing.T) {
	p := writeTemp(t, "x.log", strings.Repeat(goodLine+"\n", 10))
	var total int64
	res, _ := ParseAll([]string{p}, Options{Progress: func(n int64) { total += n }})
	if total != int64(10*(len(goodLine)+1)) || res[0].Input.Bytes != total {
		t.Errorf("progress %d bytes, input %d bytes", total, res[0].Input.Bytes)
	}
	res, _ = ParseAll([]string{p}, Options{Format: "nonsense"})
	if len(res[0].Input.Problems) == 0 || !strings.Contains(res[0].Input.Problems[0].Message, "unknown input format") {
		t.Errorf("problems %v", res[0].Input.Problems)
	}
	res, _ = ParseAll([]string{p}, Options{Format: "journald"})
	if len(res[0].Events) != 10 {
		t.Errorf("forced wrapper: %d events", len(res[0].Events))
	}
}

// syntheticKCM builds a realistic KCM log: mostly controller noise, about 1%
// volume lines, a few multi-line entries.
func syntheticKCM(lines int) []byte {
	noise := []string{
		`I0812 03:10:00.612388       1 replica_set.go:454] Too few "kube-system"/"coredns-7f89b7bc75" replicas, need 2, creating 1`,
		`I0812 03:10:00.612388       1 event.go:291] "Event occurred" object="kube-system/coredns-7f89b7bc75" kind="ReplicaSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: coredns-7f89b7bc75-x2x7q"`,
		`I0812 03:10:00.612388       1 shared_informer.go:247] Caches are synced for endpoint_slice`,
		`W0812 03:10:00.612388       1 endpointslice_controller.go:306] Error syncing endpoint slices for service "default/kubernetes", retrying. Error: EndpointSlice informer cache is out of date`,
		`I0812 03:10:00.612388       1 garbagecollector.go:471] "Processing object" object="default/nginx-6799fc88d8-5xk2l" objectUID=2c1b7a3e-9a4d-4e7b-8c2d-1a2b3c4d5e6f kind="Pod" virtual=false`,
		`I0812 03:10:00.612388       1 node_lifecycle_controller.go:1044] Missing timestamp for Node worker-17. Assuming now as a timestamp.`,
		`E0812 03:10:00.612388       1 cronjob_controllerv2.go:159] error syncing CronJobController default/backup, requeuing: Operation cannot be fulfilled on cronjobs.batch "backup": the object has been modified; please apply your changes to the latest version and try again`,
		`I0812 03:10:00.612388       1 serviceaccounts_controller.go:188] Finished syncing namespace "tenant-42" (1.2ms)`,
	}
	volume := []string{
		`I0812 03:10:00.612388       1 reconciler.go:288] attacherDetacher.AttachVolume started for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz") from node "10.0.3.15" `,
		`E0812 03:12:08.905133       1 nestedpendingoperations.go:348] Operation for "{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}" failed. No retries permitted until 2024-08-12 03:14:10.905101877 +0000 UTC m=+259450.905101877 (durationBeforeRetry 2m2s). Error: AttachVolume.Attach failed for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz") from node "10.0.3.15" : rpc error: code = Internal desc = ZoneNotMatch`,
		`I0812 03:14:27.440216       1 operation_generator.go:526] DetachVolume.Detach succeeded for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz") on node "10.0.3.15" `,
	}
	var b bytes.Buffer
	for i := 0; i < lines; i++ {
		if i%100 == 50 {
			b.WriteString(volume[(i/100)%len(volume)])
		} else {
			b.WriteString(noise[(i*7)%len(noise)])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkParse measures throughput over a realistic KCM log (about 1% of
// the lines are volume related).
func BenchmarkParse(b *testing.B) {
	data := syntheticKCM(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res := ParseReader(bytes.NewReader(data), "kcm.log", Options{})
		if res.Input.Events == 0 {
			b.Fatal("no events")
		}
	}
}

// TestManyContinuationLines guards against quadratic work on entries with
// very many header-less lines (klog and describe rows).
func TestManyContinuationLines(t *testing.T) {
	for _, head := range []string{goodLine, "  Warning  FailedMount  2m  kubelet  MountVolume.SetUp failed for volume \"pvc-1\" : x"} {
		data := head + "\n" + strings.Repeat("  continued volume text\n", 200000)
		start := time.Now()
		res := ParseReader(strings.NewReader(data), "c.log", Options{now: testNow})
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", head[:20], d)
		}
		if res.Input.Unaccounted() != 0 || res.Input.Lines != 200001 {
			t.Errorf("accounting %+v", res.Input)
		}
	}
}
