package timeline

import (
	"slices"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
)

// TestWindowFilter: events at the bounds stay, events outside go, events
// without a time stay whatever the window; an open window keeps all.
func TestWindowFilter(t *testing.T) {
	k := parser.ComponentKCM
	undated := ev(0, parser.AttachStarted, k, nodeB)
	undated.Time = parser.Stamp{}
	mk := func() []parser.Result {
		return []parser.Result{result("kcm.log", k.String(),
			ev(0, parser.AttachStarted, k, nodeA),
			ev(1, parser.AttachFailed, k, nodeA),
			ev(2, parser.AttachStarted, k, nodeA),
			undated,
			ev(3, parser.AttachSucceeded, k, nodeA),
		)}
	}
	lines := func(res []parser.Result) []int {
		var out []int
		for _, e := range res[0].Events {
			out = append(out, int(e.Source.Line))
		}
		return out
	}
	for _, tc := range []struct {
		name string
		w    Window
		want []int
	}{
		{name: "open", w: Window{}, want: []int{1, 2, 3, 4, 5}},
		{name: "since", w: Window{Since: at(1)}, want: []int{2, 3, 4, 5}},
		{name: "until", w: Window{Until: at(1)}, want: []int{1, 2, 4}},
		{name: "both", w: Window{Since: at(0.5), Until: at(2.5)}, want: []int{2, 3, 4}},
		{name: "empty", w: Window{Since: at(9)}, want: []int{4}},
	} {
		res := mk()
		tc.w.Filter(res)
		if got := lines(res); !slices.Equal(got, tc.want) {
			t.Errorf("%s: kept lines %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNewest: the latest Input.Last of the results; zero when none has one.
func TestNewest(t *testing.T) {
	a, b, c := result("a.log", parser.ComponentKCM.String()), result("b.log", parser.ComponentKCM.String()), result("c.log", parser.ComponentKCM.String())
	a.Input.Last, b.Input.Last = at(5), at(9)
	if got := Newest([]parser.Result{a, b, c}); !got.Equal(at(9)) {
		t.Errorf("Newest = %v, want %v", got, at(9))
	}
	if got := Newest([]parser.Result{c}); !got.IsZero() {
		t.Errorf("Newest without times = %v, want zero", got)
	}
}

// TestEvents: the events of the volumes asked for, and Other only when
// asked, in (time, input, line) order with undated events first.
func TestEvents(t *testing.T) {
	k := parser.ComponentKCM
	undated := ev(0, parser.AttachStarted, k, nodeB)
	undated.Time = parser.Stamp{}
	other := ev(1.5, parser.ControllerStarted, k, "")
	other.SetVolume("", "", nil)
	tl := &Timeline{
		Volumes: []*Volume{
			{Events: []parser.Event{ev(2, parser.AttachStarted, k, nodeA), ev(1, parser.AttachStarted, k, nodeB)}},
			{Events: []parser.Event{undated, ev(1, parser.AttachFailed, k, nodeA)}},
		},
		Other: []parser.Event{other},
	}
	tl.Volumes[0].SetKey("b")
	tl.Volumes[1].SetKey("a")
	tl.Volumes[0].Events[1].Source = parser.Source{Input: 1, Line: 1}
	tl.Volumes[1].Events[1].Source = parser.Source{Input: 0, Line: 7}
	kinds := func(evs []parser.Event) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.Kind.String()+"@"+e.Node)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		vols  []*Volume
		other bool
		want  []string
	}{
		{name: "all", vols: tl.Volumes, other: true, want: []string{"attach-started@" + nodeB, "attach-failed@" + nodeA, "attach-started@" + nodeB, "controller-started@", "attach-started@" + nodeA}},
		{name: "volumes only", vols: tl.Volumes, want: []string{"attach-started@" + nodeB, "attach-failed@" + nodeA, "attach-started@" + nodeB, "attach-started@" + nodeA}},
		{name: "one volume", vols: tl.Volumes[:1], want: []string{"attach-started@" + nodeB, "attach-started@" + nodeA}},
		{name: "none", want: nil},
	} {
		if got := kinds(tl.Events(tc.vols, tc.other)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWindowFilterSharedArray: the results of one ParseAll share an array;
// once a window drops the first input's earliest event in place, Build
// (Consume) appends the others' events to the first's window, over their
// old places, and must not clear them after: every kept event keeps its
// names.
func TestWindowFilterSharedArray(t *testing.T) {
	k, kl := parser.ComponentKCM, parser.ComponentKubelet
	arr := []parser.Event{ev(0, parser.AttachStarted, k, nodeA), ev(10, parser.AttachSucceeded, k, nodeA),
		ev(20, parser.MountDeviceSucceeded, kl, nodeA), ev(30, parser.SetupSucceeded, kl, nodeA)}
	results := []parser.Result{result("kcm.log", k.String()), result("kubelet.log", kl.String())}
	results[0].Events, results[1].Events = arr[0:2:4], arr[2:4:4]
	Window{Since: at(5)}.Filter(results)
	tl := Build(results, Options{Consume: true})
	n := 0
	for _, v := range tl.Volumes {
		for _, e := range v.Events {
			n++
			if e.Node != nodeA {
				t.Errorf("%s: node %q, want %q", e.Kind, e.Node, nodeA)
			}
		}
	}
	if n != 3 || len(tl.Other) != 0 {
		t.Errorf("%d events in volumes, %d other; want 3, 0", n, len(tl.Other))
	}
}
