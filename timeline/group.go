package timeline

import (
	"cmp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// group links every event to a volume (or to Other) and fills t.Volumes.
// ord lists the kept events of evs in merge order; byEvent[k] are evs[k]'s
// names, interned in sy. evs (and byEvent with it) is permuted in place so
// that each volume's events (in merge order) are one window of it,
// followed by Other; Volume.Events and Other are those windows, capped so
// that an append never runs into a neighbour.
//
// alongside runs on a goroutine of its own while the events are linked
// (which only reads them); group waits for it before it moves them.
// collectTables (Options.CollectTables), when not nil, is called once
// the names are linked (their tables dropped), and collect
// (Options.Collect) once the events are laid out, before the volumes are
// made.
func group(t *Timeline, evs []parser.Event, ord []int32, sy *syms, byEvent []evIDs, vaHash []uint32, alongside, collectTables, collect func()) {
	var wg sync.WaitGroup
	wg.Go(alongside)
	// (every name is a sym of table symName: sized for them all, the
	// name arrays never grow)
	n := &names{of: make([]int32, len(sy.str)), parent: make([]int32, 0, len(sy.str)), sym: make([]int32, 0, len(sy.str))}
	// aliases that are not safe to union on (static PV names, pod volume
	// names): alias → the UniqueNames seen with it (sym ids).
	var alias map[int32][]int32
	addAlias := func(a, u int32) {
		if alias == nil {
			alias = map[int32][]int32{}
		}
		if !slices.Contains(alias[a], u) {
			alias[a] = append(alias[a], u)
		}
	}
	// What pass 1 already linked for a UniqueName: a volume's
	// events repeat the same handle, PV, attachment and nodes, and a repeat
	// only re-does unions and alias entries that are already there.
	// (Linking again what is linked changes nothing: a name's id is its
	// rank in order of first add, and a union of one root is a no-op.)
	type seenVol struct {
		handle, pv, attach int32 // +1; 0: none yet
		node               int32 // +1: the node whose VolumeAttachment name was linked last
		done               bool  // the UniqueName's own handle is linked
	}
	seen := newSymSlots[seenVol](len(sy.str)) // by UniqueName sym
	// the hashes of the VolumeAttachment names the events give: a CSI
	// UniqueName is linked to the name computed for it on a node only
	// when an event gives that name (every volume's own are computed
	// again by describe)
	refs := sy.attachmentRefs()
	// Pass 1: link the events that carry a UniqueName. root[p] keeps the
	// name id of ord[p]'s UniqueName (noVolume, ignoredVolume) for pass 2.
	const noVolume, ignoredVolume = -1, -2
	root := make([]int32, len(ord))
	uniques := 0 // distinct UniqueNames: the volumes, but for unjoinable events
	for p, k := range ord {
		id := byEvent[k]
		if id.vol < 0 {
			root[p] = noVolume
			continue
		}
		if sy.is(id.vol, symIgnored) {
			root[p] = ignoredVolume
			continue
		}
		u := n.add(id.vol)
		root[p] = int32(u)
		sv := seen.of(id.vol)
		if !sv.done {
			sv.done = true
			uniques++
			_, handle, ok := ParseUniqueName(sy.str[id.vol])
			if ok && handle != "" {
				n.union(u, n.add(sy.internAs(symName, handle, id.handle)))
			}
		}
		if id.handle >= 0 && id.handle+1 != sv.handle {
			sv.handle = id.handle + 1
			n.union(u, n.add(id.handle))
		}
		if id.att >= 0 && id.att+1 != sv.attach {
			sv.attach = id.att + 1
			n.union(u, n.add(id.att))
		}
		if sy.name(id.pv) && id.pv+1 != sv.pv {
			sv.pv = id.pv + 1
			if sy.is(id.pv, symDynPV) {
				n.union(u, n.add(id.pv))
			} else {
				addAlias(id.pv, id.vol)
			}
		}
		if refs != nil && id.node >= 0 && sy.is(id.vol, symCSI) && id.node+1 != sv.node {
			sv.node = id.node + 1
			h := vaHash[k]
			if h == 0 { // a node given after interning (fillKubeletNodes)
				h = sy.attachmentHash(id.vol, id.node)
			}
			// an event names the VolumeAttachment (or a name of its hash):
			// link the name it gives
			if refs[h] {
				if a, ok := sy.lookup(symName, sy.attachmentName(&sy.va, id.vol, id.node)); ok {
					n.union(u, n.add(a))
				}
			}
		}
	}
	seen = symSlots[seenVol]{}
	sy.seal() // every name is interned: from here on ids only
	if collectTables != nil {
		collectTables() // the tables and seen are garbage (4 GiB of churn: ~13 MB)
	}
	// resolveAlias returns the root of an alias that names one volume only.
	resolveAlias := func(a int32) (int, bool) {
		us := alias[a]
		if len(us) == 0 {
			return 0, false
		}
		r, _ := n.lookup(us[0])
		for _, u := range us[1:] {
			if r2, _ := n.lookup(u); r2 != r {
				return 0, false
			}
		}
		return r, true
	}

	// Pass 2: each event's volume, volumes numbered in order of first
	// event (ord is sorted). vol[p] is the volume of ord[p], or toOther /
	// toPending. An event without a UniqueName joins the volume one of its
	// other names is linked into, or else forms a volume of its own under
	// its names: only names new to n are linked then, so the roots found
	// for earlier events stay roots.
	const toOther, toPending = -1, -2
	vol := root                                                // reused: root[p] is read before vol[p] is written
	byRoot := make([]int32, len(n.parent), len(n.parent)+1024) // name id of a root → volume + 1 (0: none)
	volRoot := make([]int, 0, uniques)                         // volume → the name id of its root
	count := make([]int32, 0, uniques)                         // volume → its events
	var pending []int32                                        // positions of mount-timeouts to place by pod
	for p, k := range ord {
		r := -1
		switch id := root[p]; {
		case id == ignoredVolume:
			t.Ignored++
		case id >= 0:
			r = n.find(int(id))
		case evs[k].Kind != parser.ControllerStarted: // (a restart line joins no volume)
			r = joinRoot(n, sy, &evs[k], &byEvent[k], resolveAlias)
		}
		if r < 0 {
			if ev := &evs[k]; ev.Kind == parser.MountTimeout && ev.Pod != "" {
				vol[p] = toPending
				pending = append(pending, int32(p))
				continue
			}
			vol[p] = toOther
			continue
		}
		if r >= len(byRoot) { // a name added for an unjoinable event
			byRoot = append(byRoot, make([]int32, len(n.parent)-len(byRoot))...)
		}
		vi := byRoot[r] - 1
		if vi < 0 {
			vi = int32(len(volRoot))
			byRoot[r] = vi + 1
			volRoot = append(volRoot, r)
			count = append(count, 0)
		}
		vol[p] = vi
		count[vi]++
	}
	// The linking is done: the names of each volume are listed while its
	// events are laid out (the union-find is not read again).
	var ln linkedNames
	var linking sync.WaitGroup
	linking.Go(func() { ln = listNames(n, byRoot, volRoot) })
	// pod (ns/name and name) → volumes, in order of first event; only
	// the pods of mount timeouts to place are kept.
	var podVols map[int32][]int32
	if len(pending) > 0 {
		podVols = map[int32][]int32{}
		for _, p := range pending {
			podVols[byEvent[ord[p]].pod] = nil
		}
		// a pending pod without a namespace also matches ns/<it>
		var bare map[string]int32
		for pd := range podVols {
			if !sy.is(pd, symSlash) {
				if bare == nil {
					bare = map[string]int32{}
				}
				bare[sy.str[pd]] = pd
			}
		}
		for p := range ord {
			vi := vol[p]
			if vi < 0 {
				continue
			}
			pd := byEvent[ord[p]].pod
			if pd < 0 || sy.is(pd, symUID) {
				continue
			}
			keys := [...]int32{pd, -1} // the pod, and its name part (PodName)
			if len(bare) > 0 && sy.is(pd, symSlash) {
				if b, ok := bare[PodName(sy.str[pd])]; ok {
					keys[1] = b
				}
			}
			for _, key := range keys {
				if l, ok := podVols[key]; ok && (len(l) == 0 || l[len(l)-1] != vi) {
					podVols[key] = append(l, vi)
				}
			}
		}
	}
	// A mount timeout names only the pod's volume names: it goes on every
	// volume of that pod (merged back in time order below), else to Other.
	var unplaced, placed []int32
	for _, p := range pending {
		if len(podVols[byEvent[ord[p]].pod]) == 0 {
			unplaced = append(unplaced, p)
		} else {
			placed = append(placed, p)
		}
	}

	// Lay evs out: each volume's events, then Other (its own events, then
	// the unplaced mount timeouts), then the placed mount timeouts (copied
	// onto their volumes below), then the duplicates dropped by dedupe.
	start := make([]int, len(volRoot)+1)
	for i, c := range count {
		start[i+1] = start[i] + int(c)
	}
	count = nil
	otherStart := start[len(volRoot)]
	dest := make([]int32, len(evs))
	for i := range dest {
		dest[i] = -1
	}
	next := slices.Clone(start[:len(volRoot)])
	o := otherStart
	for p, k := range ord {
		switch vi := vol[p]; vi {
		case toOther:
			dest[k] = int32(o)
			o++
		case toPending:
		default:
			dest[k] = int32(next[vi])
			next[vi]++
		}
	}
	for _, p := range unplaced {
		dest[ord[p]] = int32(o)
		o++
	}
	otherEnd := o
	for _, p := range placed {
		dest[ord[p]] = int32(o)
		o++
	}
	placedStart, kept := otherEnd, o
	for k := range dest {
		if dest[k] < 0 {
			dest[k] = int32(o)
			o++
		}
	}
	wg.Wait()
	permute(evs, byEvent, dest)
	clear(evs[kept:]) // duplicates: drop their strings
	if collect != nil {
		collect()
	}

	// The volumes are made now, volumeSlab at a time, rather than with
	// the layout as one array: by now the collector has mostly freed what
	// grouping and the parse left behind (the tables, buffers), and small
	// slabs fit in the holes it left where one array of them all takes new
	// memory (1 GiB of churn, 35k volumes: peak RSS median 67 → 65 MiB in 9 runs).
	var vols []*Volume // nil when there is none
	if len(volRoot) > 0 {
		vols = make([]*Volume, len(volRoot))
	}
	var slab []Volume
	for i := range vols {
		if len(slab) == 0 {
			slab = make([]Volume, min(volumeSlab, len(vols)-i))
		}
		vols[i], slab = &slab[0], slab[1:]
		vols[i].Events = evs[start[i]:start[i+1]:start[i+1]]
	}
	// each volume's events' names, as its Events: their window of
	// byEvent, or for the volumes given mount timeouts, moved[vi]
	var moved map[int32][]evIDs
	vids := func(vi int) []evIDs {
		if ids, ok := moved[int32(vi)]; ok {
			return ids
		}
		return byEvent[start[vi]:start[vi+1]:start[vi+1]]
	}
	if otherEnd > otherStart {
		t.Other = evs[otherStart:otherEnd:otherEnd]
	}
	var touched []int32 // volumes that got mount timeouts, in order of first one
	for j := range placed {
		ev, id := &evs[placedStart+j], byEvent[placedStart+j]
		for _, vi := range podVols[id.pod] {
			v := vols[vi]
			if len(v.Events) == start[vi+1]-start[vi] {
				touched = append(touched, vi)
				if moved == nil {
					moved = map[int32][]evIDs{}
				}
			}
			v.Events = append(v.Events, *ev) // beyond the window's cap: a copy of its own
			moved[vi] = append(vids(int(vi)), id)
		}
	}
	for _, vi := range touched {
		v := vols[vi]
		idx := make([]int, len(v.Events))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			at, bt := v.Events[a].Time, v.Events[b].Time
			az, bz := at.IsZero(), bt.IsZero()
			if az != bz {
				if az {
					return 1
				}
				return -1
			}
			return at.Compare(bt)
		})
		es, is := make([]parser.Event, len(idx)), make([]evIDs, len(idx))
		ids := moved[vi]
		for i, j := range idx {
			es[i], is[i] = v.Events[j], ids[j]
		}
		v.Events, moved[vi] = es, is
	}
	t.Volumes = vols

	linking.Wait()
	mstart, members, rootName := ln.start, ln.members, ln.root
	// Each volume's fields depend on its own events only: the volumes are
	// done in ranges each core takes as it is free (pull; sy is only read from here on).
	// (each worker's scratch an allocation of its own: side by side in
	// one array, the two workers' slice headers shared a cache line)
	scs := make([]*scratch, runtime.GOMAXPROCS(0))
	pull(volumeChunks(start), func(w, lo, hi int) {
		if scs[w] == nil {
			scs[w] = new(scratch)
		}
		sc := scs[w]
		for i := lo; i < hi; i++ {
			v, ids := vols[i], vids(i)
			mergePods(v, ids, sy)
			sc.describe(v, ids, sy, sy.str[rootName[i]], members[mstart[i]:mstart[i+1]])
			sc.reconstruct(v, ids, sy)
			v.LinkEchoes()
		}
	})
	// numbered in order of first event, the volumes are mostly in this
	// order already (a stable sort of sorted input still costs n log n)
	byFirst := func(a, b *Volume) int {
		if c := a.First().Compare(b.First()); c != 0 {
			return c
		}
		return strings.Compare(a.Key(), b.Key())
	}
	if !slices.IsSortedFunc(t.Volumes, byFirst) {
		slices.SortStableFunc(t.Volumes, byFirst)
	}
}

