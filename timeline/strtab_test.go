package timeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/state"
)

// A table sized for a few strings grows as thousands go in, and finds
// each under its own id, and no string it was not given.
func TestStrTab(t *testing.T) {
	tab := makeStrTab(2)
	var str []string
	for i := range 5000 {
		s := fmt.Sprintf("pvc-%d", i)
		h := strHash(s)
		if id, _ := tab.find(str, s, h); id >= 0 {
			t.Fatalf("find(%q) = %d before it went in", s, id)
		}
		_, slot := tab.find(str, s, h)
		str = append(str, s)
		tab.insert(slot, h, int32(i))
	}
	if len(tab.slots) < 5000*4/3 {
		t.Errorf("%d slots for 5000 strings: the table did not grow", len(tab.slots))
	}
	for i, s := range str {
		if id, _ := tab.find(str, s, strHash(s)); id != int32(i) {
			t.Fatalf("find(%q) = %d, want %d", s, id, i)
		}
		if id, _ := tab.find(str, s+"x", strHash(s+"x")); id >= 0 {
			t.Fatalf("find(%q) = %d, never given", s+"x", id)
		}
	}
}

// Tables of any size (not only powers of two: see strTab) and reserved
// ones find every string under its id, and a table reserved for n strings
// takes no more than twice n slots.
func TestStrTabSizes(t *testing.T) {
	for name, c := range map[string]struct{ made, reserved, n int }{
		"smallest":              {0, 0, 1},
		"full at sixteen":       {1, 0, 12},
		"grown from one":        {1, 0, 1000},
		"odd size":              {17, 0, 300},
		"reserved exactly":      {16, 3000, 3000},
		"reserved, then beyond": {16, 1000, 5000},
		"prime size":            {997, 0, 1400},
	} {
		tab := makeStrTab(c.made)
		if c.reserved > 0 {
			tab.reserve(c.reserved)
			if got := len(tab.slots); got > 2*c.reserved || got*3 < c.reserved*4 {
				t.Errorf("%s: %d slots reserved for %d strings", name, got, c.reserved)
			}
		}
		var str []string
		for i := range c.n {
			s := fmt.Sprintf("kubernetes.io/csi/ebs.csi.aws.com^vol-%d", i)
			id, slot := tab.find(str, s, strHash(s))
			if id >= 0 {
				t.Fatalf("%s: find(%q) = %d before it went in", name, s, id)
			}
			str = append(str, s)
			tab.insert(slot, strHash(s), int32(i))
		}
		if tab.used*4 > len(tab.slots)*3 {
			t.Errorf("%s: %d strings in %d slots: more than 3/4 full", name, tab.used, len(tab.slots))
		}
		for i, s := range str {
			if id, _ := tab.find(str, s, strHash(s)); id != int32(i) {
				t.Fatalf("%s: find(%q) = %d, want %d", name, s, id, i)
			}
		}
		if id, _ := tab.find(str, "absent", strHash("absent")); id >= 0 {
			t.Errorf("%s: found a string never given (%d)", name, id)
		}
	}
}

// A syms sized for one string keeps one id per string while its arrays
// and tables grow, whichever table the strings go in, and after absorbing
// a part that shares some of them.
func TestSymsGrowth(t *testing.T) {
	sy := newSyms(1, 1)
	for pass := range 2 {
		for i := range 3000 {
			s := fmt.Sprintf("name-%d", i)
			if got := sy.intern(symName, s); got != int32(i) {
				t.Fatalf("pass %d: intern(symName, %q) = %d, want %d", pass, s, got, i)
			}
		}
		for i := range 3000 {
			s := fmt.Sprintf("name-%d", i)
			if got, ok := sy.lookup(symName, s); got != int32(i) {
				t.Fatalf("pass %d: lookup(symName, %q) = %d, %v; want %d", pass, s, got, ok, i)
			}
		}
		for i := range 3000 {
			for tab := range 2 {
				s := fmt.Sprintf("name-%d", i)
				if got, want := sy.intern(tab+1, s), int32(3000+2*i+tab); got != want {
					t.Fatalf("pass %d: intern(%d, %q) = %d, want %d", pass, tab+1, s, got, want)
				}
			}
		}
	}
	o := newSyms(1, 1)
	for i := 2000; i < 5000; i++ {
		o.intern(symName, fmt.Sprintf("name-%d", i))
	}
	remap := sy.absorb(o)
	for j, i := 0, 2000; i < 5000; i, j = i+1, j+1 {
		want := int32(i)
		if i >= 3000 {
			want = int32(9000 + i - 3000)
		}
		if remap[j] != want {
			t.Fatalf("absorb: name-%d is %d, want %d", i, remap[j], want)
		}
		if got, _ := sy.lookup(symName, fmt.Sprintf("name-%d", i)); got != want {
			t.Fatalf("lookup(name-%d) = %d after absorb, want %d", i, got, want)
		}
	}
}

// An interned name is the caller's string itself (the events' names own
// their memory: no second copy); a volume's computed VolumeAttachment
// names are copied out of the buffer they are computed in, which the next
// one reuses, each once, and only for CSI UniqueNames on a node.
func TestSymsOwnership(t *testing.T) {
	sy := newSyms(4, 4)
	vol := strings.Clone("kubernetes.io/csi/ebs.csi.aws.com^vol-1")
	v := sy.intern(symName, vol)
	if unsafe.StringData(sy.str[v]) != unsafe.StringData(vol) {
		t.Error("intern copied the name")
	}
	tree := sy.intern(symName, "kubernetes.io/aws-ebs/vol-1")
	n1, n2 := sy.intern(symNode, "node-1"), sy.intern(symNode, "node-2")
	ids := []evIDs{{vol: v, node: n2}, {vol: v, node: n1}, {vol: v, node: -1}, {vol: tree, node: n1}, {vol: v, node: n2}}
	var sc scratch
	got := sc.attachmentNames([]string{"first"}, sc.attachmentPairs(ids, sy), sy)
	want := []string{"first", state.AttachmentName("vol-1", "ebs.csi.aws.com", "node-1"), state.AttachmentName("vol-1", "ebs.csi.aws.com", "node-2")}
	if !slices.Equal(got, want) {
		t.Errorf("attachmentNames = %q, want %q", got, want)
	}
	if want := sy.attachmentHash(v, n1); strHash(got[1]) != want {
		t.Error("attachmentHash is not the hash of the computed name")
	}
}
