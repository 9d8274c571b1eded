package timeline

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
)

// An interval's own times (NewInterval, SetTimes) are its Start and End,
// a copy given new ones leaves the original alone, and reflect.DeepEqual
// tells intervals of different times apart; an interval Build makes reads
// its volume's events, two of them included.
func TestIntervalTimes(t *testing.T) {
	iv := NewInterval(nodeA, Attached, at(1), at(2), 0, 1)
	if !iv.Start().Equal(at(1)) || !iv.End().Equal(at(2)) {
		t.Fatalf("NewInterval: %v → %v, want %v → %v", iv.Start(), iv.End(), at(1), at(2))
	}
	c := iv
	c.SetTimes(at(3), time.Time{})
	if !c.Start().Equal(at(3)) || !c.End().IsZero() || !iv.Start().Equal(at(1)) {
		t.Errorf("SetTimes on a copy: copy %v → %v, original from %v", c.Start(), c.End(), iv.Start())
	}
	if reflect.DeepEqual(iv, NewInterval(nodeA, Attached, at(1), at(5), 0, 1)) {
		t.Error("DeepEqual does not tell intervals of other times apart")
	}
	if !reflect.DeepEqual(iv, NewInterval(nodeA, Attached, at(1), at(2), 0, 1)) {
		t.Error("DeepEqual tells intervals of the same times apart")
	}
	v := &Volume{Events: []parser.Event{{Time: parser.StampOf(at(7))}, {Time: parser.StampOf(at(8))}}}
	built := Interval{Node: nodeA, State: Attached, From: 0, To: 1, evs: &v.Events}
	if !built.Start().Equal(at(7)) || !built.End().Equal(at(8)) {
		t.Errorf("built on two events: %v → %v, want %v → %v", built.Start(), built.End(), at(7), at(8))
	}
	if open := (Interval{From: 1, To: -1, evs: &v.Events}); !open.End().IsZero() || !open.Start().Equal(at(8)) {
		t.Errorf("open: %v → %v", open.Start(), open.End())
	}
	var zero Interval
	if !zero.Start().IsZero() || !zero.End().IsZero() {
		t.Error("the zero Interval has times")
	}
}

// TestVolumeKeyAndDriver: the Key is the name SetKey found equal to it
// (and follows that name), or a string of its own; the Driver is the
// UniqueName's unless another was given; neither costs a volume a field
// (TestVolumeSize).
func TestVolumeKeyAndDriver(t *testing.T) {
	const u = "kubernetes.io/csi/ebs.csi.aws.com^vol-1"
	for _, tc := range []struct {
		name       string
		v          Volume
		key        string
		wantBy     keyName
		wantKey    string // after the names change (below)
		wantDriver string
	}{
		{"UniqueName", Volume{UniqueName: u, PV: "pvc-1"}, u, keyUnique, u + "-x", "ebs.csi.aws.com"},
		{"PV", Volume{PV: "pvc-1", Handle: "vol-1"}, "pvc-1", keyPV, "pvc-1-x", ""},
		{"handle", Volume{Handle: "vol-1"}, "vol-1", keyHandle, "vol-1-x", ""},
		{"own", Volume{UniqueName: u}, "csi-abc", keyOwn, "csi-abc", "ebs.csi.aws.com"},
		{"none", Volume{PV: "pvc-1"}, "", keyNone, "", ""},
		{"in-tree", Volume{UniqueName: "kubernetes.io/aws-ebs/aws://us-east-1a/vol-2"}, "x", keyOwn, "x", "kubernetes.io/aws-ebs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			v.SetKey(tc.key)
			if v.Key() != tc.key || v.keyBy != tc.wantBy {
				t.Fatalf("SetKey(%q): Key %q by %d, want by %d", tc.key, v.Key(), v.keyBy, tc.wantBy)
			}
			if (v.rare != nil) != (tc.wantBy == keyOwn) {
				t.Errorf("SetKey(%q): side record %v", tc.key, v.rare)
			}
			if v.Driver() != tc.wantDriver {
				t.Errorf("Driver %q, want %q", v.Driver(), tc.wantDriver)
			}
			c := v // a copy changed on its own
			c.UniqueName, c.PV, c.Handle = suffix(v.UniqueName), suffix(v.PV), suffix(v.Handle)
			if c.Key() != tc.wantKey || v.Key() != tc.key {
				t.Errorf("names changed: Key %q (original %q), want %q", c.Key(), v.Key(), tc.wantKey)
			}
		})
	}
	v := Volume{UniqueName: u}
	v.SetDriver("other.csi")
	if v.Driver() != "other.csi" || v.rare == nil {
		t.Errorf("SetDriver: %q", v.Driver())
	}
	v.SetDriver("ebs.csi.aws.com") // the UniqueName's: nothing to keep
	if v.Driver() != "ebs.csi.aws.com" || v.rare != nil {
		t.Errorf("SetDriver of the UniqueName's driver: %q, side record %v", v.Driver(), v.rare)
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return s + "-x"
}