// volumeSlab is how many Volumes group makes at a time.
const volumeSlab = 512

// linkedNames are the names linked into each volume, as sym ids, in one
// array (members[start[i]:start[i+1]] for volume i), and the sym of each
// volume's root name.
type linkedNames struct {
	start, members, root []int32
}

// listNames lists the names linked into each volume: byRoot[r] is the
// volume +1 of root name r (0: none), volRoot[i] the root of volume i.
// It uses up n's union-find: each name's parent becomes its volume.
func listNames(n *names, byRoot []int32, volRoot []int) linkedNames {
	vols := len(volRoot)
	start := make([]int32, vols+1)
	root := make([]int32, vols)
	for i, r := range volRoot {
		root[i] = n.sym[r]
	}
	// every name's parent its root, then (a root's own entry is read
	// only for itself) its volume
	for i := range n.parent {
		n.parent[i] = int32(n.find(i))
	}
	nameVol := n.parent
	for i, r := range nameVol {
		vi := byRoot[r] - 1
		nameVol[i] = vi
		if vi >= 0 {
			start[vi+1]++
		}
	}
	for i := range vols {
		start[i+1] += start[i]
	}
	members := make([]int32, start[vols])
	fill := slices.Clone(start[:vols])
	for i, vi := range nameVol {
		if vi >= 0 {
			members[fill[vi]] = n.sym[i]
			fill[vi]++
		}
	}
	return linkedNames{start, members, root}
}

