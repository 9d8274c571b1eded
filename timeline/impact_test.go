package timeline

import (
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

var i0 = time.Date(2021, 1, 13, 9, 51, 0, 0, time.UTC)

// iev is a kubelet event sec seconds after i0.
func iev(sec int, kind parser.Kind, node, pod string, origin parser.Origin) parser.Event {
	return parser.Draft{Time: parser.StampOf(i0.Add(time.Duration(sec) * time.Second)), Kind: kind, Node: node, Pod: pod,
		Origin: origin, Component: parser.ComponentKubelet, Source: parser.Source{File: parser.InternPath("kubelet.log"), Line: parser.Int32(sec + 1)}}.Event()
}

// A describe row repeating the kubelet's failures adds no second impact
// entry; without kubelet lines it is the impact. (Moved from report's
// TestImpactDescribeDedupe.)
func TestMountOutagesDescribeDedupe(t *testing.T) {
	const b = "172.28.1.72"
	fail := func(sec int) parser.Event { return iev(sec, parser.MountDeviceFailed, b, "db/redis-master-0", 0) }
	row := iev(3000, parser.MountDeviceFailed, "", "", parser.OriginDescribe)
	row.SetRepeat(parser.Repeat{Count: 35, Span: 77 * time.Minute})
	v := &Volume{Events: []parser.Event{fail(0), fail(100), fail(3000), row}}
	v.SetKey("v")
	if got := v.MountOutages(); len(got) != 1 || got[0].Counts[parser.MountDeviceFailed] != 3 {
		t.Errorf("with kubelet lines: %d outages %+v, want one of 3 failures", len(got), got)
	}
	v = &Volume{Events: []parser.Event{row}}
	v.SetKey("v")
	got := v.MountOutages()
	if len(got) != 1 || !got[0].FromDescribe || got[0].Counts[parser.MountDeviceFailed] != 35 {
		t.Fatalf("describe only: %+v", got)
	}
	if want := row.Time.Add(-77 * time.Minute); !got[0].First.Equal(want.UTC()) || !got[0].Last.Equal(row.Time.UTC()) {
		t.Errorf("describe only: %v → %v, want the row's span %v → %v", got[0].First, got[0].Last, want, row.Time)
	}
}

// One outage per (node, pod name): the namespaced name wins over a bare
// one, kinds keep their order of first appearance, a success after the
// last failure recovers it and a failure after that success is a relapse.
func TestMountOutagesRecoverRelapse(t *testing.T) {
	const a, b = "node-a", "node-b"
	v := &Volume{Events: []parser.Event{
		iev(0, parser.WaitForAttachFailed, a, "web-0", 0),
		iev(10, parser.MountDeviceFailed, a, "prod/web-0", 0),
		iev(20, parser.MountDeviceFailed, a, "web-0", 0),
		iev(25, parser.SetupFailed, b, "prod/web-1", 0),
		iev(30, parser.MountDeviceSucceeded, a, "prod/web-0", 0),
		iev(40, parser.SetupFailed, a, "prod/web-0", 0),
		iev(50, parser.SetupSucceeded, a, "prod/web-0", 0),
		iev(60, parser.MountStarted, b, "prod/web-1", 0),
	}}
	v.SetKey("v")
	got := v.MountOutages()
	if len(got) != 2 {
		t.Fatalf("%d outages %+v, want 2", len(got), got)
	}
	o := got[0]
	if o.Node != a || o.Pod != "prod/web-0" {
		t.Errorf("first outage on %q for %q, want node-a, prod/web-0", o.Node, o.Pod)
	}
	wantKinds := []parser.Kind{parser.WaitForAttachFailed, parser.MountDeviceFailed, parser.SetupFailed}
	if len(o.Kinds) != len(wantKinds) {
		t.Fatalf("kinds %v, want %v", o.Kinds, wantKinds)
	}
	for i, k := range wantKinds {
		if o.Kinds[i] != k {
			t.Errorf("kinds %v, want %v", o.Kinds, wantKinds)
		}
	}
	if o.Counts[parser.MountDeviceFailed] != 2 || !o.First.Equal(i0) || !o.Last.Equal(i0.Add(40*time.Second)) {
		t.Errorf("counts %v, %v → %v", o.Counts, o.First, o.Last)
	}
	if !o.Relapsed.Equal(i0.Add(30*time.Second)) || !o.Recovered.Equal(i0.Add(50*time.Second)) {
		t.Errorf("relapsed %v recovered %v, want +30s and +50s", o.Relapsed, o.Recovered)
	}
	if p := got[1]; p.Node != b || !p.Recovered.IsZero() || p.FromDescribe {
		t.Errorf("second outage %+v: want node-b, not recovered (mount started is no success), from kubelet lines", p)
	}
	if (*Volume)(nil).MountOutages() != nil {
		t.Error("nil volume has outages")
	}
}

// An Event echo with no node is the same outage as the volume's direct
// failure lines; with none it is an outage of its own.
func TestMountOutagesEchoWithoutNode(t *testing.T) {
	echo := iev(5, parser.SetupFailed, "", "prod/web-0", parser.OriginEvent)
	v := &Volume{Events: []parser.Event{iev(0, parser.SetupFailed, "n", "prod/web-0", 0), echo}}
	if got := v.MountOutages(); len(got) != 1 || got[0].Counts[parser.SetupFailed] != 1 {
		t.Errorf("with a direct line: %+v", got)
	}
	v = &Volume{Events: []parser.Event{echo}}
	if got := v.MountOutages(); len(got) != 1 || !got[0].FromDescribe {
		t.Errorf("echo only: %+v", got)
	}
}

func TestIsMountFailure(t *testing.T) {
	for _, k := range []parser.Kind{parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed,
		parser.MountTimeout, parser.VerifyAttachedFailed} {
		if !IsMountFailure(k) {
			t.Errorf("%s is no mount failure", k)
		}
	}
	for _, k := range []parser.Kind{parser.MountDeviceSucceeded, parser.AttachFailed, parser.DetachFailed, parser.Unknown} {
		if IsMountFailure(k) {
			t.Errorf("%s is a mount failure", k)
		}
	}
}

// PodName keeps what follows the last '/': a Kubernetes name holds none.
func TestPodName(t *testing.T) {
	for in, want := range map[string]string{"ns/name": "name", "name": "name", "": "", "a/b/c": "c", "ns/": "", "/x": "x"} {
		if got := PodName(in); got != want {
			t.Errorf("PodName(%q) = %q, want %q", in, got, want)
		}
	}
}
