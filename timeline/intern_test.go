package timeline

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
)

// classify gives each table's syms the flags the tests on them expect:
// names as ParseUniqueName, Ignored and isDynamicPV say, pods as isUID and
// a "/" say; nodes none.
func TestClassify(t *testing.T) {
	for _, s := range []string{
		"", "nil", "/", "kubernetes.io/", "kubernetes.io/csi/", "kubernetes.io/csi/^h", "kubernetes.io/csi/d^",
		"kubernetes.io/csi/ebs.csi.aws.com^vol-0a1b", "kubernetes.io/csi/ebs.csi.aws.com", "kubernetes.io/csi/a/b^c",
		"kubernetes.io/aws-ebs/aws://eu-west-1a/vol-0a1b", "kubernetes.io/secret/x", "kubernetes.io/configmap/ns/cm",
		"kubernetes.io/csix/d^h", "xkubernetes.io/csi/d^h", vU, vPV, strings.ToUpper(vPV),
		"0f3c4e2a-1b2c-4d5e-8f90-a1b2c3d4e5f6", "ns/pod-0", "pod-0", nodeA,
	} {
		_, _, ok := ParseUniqueName(s)
		name := map[uint8]bool{
			symCSI:     ok && strings.HasPrefix(s, "kubernetes.io/csi/"),
			symIgnored: Ignored(s),
			symDynPV:   isDynamicPV(s),
			symNil:     s == "nil",
		}
		pod := map[uint8]bool{symSlash: strings.Contains(s, "/"), symUID: isUID(s)}
		for tab, want := range map[int]map[uint8]bool{symName: name, symPod: pod, symNode: nil} {
			f := classify(tab, s)
			for flag := uint8(1); flag < 1<<symTabShift; flag <<= 1 {
				if f&flag != 0 != want[flag] {
					t.Errorf("classify(%d, %q) flag %#x = %v, want %v", tab, s, flag, f&flag != 0, want[flag])
				}
			}
		}
	}
}

// Interning the events in parts and merging the parts' tables gives every
// string the id, flags and table one pass over all the events gives, and
// every string stays found by lookup and intern.
func TestPrepareParts(t *testing.T) {
	logs, _ := filepath.Glob("../testdata/real-logs/*.log")
	res, errs := parser.ParseAll(logs, parser.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	// inPlace: merge kept the parts' strings in the array they were
	// interned into (every part fit in its region)
	prepare := func() (sy *syms, pr *prepared, inPlace bool) {
		evs, bounds, src := gather(res, false)
		in := make([]int32, len(evs))
		comps := make([]parser.Component, len(res))
		for i := range res {
			comps[i] = inputComponent(&res[i])
			for k := bounds[i]; k < bounds[i+1]; k++ {
				in[k] = int32(i)
			}
		}
		pr = prepareEvents(evs, src, bounds, in, comps)
		strs := pr.strs
		sy = pr.merge()
		return sy, pr, unsafe.SliceData(sy.str) == unsafe.SliceData(strs)
	}
	want, wantPr, _ := prepare()
	if len(wantPr.parts) != 1 {
		t.Fatalf("the real logs were split into %d parts without splitSmall", len(wantPr.parts))
	}
	splitSmall(t, 3)
	// with no room for names in the shared array, every part grows its
	// own and merge copies the strings; with room for eight an event (it
	// names seven at most), merge moves them within the array
	for _, per := range []float64{0, 8} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			prev := idsPerEvent
			idsPerEvent = per
			defer func() { idsPerEvent = prev }()
			got, gotPr, inPlace := prepare()
			if len(gotPr.parts) < 2 {
				t.Fatal("splitSmall did not split the events")
			}
			if inPlace != (per == 8) {
				t.Fatalf("room for %v names an event: merged in place %v", per, inPlace)
			}
			checkMerged(t, got, want, gotPr, wantPr)
		})
	}
}

// checkMerged compares the syms and prepared of events interned in parts
// (got) with one pass's (want).
func checkMerged(t *testing.T, got, want *syms, gotPr, wantPr *prepared) {
	t.Helper()
	if !reflect.DeepEqual(got.str, want.str) || !reflect.DeepEqual(got.flag, want.flag) {
		t.Fatal("the merged parts' syms differ from one pass's")
	}
	for _, f := range []func(p *prepared) any{
		func(p *prepared) any { return p.ids },
		func(p *prepared) any { return p.keys },
		func(p *prepared) any { return p.texts },
		func(p *prepared) any { return p.attaches },
		func(p *prepared) any { return p.rawVol },
		func(p *prepared) any { return p.describes },
	} {
		if !reflect.DeepEqual(f(gotPr), f(wantPr)) {
			t.Errorf("prepared in parts: %T differs from one pass's", f(gotPr))
		}
	}
	for i, s := range got.str {
		tab := int(got.flag[i] >> symTabShift)
		if j, ok := got.lookup(tab, s); !ok || j != int32(i) {
			t.Fatalf("lookup(%d, %q) = %d, %v; want %d", tab, s, j, ok, i)
		}
		if j := got.intern(tab, s); j != int32(i) {
			t.Fatalf("intern(%d, %q) = %d, want %d", tab, s, j, i)
		}
	}
	if n := len(got.str); got.intern(symNode, "a-node-no-log-names") != int32(n) || got.intern(symNode, "a-node-no-log-names") != int32(n) {
		t.Error("a new string did not get the next id once")
	}
}

// attachmentsOf finds the VolumeAttachment names among a volume's names:
// a capped window of them when consecutive, else a copy; Attachments
// gives them, or the ones given.
func TestAttachmentsOf(t *testing.T) {
	va := func(c byte) string { return "csi-" + strings.Repeat(string(c), 64) }
	for _, tc := range []struct {
		names, want []string
		window      bool
	}{
		{names: []string{"disk-1", "pvc-1"}},
		{names: []string{va('a'), va('b'), "disk-1"}, want: []string{va('a'), va('b')}, window: true},
		// a handle that sorts between two VolumeAttachment names
		{names: []string{va('a'), "csi-b-handle", va('c')}, want: []string{va('a'), va('c')}},
	} {
		got, window := attachmentsOf(tc.names, nil)
		if !slices.Equal(got, tc.want) || window != tc.window {
			t.Errorf("attachmentsOf(%q) = %q, %v; want %q, %v", tc.names, got, window, tc.want, tc.window)
			continue
		}
		v := &Volume{}
		v.SetNames(tc.names)
		if a := v.Attachments(); !slices.Equal(a, tc.want) {
			t.Errorf("Attachments of names %q = %q, want %q", tc.names, a, tc.want)
		}
		v.SetAttachments(nil)
		if a := v.Attachments(); a != nil {
			t.Errorf("Attachments given none = %q", a)
		}
		if len(got) == 0 {
			if got != nil {
				t.Errorf("attachmentsOf(%q) = %#v, want nil", tc.names, got)
			}
			continue
		}
		if window {
			if cap(got) != len(got) {
				t.Errorf("attachmentsOf(%q): cap %d, want %d (an append must copy)", tc.names, cap(got), len(got))
			}
			if &got[0] != &tc.names[lo(tc.names)] {
				t.Errorf("attachmentsOf(%q): not a window of names", tc.names)
			}
		}
	}
}

// lo is the index of the first VolumeAttachment name among names.
func lo(names []string) int {
	for i, s := range names {
		if isAttachmentName(s) {
			return i
		}
	}
	return -1
}