// joinRoot returns the root of the volume an event without a UniqueName
// (ev, its names id) joins: the one its VolumeAttachment, handle or PV is
// linked into (resolveAlias: a PV alias naming one volume only), or else
// a new one under its own names; -1 for none (Other).
func joinRoot(n *names, sy *syms, ev *parser.Event, id *evIDs, resolveAlias func(int32) (int, bool)) int {
	for _, s := range [...]int32{id.att, id.handle, id.pv} {
		if !sy.name(s) {
			continue
		}
		if r, ok := n.lookup(s); ok {
			return r
		}
		if r, ok := resolveAlias(s); ok {
			return r
		}
	}
	if ev.Kind == parser.Unknown || ev.Kind == parser.MountTimeout {
		return -1
	}
	// An unjoinable event forms its own volume under its own names.
	first := -1
	for _, s := range [...]int32{id.pv, id.handle, id.att} {
		if !sy.name(s) {
			continue
		}
		i := n.add(s)
		if first < 0 {
			first = i
		} else {
			n.union(first, i)
		}
	}
	if first < 0 {
		return -1
	}
	return n.find(first)
}

// scratch is reused by describe and reconstruct across volumes, so that a
// volume of a few events costs a few sorts of short slices rather than a
// handful of maps and allocations.
type scratch struct {
	names, nodes, pods []int32
	pvs                []pvCount
	// reconstruct
	direct      []int32 // the nodes (syms) the volume has direct controller lines for, sorted
	podNodes    map[string]podNode
	ctl, kl     lanes
	ctlIv, klIv []Interval
	edges       []edge
	active      []held
	// describe's computed VolumeAttachment names: the (UniqueName, node)
	// pairs, the name being computed, and where the names are kept
	pairs   [][2]int32
	va      [state.AttachmentNameLen]byte
	vaArena []byte
	// the volumes' small slices are cut from larger allocations
	ivs       slab[Interval]
	strs      slab[string]
	rares     slab[volumeRare]
	tmp, tmp2 []string
	lists     []string // a volume's lists, before they are cut from strs
}

