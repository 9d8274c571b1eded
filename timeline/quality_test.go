package timeline

import (
	"slices"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// A kubelet sentence names the pod without its namespace; the KCM's Event
// echo names it with one. One volume, one pod.
func TestMergeBarePodName(t *testing.T) {
	k, kl := parser.ComponentKCM, parser.ComponentKubelet
	a := ev(0, parser.AttachSucceeded, k, nodeB)
	a.SetPod("db/redis-master-0", nil)
	m := ev(10, parser.MountDeviceFailed, kl, nodeB)
	m.SetPod("redis-master-0", nil)
	tl := Build([]parser.Result{result("kcm.log", k.String(), a), result("kubelet.log", kl.String(), m)}, Options{})
	if len(tl.Volumes) != 1 {
		t.Fatalf("%d volumes", len(tl.Volumes))
	}
	v := tl.Volumes[0]
	if !slices.Equal(v.Pods(), []string{"db/redis-master-0"}) {
		t.Errorf("pods %v", v.Pods())
	}
	for _, e := range v.Events {
		if e.Pod != "db/redis-master-0" {
			t.Errorf("%s pod %q, want the namespaced name", e.Kind, e.Pod)
		}
	}
}

// Two namespaces with a pod of the same name: the bare name stays bare.
func TestMergeBarePodNameAmbiguous(t *testing.T) {
	k, kl := parser.ComponentKCM, parser.ComponentKubelet
	a := ev(0, parser.AttachSucceeded, k, nodeB)
	a.SetPod("db/web-0", nil)
	b := ev(1, parser.AttachSucceeded, k, nodeA)
	b.SetPod("other/web-0", nil)
	m := ev(10, parser.MountDeviceFailed, kl, nodeB)
	m.SetPod("web-0", nil)
	tl := Build([]parser.Result{result("kcm.log", k.String(), a, b), result("kubelet.log", kl.String(), m)}, Options{})
	for _, e := range tl.Volumes[0].Events {
		if e.Kind == parser.MountDeviceFailed && e.Pod != "web-0" {
			t.Errorf("ambiguous bare name merged into %q", e.Pod)
		}
	}
}

// A describe snapshot captured 20 minutes after the newest log line: the
// parser anchors its ages to the newest log time; the timeline moves the
// rows so they land on the log events they repeat.
func TestDescribeReanchor(t *testing.T) {
	k, kl := parser.ComponentKCM, parser.ComponentKubelet
	attach := ev(0, parser.AttachSucceeded, k, nodeB)
	var kub []parser.Event
	for i := range 5 {
		kub = append(kub, ev(float64(60+i*60), parser.MountDeviceFailed, kl, nodeB)) // last at +300s
	}
	kub = append(kub, ev(600, parser.SetupSucceeded, kl, nodeB)) // newest log line: +600s
	capture := at(600).Add(20 * time.Minute)                     // describe taken 20m later
	newest := at(600)
	row := func(kind parser.Kind, lastSeen time.Time, n int, span time.Duration) parser.Event {
		age := capture.Sub(lastSeen).Truncate(time.Minute) // kubectl rounds ages down
		return parser.Draft{Time: parser.StampOf(newest.Add(-age)), Age: age, Kind: kind, PV: vPV, Component: parser.ComponentEvents,
			Origin: parser.OriginDescribe, Count: parser.Int32(n), Span: span, Text: parser.TextOf(kind.String())}.Event()
	}
	desc := result("describe.txt", parser.ComponentEvents.String(),
		row(parser.AttachSucceeded, at(0), 1, 0),
		row(parser.MountDeviceFailed, at(300), 5, 4*time.Minute))
	tl := Build([]parser.Result{result("kcm.log", k.String(), attach), result("kubelet.log", kl.String(), kub...), desc}, Options{})
	var sk *Skew
	for i := range tl.Skews {
		if tl.Skews[i].Path == "describe.txt" {
			sk = &tl.Skews[i]
		}
	}
	if sk == nil || sk.From != "matched-events" || sk.Pairs != 2 {
		t.Fatalf("describe skew %+v", sk)
	}
	if d := sk.Offset - 20*time.Minute; d < -time.Minute || d > 0 {
		t.Errorf("offset %v, want within a minute below 20m", sk.Offset)
	}
	for _, e := range tl.Volumes[0].Events {
		if e.Origin != parser.OriginDescribe {
			continue
		}
		want := at(0)
		if e.Kind == parser.MountDeviceFailed {
			want = at(300)
		}
		if d := e.Time.UTC().Sub(want); d < -time.Minute || d > time.Minute {
			t.Errorf("%s row at %v, want ≈ %v", e.Kind, e.Time, want)
		}
	}
}

// The timeline's span covers every input's first and last line, not only
// the lines that became events.
func TestSpanCoversInputs(t *testing.T) {
	k := parser.ComponentKCM
	r := result("kcm.log", k.String(), ev(10, parser.AttachStarted, k, nodeA), ev(20, parser.AttachSucceeded, k, nodeA))
	r.Input.First, r.Input.Last = at(0), at(30)
	tl := Build([]parser.Result{r}, Options{})
	if !tl.Start.Equal(at(0)) || !tl.End.Equal(at(30)) {
		t.Errorf("span %v → %v, want %v → %v", tl.Start, tl.End, at(0), at(30))
	}
}
