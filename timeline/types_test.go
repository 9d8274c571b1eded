package timeline

import (
	"reflect"
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
// from them), what few volumes have is in a side record.
func TestVolumeSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("sizes pinned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(Volume{}); got != 192 {
		t.Errorf("Volume is %d bytes, want 192", got)
	}
}