// TestVolumeSize: a large cluster's timeline holds tens of thousands of
// volumes; a Volume's names are three strings (Key and Driver are derived
// from them), its other names, nodes and pods one window, its computed
// VolumeAttachment names a mask of its nodes (8 bytes where each name took
// 84), what few volumes have is in a side record.
func TestVolumeSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes pinned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(Volume{}); got != 160 {
		t.Errorf("Volume is %d bytes, want 160", got)
	}
	// two a volume there; the state a byte, not a string
	if got := unsafe.Sizeof(Interval{}); got != 40 {
		t.Errorf("Interval is %d bytes, want 40", got)
	}
	// one an event from the parse's end until the volumes are described:
	// six names, nothing grouping can read elsewhere
	if got := unsafe.Sizeof(evIDs{}); got != 24 {
		t.Errorf("evIDs is %d bytes, want 24", got)
	}
}

// TestVolumeLists: names, nodes and pods share one window, and setting
// one in any order keeps the others; each is capped (an append copies,
// never writing into the next list), and a zero Volume has none.
func TestVolumeLists(t *testing.T) {
	var zero Volume
	if zero.Nodes() != nil || zero.Pods() != nil || zero.Names() != nil {
		t.Errorf("zero Volume: nodes %q pods %q names %q", zero.Nodes(), zero.Pods(), zero.Names())
	}
	names, nodes, pods := []string{"csi-1", "pvc-1"}, []string{"node-a", "node-b"}, []string{"ns/web-0"}
	for _, order := range []string{"names nodes pods", "pods nodes names", "nodes names pods", "pods names nodes"} {
		t.Run(order, func(t *testing.T) {
			v := &Volume{PV: "pvc-1"}
			for _, which := range strings.Fields(order) {
				switch which {
				case "names":
					v.SetNames(names)
				case "nodes":
					v.SetNodes(nodes)
				case "pods":
					v.SetPods(pods)
				}
			}
			if !slices.Equal(v.Names(), names) || !slices.Equal(v.Nodes(), nodes) || !slices.Equal(v.Pods(), pods) {
				t.Fatalf("names %q nodes %q pods %q", v.Names(), v.Nodes(), v.Pods())
			}
			if len(v.lists) != 4 { // the PV is held once, as the field
				t.Errorf("lists %q, want the three lists but the PV", v.lists)
			}
			for _, l := range [][]string{v.names(), v.Nodes(), v.Pods()} {
				if cap(l) != len(l) {
					t.Errorf("list %q: cap %d, want %d (an append must copy)", l, cap(l), len(l))
				}
			}
			_ = append(v.Nodes(), "node-c")
			if !slices.Equal(v.Pods(), pods) {
				t.Errorf("an append to Nodes wrote into Pods: %q", v.Pods())
			}
		})
	}
	v := &Volume{}
	v.SetNodes(nodes)
	v.SetNodes(nil)
	if v.Nodes() != nil && len(v.Nodes()) != 0 || len(v.lists) != 0 {
		t.Errorf("nodes cleared: %q, lists %q", v.Nodes(), v.lists)
	}
}

