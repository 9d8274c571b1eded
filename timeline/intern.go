package timeline

import (
	"slices"
	"strings"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// evIDs are an event's names as sym ids (-1: empty): 24 bytes an event,
// held from prepareEvents until the volumes are described (4 GiB of a large
// cluster's churn: 450k events). What grouping alone reads of an event
// besides is beside them (the hash of its computed VolumeAttachment name:
// prepared.va) or in the event itself.
type evIDs struct {
	vol, pv, handle, att, node, pod int32
}

// syms interns the names events carry (volume names, nodes, pods), so
// that grouping compares and keys small ints instead of strings. Each
// distinct string is hashed once and classified once. Volume names, nodes
// and pods are separate tables (an id is only ever compared with ids of
// its own table), so that the small node table stays in cache. A string
// is kept as the event gave it, not copied: the parser gives every name
// memory of its own, shared by the events naming it (parser/textstore's
// Names), so the names the timeline keeps (Volume.Names, Nodes, …) are
// those bytes. The VolumeAttachment name of a CSI volume on a node is
// computed but not interned: only its hash is kept (prepared.va), which
// grouping matches against the names of that form the events give (few
// do: 1 GiB of a large cluster's churn computes 35k and gives 95, beside
// their volume's UniqueName), and each volume's own are computed again,
// into memory of their own, when it is described (attachmentNames). The
// tables index the ids by their strings (strTab); once grouping has
// linked every name they are dropped (seal), and the ids, strings and
// flags serve the rest of the build.
type syms struct {
	tab  [3]strTab                     // symName, symNode, symPod: string → sym id
	str  []string                      // sym id → the string
	flag []uint8                       // sym id → sym* flags, and its table (symTabShift)
	va   [state.AttachmentNameLen]byte // a computed VolumeAttachment name (attachmentHash)
}

// The tables.
const (
	symName = iota // UniqueName, PV, handle, VolumeAttachment
	symNode
	symPod
)

// The flags a sym can have; each table's syms are only tested for (and
// classify only gives them) the flags listed for it.
const (
	symSlash   uint8 = 1 << iota // pod: contains "/"
	symUID                       // pod: isUID
	symDynPV                     // name: isDynamicPV
	symIgnored                   // name: Ignored
	symNil                       // name: "nil"
	symCSI                       // name: a CSI UniqueName: kubernetes.io/csi/<driver>^<handle>
	// name: of the form of a computed VolumeAttachment name
	// (isAttachmentName); it shares symSlash's bit, which only pods have
	symAttachment = symSlash
)

// symTabShift places a sym's table (symName, symNode, symPod) in the top
// bits of its flags.
const symTabShift = 6

// newSyms sizes the tables for about n events, and the ids for about ids.
func newSyms(n, ids int) *syms {
	return newSymsIn(n, prefault.Make[string](0, ids)) // (see internal/prefault)
}

// newSymsIn is newSyms with the ids' strings in str's array (str is
// empty; its capacity is their room before it grows): prepareEvents gives
// each part a region of one array, so that merge need not copy them. The
// tables are sized for the first expectAt events at most: expect sizes
// them for the rest.
func newSymsIn(n int, str []string) *syms {
	n = min(n, expectAt)
	return &syms{
		tab:  [3]strTab{makeStrTab(n / 2), makeStrTab(64), makeStrTab(n / 8)},
		str:  str,
		flag: make([]uint8, 0, cap(str)),
	}
}

// expect grows the tables, once done of about total events are
// interned, to hold what the rest will add at the rate seen so far, so
// that a table grows once early rather than doubling (a copy each time)
// as it fills. It moves the tables' entries: not between a find and its
// insert.
func (sy *syms) expect(done, total int) {
	for t := range sy.tab {
		sy.tab[t].reserve(int(int64(sy.tab[t].used) * int64(total) / int64(done) * 9 / 8))
	}
}

// intern returns the id of s in table tab, -1 for "". A new s is kept as
// it is (it must not be a window of a buffer that is reused).
func (sy *syms) intern(tab int, s string) int32 {
	if s == "" {
		return -1
	}
	h := strHash(s)
	i, slot := sy.tab[tab].find(sy.str, s, h)
	if i >= 0 {
		return i
	}
	i = sy.push(s, classify(tab, s)|uint8(tab)<<symTabShift)
	sy.tab[tab].insert(slot, h, i)
	return i
}

// growIDs makes room for n ids in all (the tables are left as they are).
func (sy *syms) growIDs(n int) {
	sy.str = slices.Grow(sy.str, n-len(sy.str))
	sy.flag = slices.Grow(sy.flag, n-len(sy.flag))
}

// push gives s the next id, with flags f (its table included), without
// entering it in a table.
func (sy *syms) push(s string, f uint8) int32 {
	i := int32(len(sy.str))
	if len(sy.str) == cap(sy.str) {
		sy.growIDs(2 * len(sy.str)) // doubled: append's growth of a large slice is 1.25 times, many copies
	}
	sy.str = append(sy.str, s)
	sy.flag = append(sy.flag, f)
	return i
}

// classify returns the sym* flags of s, a string of table tab.
func classify(tab int, s string) uint8 {
	var f uint8
	switch tab {
	case symName:
		if isDynamicPV(s) {
			f |= symDynPV
		}
		if strings.HasPrefix(s, "kubernetes.io/") {
			if Ignored(s) {
				f |= symIgnored
			}
			if rest, ok := strings.CutPrefix(s, "kubernetes.io/csi/"); ok {
				if d, _, ok := strings.Cut(rest, "^"); ok && d != "" { // as ParseUniqueName takes it
					f |= symCSI
				}
			}
		}
		if s == "nil" {
			f |= symNil
		}
		if isAttachmentName(s) {
			f |= symAttachment
		}
	case symPod:
		if strings.Contains(s, "/") {
			f |= symSlash
		}
		if isUID(s) {
			f |= symUID
		}
	}
	return f
}

// absorb adds the strings of o (interned separately, from later events)
// that sy lacks, in o's id order, and returns for each id of o its id in
// sy. Interning the events in consecutive parts and absorbing each part
// in turn gives every string the id one pass over all of them would. The
// strings stay in o's arena; o's tables are not needed after.
func (sy *syms) absorb(o *syms) []int32 {
	remap := make([]int32, len(o.str))
	for j, s := range o.str {
		f := o.flag[j]
		tab := &sy.tab[f>>symTabShift]
		h := strHash(s)
		i, slot := tab.find(sy.str, s, h)
		if i < 0 {
			i = sy.push(s, f)
			tab.insert(slot, h, i)
		}
		remap[j] = i
	}
	o.seal()
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
// them, per volume.
//
// va is the hash (attachmentHash) of the VolumeAttachment name of a CSI
// volume on the event's node, 0 when there is none (or a name's hash is
// 0: then computed again when needed, to the same).
func (sy *syms) event(ev *parser.Event, prev *lastNames) (id evIDs, va uint32) {
	id = evIDs{vol: sy.intern(symName, ev.Volume)}
	var none lastIDs
	last := &none
	if id.vol >= 0 {
		last = prev.of(id.vol)
	}
	id.pv = sy.internAs(symName, ev.PV, last.pv-1)
	id.handle = sy.internAs(symName, ev.Handle, last.handle-1)
	id.att = sy.intern(symName, ev.Attachment)
	id.node = sy.internAs(symNode, ev.Node, last.node-1)
	id.pod = sy.internAs(symPod, ev.Pod, last.pod-1)
	computed := id.node >= 0 && sy.is(id.vol, symCSI)
	if computed {
		if id.node+1 == last.vaNode {
			va = last.va
		} else {
			va = sy.attachmentHash(id.vol, id.node)
		}
	}
	if id.vol >= 0 {
		*last = lastIDs{pv: id.pv + 1, handle: id.handle + 1, node: id.node + 1, pod: id.pod + 1, va: va}
		if computed {
			last.vaNode = id.node + 1
		}
	}
	return id, va
}

// lastIDs are the names of a volume's latest event (see event), each id
// +1 (0: none), and the hash of the VolumeAttachment name computed for
// node vaNode-1 (0: none).
type lastIDs struct {
	pv, handle, node, pod, vaNode int32
	va                            uint32
}

// lastNames are the lastIDs of the volumes seen so far (see symSlots):
// indexing the 20-byte entries by sym directly took 7 MB on the churn
// shape's 1 GiB (35k volumes, 170k names); grown arrays took the index
// and the entries 4.3 MB of allocations (each doubling a copy), chunks 1.1.
type lastNames = symSlots[lastIDs]

// newLastNames returns lastNames for ids below about n.
func newLastNames(n int) lastNames { return newSymSlots[lastIDs](n) }

// symSlots keep one T for each of some syms, made zero on first use and
// found through a 4-byte index by sym id (the slot +1; 0: none yet): the
// ids count every name interned, and the syms kept for (volumes'
// UniqueNames) are a fraction of them. Index and slots are cut in chunks
// made as they are first needed, never copied: a slot's pointer holds, and
// growing costs no more than what is used.
type symSlots[T any] struct {
	at  [][]int32 // chunk sym>>slotShift: the slot +1 of each sym
	val [][]T     // chunk i>>slotShift: slot i
	n   int32     // slots in use
}

// slotShift sizes the chunks of symSlots: 1<<slotShift entries each.
const (
	slotShift = 10
	slotMask  = 1<<slotShift - 1
)

// newSymSlots returns symSlots for ids below about n.
func newSymSlots[T any](n int) symSlots[T] {
	return symSlots[T]{at: make([][]int32, 0, n>>slotShift+1)}
}

// of returns the slot of sym, made (zero) when new.
func (l *symSlots[T]) of(sym int32) *T {
	c := int(sym >> slotShift)
	if c >= len(l.at) {
		l.at = append(l.at, make([][]int32, c+1-len(l.at))...)
	}
	at := l.at[c]
	if at == nil {
		at = make([]int32, 1<<slotShift)
		l.at[c] = at
	}
	i := at[sym&slotMask]
	if i == 0 {
		if int(l.n) == len(l.val)<<slotShift {
			l.val = append(l.val, make([]T, 1<<slotShift))
		}
		l.n++
		i = l.n
		at[sym&slotMask] = i
	}
	i--
	return &l.val[i>>slotShift][i&slotMask]
}

// attachmentHash is the hash (strHash) of the VolumeAttachment name of
// CSI UniqueName vol on node (syms of their tables).
func (sy *syms) attachmentHash(vol, node int32) uint32 {
	return strHash(sy.attachmentName(&sy.va, vol, node))
}

// attachmentName computes the VolumeAttachment name of CSI UniqueName vol
// on node in buf, and returns it: a window of buf (copy it to keep it).
func (sy *syms) attachmentName(buf *[state.AttachmentNameLen]byte, vol, node int32) string {
	driver, handle, _ := ParseUniqueName(sy.str[vol])
	state.PutAttachmentName(buf, handle, driver, sy.str[node])
	return unsafe.String(&buf[0], len(buf))
}

// attachmentRefs returns the hashes (strHash) of the names of the form of
// a computed VolumeAttachment name that the events give (symAttachment:
// in their Attachment, or any other of their names), nil when they give
// none: a computed name is linked only when one of these may be it.
func (sy *syms) attachmentRefs() map[uint32]bool {
	var refs map[uint32]bool
	for i, f := range sy.flag {
		if f>>symTabShift == symName && f&symAttachment != 0 {
			if refs == nil {
				refs = map[uint32]bool{}
			}
			refs[strHash(sy.str[i])] = true
		}
	}
	return refs
}

// remap replaces each id of id by m[id] (see absorb).
func (id *evIDs) remap(m []int32) {
	for _, f := range [...]*int32{&id.vol, &id.pv, &id.handle, &id.att, &id.node, &id.pod} {
		if *f >= 0 {
			*f = m[*f]
		}
	}
}

// lookup returns the id of s in table tab, if s was interned there.
func (sy *syms) lookup(tab int, s string) (int32, bool) {
	if s == "" {
		return -1, false
	}
	i, _ := sy.tab[tab].find(sy.str, s, strHash(s))
	return i, i >= 0
}

// seal drops the tables strings are looked up in, once every name is
// interned: the ids, strings and flags stay (str, flag, is, name), but
// lookup, intern and everything built on them must not be called again.
// The tables are the largest part of a syms and are no longer needed by
// the time the volumes' own slices are cut.
func (sy *syms) seal() {
	sy.tab = [3]strTab{}
}

// is reports whether sym i (-1: none) has flag f.
func (sy *syms) is(i int32, f uint8) bool { return i >= 0 && sy.flag[i]&f != 0 }

// name reports whether sym i is a usable volume name: set and not "nil".
func (sy *syms) name(i int32) bool { return i >= 0 && sy.flag[i]&symNil == 0 }
