package timeline

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
)

// evIDs are an event's names as sym ids (-1: empty).
type evIDs struct {
	vol, pv, handle, att, node, pod int32
	// va is the VolumeAttachment name computed for a CSI vol on node
	// (AttachmentName); -1 without a CSI vol or a node when interned.
	va  int32
	rwx bool // a direct KCM line with an RWX nestedpendingoperations key (see multi)
}

// syms interns the names events carry (volume names, nodes, pods), so
// that grouping compares and keys small ints instead of strings. Each
// distinct string is hashed once and classified once. Volume names, nodes
// and pods are separate tables (an id is only ever compared with ids of
// its own table), so that the small node table stays in cache. The strings
// are copied into an arena: lookups and sorts compare dense memory rather
// than some event's text, and the names the timeline keeps (Volume.Names,
// Nodes, …) refer to the arena, not to any one event (a duplicate dropped
// later, for one).
type syms struct {
	tab   [3]map[string]int32 // symName, symNode, symPod: string → sym id
	str   []string            // sym id → the string (in the arena)
	flag  []uint8             // sym id → sym* flags
	arena []byte
	va    [attachmentNameLen]byte // a computed VolumeAttachment name, before it is interned
}

// The tables.
const (
	symName = iota // UniqueName, PV, handle, VolumeAttachment
	symNode
	symPod
)

const (
	symSlash   uint8 = 1 << iota // contains "/"
	symUID                       // isUID
	symDynPV                     // isDynamicPV
	symIgnored                   // Ignored
	symNil                       // "nil"
	symCSI                       // a CSI UniqueName: kubernetes.io/csi/<driver>^<handle>
)

// newSyms sizes the tables for about n events.
func newSyms(n int) *syms {
	return &syms{
		tab:  [3]map[string]int32{make(map[string]int32, n/2), make(map[string]int32, 64), make(map[string]int32, n/8)},
		str:  make([]string, 0, n),
		flag: make([]uint8, 0, n),
	}
}

// intern returns the id of s in table tab, -1 for "".
func (sy *syms) intern(tab int, s string) int32 {
	if s == "" {
		return -1
	}
	if i, ok := sy.tab[tab][s]; ok {
		return i
	}
	if len(sy.arena)+len(s) > cap(sy.arena) {
		sy.arena = make([]byte, 0, max(64<<10, len(s)))
	}
	off := len(sy.arena)
	sy.arena = append(sy.arena, s...)
	s = unsafe.String(&sy.arena[off], len(s))
	return sy.add(tab, s, classify(s))
}

// add gives s, which is not in table tab yet, the next id, with flags f.
func (sy *syms) add(tab int, s string, f uint8) int32 {
	i := int32(len(sy.str))
	sy.tab[tab][s] = i
	sy.str = append(sy.str, s)
	sy.flag = append(sy.flag, f)
	return i
}

// classify returns the sym* flags of s.
func classify(s string) uint8 {
	var f uint8
	if strings.Contains(s, "/") {
		f |= symSlash
	}
	if isUID(s) {
		f |= symUID
	}
	if isDynamicPV(s) {
		f |= symDynPV
	}
	if Ignored(s) {
		f |= symIgnored
	}
	if s == "nil" {
		f |= symNil
	}
	if _, _, ok := ParseUniqueName(s); ok && strings.HasPrefix(s, "kubernetes.io/csi/") {
		f |= symCSI
	}
	return f
}

// absorb adds the strings of o (interned separately, from later events)
// that sy lacks, in o's id order, and returns for each id of o its id in
// sy. Interning the events in consecutive parts and absorbing each part
// in turn gives every string the id one pass over all of them would.
func (sy *syms) absorb(o *syms) []int32 {
	remap := make([]int32, len(o.str))
	for tab := range o.tab {
		for s, j := range o.tab[tab] {
			if i, ok := sy.tab[tab][s]; ok {
				remap[j] = i
			} else {
				remap[j] = ^int32(tab) // new, in table tab
			}
		}
	}
	for j, r := range remap {
		if r < 0 {
			remap[j] = sy.add(int(^r), o.str[j], o.flag[j])
		}
	}
	return remap
}

// internAs is intern(tab, s), tried first as guess (a sym of tab, or -1).
func (sy *syms) internAs(tab int, s string, guess int32) int32 {
	if guess >= 0 && sy.str[guess] == s {
		return guess
	}
	return sy.intern(tab, s)
}

// event interns ev's names, and the VolumeAttachment name of a CSI volume
// on the event's node. An event mostly repeats the PV, handle, node, pod
// and VolumeAttachment of the previous event of its volume: those are
// tried first, one comparison instead of a lookup (or a hash). prev keeps
// them, by UniqueName sym (each id +1, 0 for none).
func (sy *syms) event(ev *parser.Event, prev *[]evIDs) evIDs {
	id := evIDs{vol: sy.intern(symName, ev.Volume)}
	var none evIDs
	last := &none
	if id.vol >= 0 {
		if int(id.vol) >= len(*prev) {
			p := slices.Grow(*prev, max(int(id.vol)+1, 2*len(*prev), 1024)-len(*prev))
			*prev = p[:cap(p)] // zeroed
		}
		last = &(*prev)[id.vol]
	}
	id.pv = sy.internAs(symName, ev.PV, last.pv-1)
	id.handle = sy.internAs(symName, ev.Handle, last.handle-1)
	id.att = sy.intern(symName, ev.Attachment)
	id.node = sy.internAs(symNode, ev.Node, last.node-1)
	id.pod = sy.internAs(symPod, ev.Pod, last.pod-1)
	id.va = -1
	if id.node >= 0 && sy.is(id.vol, symCSI) {
		if id.node+1 == last.node && last.va > 0 {
			id.va = last.va - 1
		} else {
			id.va = sy.attachment(id.vol, id.node)
		}
	}
	id.rwx = ev.Component == parser.ComponentKCM && ev.Origin == "" && hasRWXKey(ev.Text)
	if id.vol >= 0 {
		*last = evIDs{pv: id.pv + 1, handle: id.handle + 1, node: id.node + 1, pod: id.pod + 1, va: id.va + 1}
	}
	return id
}

// attachment interns the VolumeAttachment name of CSI UniqueName vol on
// node (syms of their tables).
func (sy *syms) attachment(vol, node int32) int32 {
	driver, handle, _ := ParseUniqueName(sy.str[vol])
	attachmentName(&sy.va, handle, driver, sy.str[node])
	return sy.intern(symName, unsafe.String(&sy.va[0], len(sy.va)))
}

// remap replaces each id of id by m[id] (see absorb).
func (id *evIDs) remap(m []int32) {
	for _, f := range [...]*int32{&id.vol, &id.pv, &id.handle, &id.att, &id.node, &id.pod, &id.va} {
		if *f >= 0 {
			*f = m[*f]
		}
	}
}

// lookup returns the id of s in table tab, if s was interned there.
func (sy *syms) lookup(tab int, s string) (int32, bool) {
	i, ok := sy.tab[tab][s]
	return i, ok
}

// is reports whether sym i (-1: none) has flag f.
func (sy *syms) is(i int32, f uint8) bool { return i >= 0 && sy.flag[i]&f != 0 }

// name reports whether sym i is a usable volume name: set and not "nil".
func (sy *syms) name(i int32) bool { return i >= 0 && sy.flag[i]&symNil == 0 }