// TestStateNames: every State has its own name, as JSON and the reports
// write it (the v1 strings); none is "" but the zero State, and a byte no
// State is says so rather than passing for one.
func TestStateNames(t *testing.T) {
	want := map[State]string{
		0: "", Attaching: "attaching", Attached: "attached", Uncertain: "uncertain", Detaching: "detaching",
		Detached: "detached", Mounting: "mounting", Mounted: "mounted", MountFailing: "mount-failing",
		Unmounted: "unmounted", Unmounted + 1: "state(10)", 255: "state(255)",
	}
	for s, name := range want {
		if got := s.String(); got != name {
			t.Errorf("State(%d).String() = %q, want %q", uint8(s), got, name)
		}
		if b, err := s.MarshalText(); err != nil || string(b) != name {
			t.Errorf("State(%d).MarshalText() = %q, %v", uint8(s), b, err)
		}
	}
	if got := fmt.Sprintf("%s|%v", Attached, MountFailing); got != "attached|mount-failing" {
		t.Errorf("formatted: %q", got)
	}
}

// TestVolumeNames: Names gives back what SetNames was given, in its
// order, whichever of UniqueName, PV and Handle are among the names (none,
// some, the same string twice, names past maxNamePos), without keeping
// those three twice; Attachments reads the rest.
func TestVolumeNames(t *testing.T) {
	const u, pv, h = "kubernetes.io/csi/pd.csi.storage.gke.io^projects/p/disks/d", "pvc-1", "projects/p/disks/d"
	va := "csi-" + strings.Repeat("ab", 32)
	long := make([]string, 300)
	for i := range long {
		long[i] = fmt.Sprintf("name-%03d", i)
	}
	long[299] = pv // past maxNamePos: kept among the names
	for name, tc := range map[string]struct {
		uniq, pv, handle string
		names            []string
		kept             int // how many names the volume holds itself
	}{
		"all three and a VolumeAttachment": {u, pv, h, []string{va, u, pv, h}, 1},
		"unsorted":                         {u, pv, h, []string{h, va, pv, u}, 1},
		"none of them":                     {u, pv, h, []string{va, "other"}, 2},
		"no fields":                        {"", "", "", []string{va, u}, 2},
		"PV equal to the UniqueName":       {u, u, h, []string{u, h}, 0},
		"a name twice":                     {u, pv, h, []string{u, u, pv}, 1},
		"empty":                            {u, pv, h, []string{}, 0},
		"nil":                              {u, pv, h, nil, 0},
		"past the positions":               {"", pv, "", long, 300},
	} {
		t.Run(name, func(t *testing.T) {
			v := &Volume{UniqueName: tc.uniq, PV: tc.pv, Handle: tc.handle}
			v.SetNames(tc.names)
			if got := v.Names(); !slices.Equal(got, tc.names) {
				t.Errorf("Names() = %q, want %q", got, tc.names)
			}
			if len(v.names()) != tc.kept {
				t.Errorf("holds %d names itself, want %d", len(v.names()), tc.kept)
			}
			want := []string(nil)
			if slices.Contains(tc.names, va) {
				want = []string{va}
			}
			if got := v.Attachments(); !slices.Equal(got, want) {
				t.Errorf("Attachments() = %q, want %q", got, want)
			}
		})
	}
	// a field changed after SetNames changes Names with it (as the
	// redactor relies on: it sets the fields, then the names)
	v := &Volume{UniqueName: u, PV: pv}
	v.SetNames([]string{u, pv})
	c := *v
	c.PV = "pvc-2"
	if got := c.Names(); !slices.Equal(got, []string{u, "pvc-2"}) {
		t.Errorf("copy with a new PV: Names() = %q", got)
	}
	if got := v.Names(); !slices.Equal(got, []string{u, pv}) {
		t.Errorf("original after the copy changed: Names() = %q", got)
	}
	// a handle of a VolumeAttachment name's form is found by Attachments
	w := &Volume{Handle: va}
	w.SetNames([]string{va, pv})
	if got := w.Attachments(); !slices.Equal(got, []string{va}) {
		t.Errorf("Attachments() with such a handle = %q", got)
	}
}
