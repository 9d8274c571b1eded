package parser

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// stormLine is one nestedpendingoperations attach failure at second s.
func stormLine(s int, node string) string {
	return fmt.Sprintf(`E0812 11:%02d:%02d.734377       1 nestedpendingoperations.go:301] Operation for "{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}" failed. No retries permitted until 2024-08-12 11:10:02.234363573 +0800 CST m=+259202.234363573 (durationBeforeRetry 2m2s). Error: "AttachVolume.Attach failed for volume \"pvc-5d6c\" (UniqueName: \"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz\") from node \"%s\" : rpc error: code = Internal desc = Code=ResourceUnavailable.ZoneNotMatch, RequestId=%d"`+"\n", s/60%60, s%60, node, s)
}

// A flood of one failure keeps memory to the distinct facts: the first
// foldKeep events verbatim, the rest folded into one with their count and
// span; another node's failures, or any other event of the volume, start a
// new run.
func TestFoldRepeatedFailures(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := range n {
		b.WriteString(stormLine(i, "10.0.3.15"))
	}
	b.WriteString(stormLine(n, "10.0.3.16")) // another node: a run of its own
	r := ParseReader(strings.NewReader(b.String()), "storm.log", Options{})
	if got, want := len(r.Events), foldKeep+2; got != want {
		t.Fatalf("%d events, want %d (%d verbatim, one folded, one of another node)", got, want, foldKeep)
	}
	total := 0
	for _, ev := range r.Events {
		if ev.Node == "10.0.3.15" {
			total += max(int(ev.Count), 1)
		}
	}
	if total != n {
		t.Errorf("counts add up to %d, want %d", total, n)
	}
	folded := r.Events[foldKeep]
	if int(folded.Count) != n-foldKeep {
		t.Errorf("folded event counts %d, want %d", folded.Count, n-foldKeep)
	}
	if want := time.Duration(n-1-foldKeep) * time.Second; folded.Span != want {
		t.Errorf("folded span %v, want %v", folded.Span, want)
	}
	if folded.Source.Line != n || !strings.Contains(folded.Text.String(), fmt.Sprintf("RequestId=%d", n-1)) {
		t.Errorf("folded event quotes line %d, want the last repeat (%d)", folded.Source.Line, n)
	}
	if r.Input.Folded != n-foldKeep-1 || r.Input.EventLines != n+1 {
		t.Errorf("Folded %d, EventLines %d; want %d, %d", r.Input.Folded, r.Input.EventLines, n-foldKeep-1, n+1)
	}
	said := false
	for _, p := range r.Input.Problems {
		said = said || strings.Contains(p.Message, "folded")
	}
	if !said {
		t.Errorf("the input's problems do not say lines were folded: %v", r.Input.Problems)
	}
}

// TestEventBudget: past Options.MaxEvents an input's distinct events are
// dropped, and said to be (a problem, Dropped, Truncated: exit 3), while
// the events kept are reported and repeats of a run already folding are
// still counted. ParseReader and ParseAll (a file) keep the same budget.
func TestEventBudget(t *testing.T) {
	const storm, distinct = 3000, 200
	budget := foldKeep + 50
	var b strings.Builder
	for i := range storm {
		b.WriteString(stormLine(i, "10.0.3.15")) // foldKeep+1 events
	}
	for i := range distinct { // 49 kept, the rest dropped
		b.WriteString(strings.ReplaceAll(stormLine(storm+i, "10.0.3.15"), "disk-7x9qk2mz", fmt.Sprintf("disk-%d", i)))
	}
	for i := range 10 { // still folded into the storm's event
		b.WriteString(stormLine(storm+distinct+i, "10.0.3.15"))
	}
	path := t.TempDir() + "/budget.log"
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	opt := Options{MaxEvents: budget}
	all, errs := ParseAll([]string{path}, opt)
	if len(errs) > 0 || len(all) != 1 {
		t.Fatalf("ParseAll: %d results, errors %v", len(all), errs)
	}
	for _, r := range []Result{ParseReader(strings.NewReader(b.String()), "budget.log", opt), all[0]} {
		in := r.Input
		if len(r.Events) != budget || in.Dropped != distinct-(budget-foldKeep-1) || !in.Truncated {
			t.Errorf("%s: %d events, %d dropped, truncated %v; want %d, %d, true", in.Path, len(r.Events), in.Dropped, in.Truncated, budget, distinct-(budget-foldKeep-1))
		}
		if c := int(r.Events[foldKeep].Count); c != storm+10-foldKeep {
			t.Errorf("%s: the folded event counts %d, want %d (repeats past the budget counted)", in.Path, c, storm+10-foldKeep)
		}
		said := false
		for _, p := range in.Problems {
			said = said || strings.Contains(p.Message, fmt.Sprintf("%d later ones dropped", in.Dropped))
		}
		if !said {
			t.Errorf("%s: no problem says events were dropped: %v", in.Path, in.Problems)
		}
	}
	if r := ParseReader(strings.NewReader(b.String()), "budget.log", Options{MaxEvents: -1}); r.Input.Dropped != 0 || r.Input.Truncated || len(r.Events) != foldKeep+1+distinct {
		t.Errorf("no budget: %d events, %d dropped, truncated %v", len(r.Events), r.Input.Dropped, r.Input.Truncated)
	}
}

