package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestRunFacts checks newRunFacts against a direct reading of each volume:
// its nodes, each event's node, its kinds and its time span, for volumes
// whose nodes come unsorted, repeated, empty, and more than linearNodes of
// them, built on one goroutine and on several.
func TestRunFacts(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	kinds := parser.Kinds()
	var tl timeline.Timeline
	for v := range 40 {
		vol := &timeline.Volume{}
		vol.SetKey(fmt.Sprint("vol-", v))
		if v%3 == 0 {
			vol.SetNodes([]string{"node-b", "node-a", "node-b", ""})
		}
		if v%4 == 0 {
			vol.Intervals = []timeline.Interval{{Node: "node-z"}, {Node: ""}, {Node: "node-a"}}
		}
		for i := range v * 700 % 2503 {
			node := ""
			if i%5 != 0 {
				node = fmt.Sprint("node-", (i*7+v)%(v%13+1))
			}
			tm := t0.Add(time.Duration((i*31+v)%97) * time.Second)
			if i%17 == 3 {
				tm = time.Time{}
			}
			vol.Events = append(vol.Events, parser.Draft{Node: node, Kind: kinds[(i+v)%len(kinds)], Time: parser.StampOf(tm)}.Event())
		}
		tl.Volumes = append(tl.Volumes, vol)
	}
	for _, workers := range []int{1, 2, 3, 64} {
		f := newRunFacts(&tl, workers)
		for i, v := range tl.Volumes {
			vf := &f.vols[i]
			var want []string
			want = append(want, v.Nodes()...)
			for _, iv := range v.Intervals {
				want = append(want, iv.Node)
			}
			var ks kindSet
			var first, last time.Time
			for j, e := range v.Events {
				want = append(want, e.Node)
				ks |= kindBit(e.Kind)
				if j == 0 || e.Time.UTC().Before(first) {
					first = e.Time.UTC()
				}
				if j == 0 || e.Time.UTC().After(last) {
					last = e.Time.UTC()
				}
			}
			want = uniqSorted(want)
			if !slices.Equal(vf.nodes, want) {
				t.Fatalf("workers %d, %s: nodes %q, want %q", workers, v.Key(), vf.nodes, want)
			}
			if len(vf.node) != len(v.Events) {
				t.Fatalf("workers %d, %s: %d node indexes for %d events", workers, v.Key(), len(vf.node), len(v.Events))
			}
			for j, e := range v.Events {
				got := ""
				if n := vf.node[j]; n >= 0 {
					got = vf.nodes[n]
				}
				if got != e.Node {
					t.Fatalf("workers %d, %s: event %d on %q, facts say %q", workers, v.Key(), j, e.Node, got)
				}
			}
			if vf.kinds != ks || !vf.first.UTC().Equal(first) || !vf.last.UTC().Equal(last) {
				t.Fatalf("workers %d, %s: kinds %x span %v–%v, want %x %v–%v", workers, v.Key(), vf.kinds, vf.first, vf.last, ks, first, last)
			}
		}
	}
}

// TestKindBits checks that every kind has a bit of its own.
func TestKindBits(t *testing.T) {
	var seen kindSet
	for _, k := range parser.Kinds() {
		b := kindBit(k)
		if b == 0 || b&(b-1) != 0 || b&seen != 0 || b == unlistedKind {
			t.Fatalf("kind %s: bit %x (seen %x)", k, b, seen)
		}
		seen |= b
	}
	if kindBit(0) != unlistedKind {
		t.Fatal("an unlisted kind has a bit of its own")
	}
}

// TestRunSurvivesMalformedTimeline: a timeline Build would never make (a
// nil volume) makes each rule fail with an internal error, not Run panic.
func TestRunSurvivesMalformedTimeline(t *testing.T) {
	tl := &timeline.Timeline{Volumes: []*timeline.Volume{nil}}
	res, err := Run(tl, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) == 0 {
		t.Fatal("no rule reported the malformed timeline")
	}
	for _, e := range res.Errors {
		if !strings.Contains(e, "internal error") {
			t.Errorf("error %q: want an internal error", e)
		}
	}
}

// TestSharedFactsDeriveMountSide: Run's facts come with the mount side
// derived alongside (sharedFacts with workers), the same as derived on
// first use; on one worker it is left to first use. Its confirmations and
// successes are listed on the first question only, the same either way.
func TestSharedFactsDeriveMountSide(t *testing.T) {
	t0 := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	vol := &timeline.Volume{}
	vol.SetKey("vol")
	for i, k := range []parser.Kind{parser.MountDeviceFailed, parser.VerifyAttachedSucceeded, parser.SetupSucceeded, parser.MountDeviceSucceeded, parser.OwnershipChange} {
		vol.Events = append(vol.Events, parser.Draft{Kind: k, Node: "node-a", PV: "pv-1", Time: parser.StampOf(t0.Add(time.Duration(i) * time.Second)), Code: parser.CodeSerialNotFound}.Event())
	}
	tl := &timeline.Timeline{Volumes: []*timeline.Volume{vol}}
	lists := func(m *mountSide) [4][]located {
		m.listSuccesses()
		return [4][]located{m.failures, m.slowOwn, m.attached, m.mounted}
	}
	want := newMountSide(tl)
	if len(want.failures) != 1 || len(want.slowOwn) != 1 {
		t.Fatalf("failures %d, ownership changes %d: want 1 and 1", len(want.failures), len(want.slowOwn))
	}
	if want.attached != nil || want.mounted != nil {
		t.Fatal("confirmations and successes listed before a question")
	}
	if l := lists(want); len(l[2]) != 1 || len(l[3]) != 2 {
		t.Fatalf("confirmations %d, successes %d: want 1 and 2", len(l[2]), len(l[3]))
	}
	f := sharedFacts(tl, 2)
	if f == nil || f.mount == nil {
		t.Fatalf("sharedFacts(tl, 2) derived no mount side: %+v", f)
	}
	if got := lists(f.mount); !reflect.DeepEqual(got, lists(want)) {
		t.Errorf("mount side %+v, want %+v", got, lists(want))
	}
	one := sharedFacts(tl, 1)
	if one.mount != nil {
		t.Errorf("one worker: mount side derived up front")
	}
	if c := (&Context{Timeline: tl, shared: one}); !reflect.DeepEqual(lists(c.mountSide()), lists(want)) {
		t.Errorf("derived on first use: %+v, want %+v", lists(c.mountSide()), lists(want))
	}
}

// TestVolFactsSize pins the facts a volume has while the rules run (one
// per volume: 35k on 1 GiB of a large cluster's churn) on 64-bit
// platforms: two slices, the kinds and two Stamps.
func TestVolFactsSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes pinned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(volFacts{}); got != 72 {
		t.Errorf("volFacts is %d bytes, want 72", got)
	}
}
