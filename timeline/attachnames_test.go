package timeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// A volume's computed VolumeAttachment names (its CSI UniqueName's on
// each node of its events) are made when asked when they are the
// UniqueName's on at most 64 nodes (vaNodes), else kept as names; either
// way Names, AppendNames (AppendNamesIn in a room of any size),
// Attachments, AttachmentsIn and HasName give the same, and SetNodes and SetNames keep the names they had.
func TestComputedAttachmentNames(t *testing.T) {
	k := parser.ComponentKCM
	vaOf := func(u, node string) string {
		driver, handle, _ := ParseUniqueName(u)
		return state.AttachmentName(handle, driver, node)
	}
	const otherU = "kubernetes.io/csi/other.csi.example.com^disk-7x9qk2mz" // same handle: linked into vU's volume
	manyNodes := func(n int) []parser.Event {
		var evs []parser.Event
		for i := range n {
			evs = append(evs, ev(float64(i), parser.AttachSucceeded, k, fmt.Sprintf("node-%03d", i)))
		}
		return evs
	}
	given := parser.Draft{Time: parser.StampOf(at(5)), Kind: parser.AttachFailed, Volume: vU, PV: vPV, Node: nodeA, Component: k,
		Error: "boom", Attachment: vaOf(vU, nodeA)}.Event()
	given.Text = parser.TextOf("given")
	other := parser.Draft{Time: parser.StampOf(at(9)), Kind: parser.AttachStarted, Volume: otherU, Node: nodeB, Component: k}.Event()
	other.Text = parser.TextOf("other")
	for _, tc := range []struct {
		name     string
		evs      []parser.Event
		computed bool     // made when asked
		want     []string // the VolumeAttachment names
	}{
		{name: "one node", evs: []parser.Event{ev(0, parser.AttachStarted, k, nodeA), ev(1, parser.AttachSucceeded, k, nodeA)},
			computed: true, want: []string{vaOf(vU, nodeA)}},
		{name: "two nodes", evs: seedKCM().Events, computed: true, want: []string{vaOf(vU, nodeA), vaOf(vU, nodeB)}},
		{name: "an event gives one of them", evs: []parser.Event{ev(0, parser.AttachStarted, k, nodeA), given, ev(7, parser.AttachStarted, k, nodeB)},
			computed: true, want: []string{vaOf(vU, nodeA), vaOf(vU, nodeB)}},
		{name: "64 nodes", evs: manyNodes(64), computed: true, want: func() (w []string) {
			for i := range 64 {
				w = append(w, vaOf(vU, fmt.Sprintf("node-%03d", i)))
			}
			return w
		}()},
		{name: "65 nodes", evs: manyNodes(65), want: func() (w []string) {
			for i := range 65 {
				w = append(w, vaOf(vU, fmt.Sprintf("node-%03d", i)))
			}
			return w
		}()},
		{name: "two UniqueNames", evs: []parser.Event{ev(0, parser.AttachStarted, k, nodeA), other},
			want: []string{vaOf(vU, nodeA), vaOf(otherU, nodeB)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := slices.Clone(tc.evs)
			v := one(t, Build([]parser.Result{result("kcm.log", k.String(), evs...)}, Options{}))
			if got := v.vaNodes != 0; got != tc.computed {
				t.Fatalf("computed when asked: %v, want %v", got, tc.computed)
			}
			slices.Sort(tc.want)
			if a := v.Attachments(); !slices.Equal(a, tc.want) {
				t.Fatalf("Attachments = %q\nwant %q", a, tc.want)
			}
			names := v.Names()
			if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
				t.Errorf("Names not sorted and distinct: %q", names)
			}
			for _, w := range append(slices.Clone(tc.want), v.UniqueName, v.PV, v.Handle) {
				if w != "" && !slices.Contains(names, w) {
					t.Errorf("Names %q lack %q", names, w)
				}
			}
			if got := v.AppendNames([]string{"before"}); !slices.Equal(got[1:], names) || got[0] != "before" {
				t.Errorf("AppendNames = %q, want Names %q after what it was given", got, names)
			}
			// a room too small is grown, one large enough is used as it is
			for _, size := range []int{0, 3, 65 * state.AttachmentNameLen} {
				room := make([]byte, 0, size)
				r, given := &room, unsafe.SliceData(room)
				if got := v.AppendNamesIn(nil, r); !slices.Equal(got, names) {
					t.Errorf("AppendNamesIn(room of %d) = %q, want Names %q", size, got, names)
				}
				need := len(tc.want) * state.AttachmentNameLen
				if tc.computed && (cap(*r) < need || size >= need && unsafe.SliceData(*r) != given) {
					t.Errorf("AppendNamesIn left a room of %d bytes for %d names (a room of %d given)", cap(*r), len(tc.want), size)
				}
			}
			if a := v.AttachmentsIn(names); !slices.Equal(a, tc.want) {
				t.Errorf("AttachmentsIn(Names) = %q, want %q", a, tc.want)
			}
			for _, n := range names {
				if !v.HasName(n) {
					t.Errorf("HasName(%q) = false", n)
				}
			}
			for _, n := range []string{"", vaOf(vU, "no-such-node"), "pvc-other"} {
				if v.HasName(n) {
					t.Errorf("HasName(%q) = true", n)
				}
			}
			// a copy whose nodes are given again keeps its names as its own
			c := *v
			c.SetNodes(slices.Clone(v.Nodes()))
			if c.vaNodes != 0 || !slices.Equal(c.Names(), names) || !slices.Equal(c.Attachments(), tc.want) {
				t.Errorf("after SetNodes: computed %v, Names %q, Attachments %q", c.vaNodes != 0, c.Names(), c.Attachments())
			}
			c.SetNodes([]string{"elsewhere"})
			if !slices.Equal(c.Names(), names) {
				t.Errorf("after SetNodes of other nodes, Names %q, want %q", c.Names(), names)
			}
			// and SetNames replaces them
			d := *v
			d.SetNames([]string{v.UniqueName})
			if d.vaNodes != 0 || len(d.Attachments()) != 0 || strings.Join(d.Names(), ",") != v.UniqueName {
				t.Errorf("after SetNames: computed %v, Names %q, Attachments %q", d.vaNodes != 0, d.Names(), d.Attachments())
			}
		})
	}
}