// distinctInputs writes one input per count, each of that many attach
// failures of distinct volumes (no repeats to fold), and returns their paths.
func distinctInputs(t *testing.T, counts ...int) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for f, distinct := range counts {
		var b strings.Builder
		for i := range distinct {
			b.WriteString(strings.ReplaceAll(stormLine(i, "10.0.3.15"), "disk-7x9qk2mz", fmt.Sprintf("disk-%d-%d", f, i)))
		}
		p := fmt.Sprintf("%s/in%d.log", dir, f)
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestEventBudgetPerRun: Options.MaxEvents is the run's budget, given out
// in input order across the inputs: the first input keeps what it has,
// the next what is left, the others nothing; each says what it dropped.
// The same inputs in another order keep the events of the new first ones,
// and the outcome does not depend on how many inputs are read at once.
func TestEventBudgetPerRun(t *testing.T) {
	paths := distinctInputs(t, 40, 50, 80)
	const budget = 100
	type got struct{ events, dropped int }
	run := func(paths []string, procs int) []got {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		all, errs := ParseAll(paths, Options{MaxEvents: budget})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var out []got
		for _, r := range all {
			out = append(out, got{len(r.Events), r.Input.Dropped})
			if want := r.Input.Dropped > 0; r.Input.Truncated != want {
				t.Errorf("%s: truncated %v with %d dropped", r.Input.Path, r.Input.Truncated, r.Input.Dropped)
			}
			said := false
			for _, p := range r.Input.Problems {
				said = said || strings.Contains(p.Message, fmt.Sprintf("the first %d of this input are kept, %d later ones dropped", len(r.Events), r.Input.Dropped))
			}
			if r.Input.Dropped > 0 && !said {
				t.Errorf("%s: no problem says what the run's budget dropped: %v", r.Input.Path, r.Input.Problems)
			}
		}
		return out
	}
	want := []got{{40, 0}, {50, 0}, {10, 70}}
	for _, procs := range []int{1, 3} {
		if g := run(paths, procs); !slices.Equal(g, want) {
			t.Errorf("GOMAXPROCS %d: (events, dropped) per input %v, want %v", procs, g, want)
		}
	}
	want = []got{{80, 0}, {20, 20}, {0, 50}}
	if g := run([]string{paths[2], paths[0], paths[1]}, 3); !slices.Equal(g, want) {
		t.Errorf("inputs reordered: (events, dropped) per input %v, want %v", g, want)
	}
}

// TestEventBudgetPerRunFolded: an input the run's budget cuts short
// counts what it drops as lines: a dropped event that repeats were
// folded into counts them too (they are no longer folded), so kept and
// dropped add up to the storm.
func TestEventBudgetPerRunFolded(t *testing.T) {
	const storm, first = 3000, 50
	dir := t.TempDir()
	var a, b strings.Builder
	for i := range first {
		a.WriteString(strings.ReplaceAll(stormLine(i, "10.0.3.15"), "disk-7x9qk2mz", fmt.Sprintf("disk-%d", i)))
	}
	for i := range storm {
		b.WriteString(stormLine(i, "10.0.3.16"))
	}
	paths := []string{dir + "/a.log", dir + "/storm.log"}
	for i, s := range []string{a.String(), b.String()} {
		if err := os.WriteFile(paths[i], []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// the storm alone keeps foldKeep verbatim events and the one the rest
	// fold into; the run's budget leaves it fewer
	keep := foldKeep - 10
	all, errs := ParseAll(paths, Options{MaxEvents: first + keep})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := all[1]
	if len(r.Events) != keep || r.Input.Dropped != storm-keep || r.Input.Folded != 0 {
		t.Errorf("storm: %d events kept, %d dropped, %d folded; want %d, %d, 0 (every line of the storm accounted for once)", len(r.Events), r.Input.Dropped, r.Input.Folded, keep, storm-keep)
	}
	for _, p := range r.Input.Problems {
		if strings.Contains(p.Message, "folded into") {
			t.Errorf("storm: the folded event was dropped, yet a problem says: %s", p.Message)
		}
	}
}

// TestEventBudgetSpent: once the inputs read hold the run's budget, an
// input after them stores nothing while it is read (it would be cut to
// nothing), so the run holds the budget, not the budget for every input —
// and what each input keeps and says it dropped is the same whether it
// stopped early or was cut afterwards, however many inputs are read at
// once.
func TestEventBudgetSpent(t *testing.T) {
	paths := distinctInputs(t, 1200, 2000, 3000)
	type got struct{ events, dropped int }
	want := []got{{1200, 0}, {300, 1700}, {0, 3000}}
	run := func(procs int) ([]got, map[string]int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var mu sync.Mutex
		held := map[string]int{}
		opt := Options{MaxEvents: 1500, onRead: func(p string, n int) {
			mu.Lock()
			defer mu.Unlock()
			held[p] = n
		}}
		all, errs := ParseAll(paths, opt)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var out []got
		for _, r := range all {
			out = append(out, got{len(r.Events), r.Input.Dropped})
		}
		return out, held
	}
	g, held := run(1) // one input at a time: the third starts once the first two hold 2 700
	if !slices.Equal(g, want) {
		t.Errorf("one at a time: (events, dropped) per input %v, want %v", g, want)
	}
	if held[paths[0]] != 1200 || held[paths[1]] != 1500 || held[paths[2]] != 0 {
		t.Errorf("events held once read: %d, %d, %d; want 1200, 1500 (its own cap), 0 (spent)", held[paths[0]], held[paths[1]], held[paths[2]])
	}
	for range 5 {
		if g, _ := run(3); !slices.Equal(g, want) {
			t.Fatalf("read at once: (events, dropped) per input %v, want %v", g, want)
		}
	}
}

// retryCycle is one attempt of an attach that the cloud refuses, as the
// controller logs it (klog printf): the reconciler's "started", the CSI
// attacher's error (which names the handle only), nestedpendingoperations'
// backoff and the FailedAttachVolume Event echoed into the log, at minute
// i of the storm on node.
func retryCycle(i int, node string) string {
	const pv, handle = "pvc-9d9baae0", "disk-l50pet0v"
	unique := "kubernetes.io/csi/com.tencent.cloud.csi.cbs^" + handle
	at := func(sec int) string { return fmt.Sprintf("0812 %02d:%02d:%02d.000000", (i/60)%24, i%60, sec) }
	errText := fmt.Sprintf("rpc error: code = Internal desc = [TencentCloudSDKError] Code=RequestLimitExceeded, Message=exceeds the frequency limit., RequestId=%d", i)
	inner := fmt.Sprintf(`AttachVolume.Attach failed for volume "%s" (UniqueName: "%s") from node "%s" : %s`, pv, unique, node, errText)
	return fmt.Sprintf("I%s       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume %q (UniqueName: %q) from node %q \n", at(1), pv, unique, node) +
		fmt.Sprintf("E%s       1 csi_attacher.go:254] kubernetes.io/csi: attachment for %s failed: %s\n", at(2), handle, errText) +
		fmt.Sprintf("E%s       1 nestedpendingoperations.go:301] Operation for \"{volumeName:%s podName: nodeName:}\" failed. No retries permitted until 2024-08-12 11:10:02.234363573 +0000 UTC m=+259202.234363573 (durationBeforeRetry 2m2s). Error: %s\n", at(2), unique, strconv.Quote(inner)) +
		fmt.Sprintf("I%s       1 event.go:291] \"Event occurred\" object=\"ns/pod-0\" kind=\"Pod\" apiVersion=\"v1\" type=\"Warning\" reason=\"FailedAttachVolume\" message=%s\n", at(3), strconv.Quote(fmt.Sprintf(`AttachVolume.Attach failed for volume "%s" : %s`, pv, errText)))
}

// A retry storm is a cycle of four lines an attempt, each its own run of
// its volume: an outage of days folds to foldKeep verbatim events of each
// and one they fold into, their counts adding up to the attempts; an
// attach that succeeds ends the runs (a later storm starts new ones), and
// two nodes' cycles interleaved fold apart.
func TestFoldRetryCycles(t *testing.T) {
	const attempts = 1500
	var b strings.Builder
	for i := range attempts {
		b.WriteString(retryCycle(i, "10.0.4.103"))
	}
	r := ParseReader(strings.NewReader(b.String()), "storm.log", Options{})
	perKind := map[Kind]int{}
	counted := map[Kind]int{}
	for _, ev := range r.Events {
		perKind[ev.Kind]++
		counted[ev.Kind] += max(int(ev.Count), 1)
	}
	// foldKeep verbatim and one folded of each of the cycle's four lines,
	// and the first attempt's started line, before the storm had a run
	if len(r.Events) != 4*(foldKeep+1)+1 {
		t.Errorf("%d events, want %d: foldKeep verbatim and one folded of each of the cycle's four lines, and the first started (%v)", len(r.Events), 4*(foldKeep+1)+1, perKind)
	}
	// the CSI attacher's error and the backoff are both attach failures
	if counted[AttachStarted] != attempts || counted[AttachFailed]+counted[CSIError] != 3*attempts {
		t.Errorf("counts per kind %v, want %d attempts of each line", counted, attempts)
	}
	if r.Input.Folded != 4*(attempts-foldKeep-1)-1 {
		t.Errorf("Folded %d, want %d", r.Input.Folded, 4*(attempts-foldKeep-1)-1)
	}

	// a success ends the runs: a second storm after it starts new runs
	// (two storms of fewer than foldKeep attempts each fold nothing)
	b.Reset()
	for i := range 2*foldKeep - 20 {
		if i == foldKeep-10 {
			b.WriteString(fmt.Sprintf("I0812 %02d:%02d:30.000000       1 operation_generator.go:360] AttachVolume.Attach succeeded for volume \"pvc-9d9baae0\" (UniqueName: \"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-l50pet0v\") from node \"10.0.4.103\" \n", (i/60)%24, i%60))
		}
		b.WriteString(retryCycle(i, "10.0.4.103"))
	}
	r = ParseReader(strings.NewReader(b.String()), "storm.log", Options{})
	if r.Input.Folded != 0 {
		t.Errorf("two storms of %d attempts split by a success: %d lines folded, want none", foldKeep-10, r.Input.Folded)
	}

	// two nodes' cycles, interleaved: each node's lines fold on their own
	b.Reset()
	for i := range 3 * foldKeep {
		b.WriteString(retryCycle(i, "10.0.4.103"))
		b.WriteString(retryCycle(i, "10.0.4.104"))
	}
	r = ParseReader(strings.NewReader(b.String()), "storm.log", Options{})
	nodes := map[string]int{}
	for _, ev := range r.Events {
		nodes[ev.Node] += max(int(ev.Count), 1)
	}
	if nodes["10.0.4.103"] != nodes["10.0.4.104"] || r.Input.Folded == 0 {
		t.Errorf("lines per node %v, %d folded: want the nodes alike, and folding", nodes, r.Input.Folded)
	}
}

// A volume keeps at most maxVolumeRuns runs: a failure repeated for pod
// after pod (each its own run) does not make every event of the volume
// search a growing list, and the latest pods' runs still fold.
func TestFoldRunsPerVolume(t *testing.T) {
	st := &inputState{}
	const pods = 1000
	for i := range pods {
		d := Draft{Kind: MountTimeout, Volume: "kubernetes.io/csi/x^disk-1", Pod: fmt.Sprintf("ns/pod-%d", i), Component: ComponentKubelet}
		ev := d.Event()
		if st.fold(&ev, evMeta{}, "") {
			t.Fatalf("pod %d: a first failure folded", i)
		}
	}
	if n := len(st.folds["kubernetes.io/csi/x^disk-1"]); n != maxVolumeRuns {
		t.Fatalf("%d runs kept for the volume, want %d", n, maxVolumeRuns)
	}
	for i, r := range st.folds["kubernetes.io/csi/x^disk-1"] {
		if want := fmt.Sprintf("ns/pod-%d", pods-maxVolumeRuns+i); r.key.pod != want {
			t.Errorf("run %d is %s's, want %s's (the latest pods')", i, r.key.pod, want)
		}
	}
}