// slab hands out exact-size copies cut from larger allocations, so that
// thousands of small slices cost a few allocations.
type slab[T any] struct{ buf []T }

// slabRoom is the room of a slab's allocations once it has grown: each
// is twice the one before, from 32 items, up to it. (Made 1,024 at once,
// the slabs of a 3 KB log's one volume were ~200 KB of fresh memory.)
const slabRoom = 1024

// copy returns a copy of src (nil when empty), its cap its len.
func (s *slab[T]) copy(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	if len(src) > cap(s.buf)-len(s.buf) {
		// prefaulted: a collection may scan it before it is filled (see
		// internal/prefault)
		s.buf = prefault.Make[T](0, max(len(src), min(slabRoom, max(32, 2*cap(s.buf)))))
	}
	off := len(s.buf)
	s.buf = append(s.buf, src...)
	return s.buf[off:len(s.buf):len(s.buf)]
}

// pvCount is a run of events naming one PV (a sym id).
type pvCount struct {
	pv int32
	n  int
}

// describe fills a volume's names, nodes, pods and span from its events;
// ids are the events' names, linked the sym ids of the names linked into
// the volume.
func (sc *scratch) describe(v *Volume, ids []evIDs, sy *syms, rootName string, linked []int32) {
	names, nodes, pods, pvs := sc.names[:0], sc.nodes[:0], sc.pods[:0], sc.pvs[:0]
	// A volume's events mostly repeat the previous event's names: a value
	// equal to the last one added from the same field is not added again
	// (the lists are sorted and compacted below; pvs keeps counts).
	lastVol, lastPV, lastHandle, lastAtt, lastNode, lastPod := int32(-1), int32(-1), int32(-1), int32(-1), int32(-1), int32(-1)
	add := func(s int32, last *int32) {
		if sy.name(s) && s != *last {
			names = append(names, s)
			*last = s
		}
	}
	unique, handle := int32(-1), int32(-1)
	for i := range ids {
		id := &ids[i]
		if id.vol >= 0 && unique < 0 {
			unique = id.vol
		}
		add(id.vol, &lastVol)
		add(id.handle, &lastHandle)
		add(id.att, &lastAtt)
		if sy.name(id.pv) {
			if n := len(pvs); n > 0 && pvs[n-1].pv == id.pv {
				pvs[n-1].n++
			} else {
				pvs = append(pvs, pvCount{id.pv, 1})
			}
			add(id.pv, &lastPV)
		}
		if id.handle >= 0 && handle < 0 {
			handle = id.handle
		}
		if id.node >= 0 && id.node != lastNode {
			nodes = append(nodes, id.node)
			lastNode = id.node
		}
		if id.pod >= 0 && id.pod != lastPod && !sy.is(id.pod, symUID) {
			pods = append(pods, id.pod)
			lastPod = id.pod
		}
	}
	if unique >= 0 {
		v.UniqueName = sy.str[unique]
	}
	if handle >= 0 {
		v.Handle = sy.str[handle]
	}
	// the span is kept as the events holding its times (First, Last)
	var first, last parser.Stamp
	for i := range v.Events {
		ev := &v.Events[i]
		if !ev.Time.IsZero() {
			if first.IsZero() || ev.Time.Before(first) {
				first, v.first = ev.Time, int32(i+1)
			}
			if last.IsZero() || last.Before(ev.Time) {
				last, v.last = ev.Time, int32(i+1)
			}
		}
	}
	// every name linked into this volume (computed VA names included)
	names = append(names, linked...)
	if v.UniqueName != "" {
		if _, h, ok := ParseUniqueName(v.UniqueName); ok && h != "" {
			v.Handle = h // (its driver is the Driver)
		}
	}
	// PV: prefer a dynamic pvc-… name, then the most frequent display name
	// that is not the UniqueName itself.
	if len(pvs) > 1 {
		slices.SortFunc(pvs, func(a, b pvCount) int { return cmp.Compare(a.pv, b.pv) })
	}
	best, bestN := "", 0
	for i := 0; i < len(pvs); {
		id, c, j := pvs[i].pv, pvs[i].n, i+1
		for j < len(pvs) && pvs[j].pv == id {
			c += pvs[j].n
			j++
		}
		i = j
		if id == unique {
			continue
		}
		pv := sy.str[id]
		score := c
		if sy.is(id, symDynPV) {
			score += 1 << 30
		}
		if score > bestN || score == bestN && pv < best {
			best, bestN = pv, score
		}
	}
	v.PV = best
	v.SetKey(cmp.Or(v.UniqueName, v.PV, v.Handle, rootName))
	// the lists are made in sc.lists, then cut from the slab at once
	lists := sc.lists[:0]
	tmp := sortedNames(sc.tmp[:0], names, sy)
	// and the VolumeAttachment names computed for its CSI UniqueNames on
	// their events' nodes (one may be linked already: an event gave it):
	// computed when asked (Volume.vaNodes) when they are the UniqueName's
	// on at most 64 nodes, as nearly every volume's are, else here
	pairs := sc.attachmentPairs(ids, sy)
	lazy := len(pairs) > 0 && len(nodes) <= 64 && unique >= 0
	for _, p := range pairs {
		lazy = lazy && p[0] == unique
	}
	if len(pairs) > 0 && !lazy {
		tmp = sc.attachmentNames(tmp, pairs, sy)
		slices.Sort(tmp)
		tmp = slices.Compact(tmp)
	}
	// the names but for UniqueName, PV and Handle (SetNames)
	if pos := namePositions(tmp, v.UniqueName, v.PV, v.Handle); pos != (namePos{}) {
		lists, v.namePos = dropPositions(lists, tmp, pos), pos
	} else {
		lists = append(lists, tmp...)
	}
	nodesAt := len(lists)
	lists = sortedNames(lists, nodes, sy)
	podsAt := len(lists)
	if lazy { // (every pair's node is one of the nodes)
		for _, p := range pairs {
			i, _ := slices.BinarySearch(lists[nodesAt:podsAt], sy.str[p[1]])
			v.vaNodes |= 1 << i
		}
	}
	// drop a bare pod name when its namespaced form is present
	tmp = sortedNames(tmp[:0], pods, sy)
	namespaced := sc.tmp2[:0]
	for _, p := range tmp {
		if strings.Contains(p, "/") {
			namespaced = append(namespaced, PodName(p))
		}
	}
	slices.Sort(namespaced)
	kept := tmp[:0]
	for _, p := range tmp {
		if !strings.Contains(p, "/") {
			if _, found := slices.BinarySearch(namespaced, p); found {
				continue
			}
		}
		kept = append(kept, p)
	}
	lists = append(lists, kept...)
	v.lists, v.nodesAt, v.podsAt = sc.strs.copy(lists), int32(nodesAt), int32(podsAt)
	// the VolumeAttachment names are a window of names (Attachments)
	// unless they are not consecutive there (or some are computed when
	// asked: then Attachments finds them among the Names)
	if a, window := attachmentsOf(v.names(), sc.tmp2[:0]); a != nil && !window && !lazy {
		v.SetAttachments(sc.strs.copy(a))
	}
	sc.tmp, sc.tmp2, sc.lists = tmp[:0], namespaced[:0], lists[:0]
	sc.names, sc.nodes, sc.pods, sc.pvs = names[:0], nodes[:0], pods[:0], pvs[:0]
}

// attachmentPairs returns the (CSI UniqueName, node) pairs of the
// volume's events (ids), sorted, each once: those it has a computed
// VolumeAttachment name for. The slice is the scratch's (valid until the
// next call).
func (sc *scratch) attachmentPairs(ids []evIDs, sy *syms) [][2]int32 {
	pairs := sc.pairs[:0]
	for i := range ids {
		id := &ids[i]
		if id.node < 0 || !sy.is(id.vol, symCSI) {
			continue
		}
		if p := [2]int32{id.vol, id.node}; len(pairs) == 0 || pairs[len(pairs)-1] != p {
			pairs = append(pairs, p)
		}
	}
	if len(pairs) > 1 {
		slices.SortFunc(pairs, func(a, b [2]int32) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		pairs = slices.Compact(pairs)
	}
	sc.pairs = pairs[:0]
	return pairs
}

// attachmentNames appends to dst the VolumeAttachment names of pairs
// (attachmentPairs), in memory of their own.
func (sc *scratch) attachmentNames(dst []string, pairs [][2]int32, sy *syms) []string {
	for _, p := range pairs {
		name := sy.attachmentName(&sc.va, p[0], p[1])
		if len(sc.vaArena)+len(name) > cap(sc.vaArena) {
			sc.vaArena = make([]byte, 0, 64<<10)
		}
		off := len(sc.vaArena)
		sc.vaArena = append(sc.vaArena, name...)
		dst = append(dst, unsafe.String(&sc.vaArena[off], len(name)))
	}
	return dst
}

// sortedNames appends to dst the distinct strings of syms, sorted (among
// themselves: what dst holds stays first). It reorders syms.
func sortedNames(dst []string, syms []int32, sy *syms) []string {
	start := len(dst)
	slices.Sort(syms)
	for i, s := range syms {
		if i == 0 || s != syms[i-1] {
			dst = append(dst, sy.str[s])
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// mergePods gives a bare pod name (kubelet sentences name the pod without
// its namespace) its namespaced form, when exactly one namespaced pod of
// that name appears on the volume, so one pod is not counted as two. ids
// are the events' names; their pods are updated too.
func mergePods(v *Volume, ids []evIDs, sy *syms) {
	bare := false
	for i := range ids {
		if p := ids[i].pod; p >= 0 && !sy.is(p, symSlash) {
			bare = true
			break
		}
	}
	if !bare {
		return // nothing to merge
	}
	// name → the event naming ns/name (its pod id is the sym of ns/name:
	// ids only, the tables are sealed); -1 when ambiguous
	full := map[string]int{}
	for i := range v.Events {
		p := v.Events[i].Pod
		if !strings.Contains(p, "/") || isUID(p) {
			continue
		}
		name := PodName(p)
		if f, ok := full[name]; ok && (f < 0 || v.Events[f].Pod != p) {
			full[name] = -1
			continue
		}
		full[name] = i
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Pod == "" || strings.Contains(ev.Pod, "/") {
			continue
		}
		if f, ok := full[ev.Pod]; ok && f >= 0 {
			ev.SetPod(v.Events[f].Pod, nil)
			ids[i].pod = ids[f].pod
		}
	}
}
