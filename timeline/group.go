package timeline

import (
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
)

// group links every event to a volume (or to Other) and fills t.Volumes.
// ord lists the kept events of evs in merge order. evs is permuted in place
// so that each volume's events (in merge order) are one window of it,
// followed by Other; Volume.Events and Other are those windows, capped so
// that an append never runs into a neighbour.
func group(t *Timeline, evs []parser.Event, ord []int32) {
	n := newNames()
	// aliases that are not safe to union on (static PV names, pod volume
	// names): alias → the UniqueNames seen with it.
	alias := map[string][]string{}
	addAlias := func(a, u string) {
		if !slices.Contains(alias[a], u) {
			alias[a] = append(alias[a], u)
		}
	}
	// What pass 1 already linked for a UniqueName (by name id): a volume's
	// events repeat the same handle, PV, attachment and nodes, and a repeat
	// only re-does unions and alias entries that are already there.
	type seenVol struct {
		done                 bool // the UniqueName's own handle is linked
		handle, pv, attach   string
		csiNodes             []string // nodes whose VolumeAttachment name is linked
		driver, uniqueHandle string
		csi                  bool
	}
	var seen []seenVol // one per UniqueName, in order of first event
	var slot []int32   // name id → index into seen + 1 (0: none yet)
	// Pass 1: events that carry a UniqueName. root[p] keeps the name id of
	// ord[p]'s UniqueName (noVolume, ignoredVolume) for pass 2.
	const noVolume, ignoredVolume = -1, -2
	root := make([]int32, len(ord))
	for p, k := range ord {
		ev := &evs[k]
		if ev.Volume == "" {
			root[p] = noVolume
			continue
		}
		if Ignored(ev.Volume) {
			root[p] = ignoredVolume
			continue
		}
		u := n.add(ev.Volume, true)
		root[p] = int32(u)
		for u >= len(slot) {
			slot = append(slot, 0)
		}
		if slot[u] == 0 {
			seen = append(seen, seenVol{})
			slot[u] = int32(len(seen))
		}
		sv := &seen[slot[u]-1]
		if !sv.done {
			sv.done = true
			driver, handle, ok := ParseUniqueName(ev.Volume)
			if ok && handle != "" {
				n.union(u, n.add(handle, false))
			}
			sv.driver, sv.uniqueHandle = driver, handle
			sv.csi = ok && strings.HasPrefix(ev.Volume, "kubernetes.io/csi/")
		}
		if ev.Handle != "" && ev.Handle != sv.handle {
			sv.handle = ev.Handle
			n.union(u, n.add(ev.Handle, false))
		}
		if ev.Attachment != "" && ev.Attachment != sv.attach {
			sv.attach = ev.Attachment
			n.union(u, n.add(ev.Attachment, false))
		}
		if ev.PV != "" && ev.PV != "nil" && ev.PV != sv.pv {
			sv.pv = ev.PV
			if isDynamicPV(ev.PV) {
				n.union(u, n.add(ev.PV, false))
			} else {
				addAlias(ev.PV, ev.Volume)
			}
		}
		if sv.csi && ev.Node != "" && !slices.Contains(sv.csiNodes, ev.Node) {
			sv.csiNodes = append(sv.csiNodes, ev.Node)
			n.union(u, n.add(AttachmentName(sv.uniqueHandle, sv.driver, ev.Node), false))
		}
	}
	seen, slot = nil, nil
	// resolveAlias returns the root of an alias that names one volume only.
	resolveAlias := func(a string) (int, bool) {
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

	// Pass 2: assign each event a root, or -1 for Other.
	for p, k := range ord {
		ev := &evs[k]
		switch id := root[p]; {
		case id == ignoredVolume:
			root[p] = -1
			t.Ignored++
			continue
		case id >= 0:
			root[p] = int32(n.find(int(id)))
			continue
		}
		root[p] = -1
		if ev.Kind == parser.ControllerStarted {
			continue
		}
		found := false
		for _, s := range [...]string{ev.Attachment, ev.Handle, ev.PV} {
			if s == "" || s == "nil" {
				continue
			}
			if r, ok := n.lookup(s); ok {
				root[p], found = int32(r), true
				break
			}
			if r, ok := resolveAlias(s); ok {
				root[p], found = int32(r), true
				break
			}
		}
		if found || ev.Kind == parser.Unknown || ev.Kind == parser.MountTimeout {
			continue
		}
		// An unjoinable event forms its own volume under its own names.
		first := -1
		for _, s := range [...]string{ev.PV, ev.Handle, ev.Attachment} {
			if s == "" || s == "nil" {
				continue
			}
			i := n.add(s, false)
			if first < 0 {
				first = i
			} else {
				n.union(first, i)
			}
		}
		if first >= 0 {
			root[p] = int32(n.find(first))
		}
	}

	// Volumes, in order of first event (ord is sorted). vol[p] is the
	// volume of ord[p], or toOther / toPending.
	const toOther, toPending = -1, -2
	vol := root                            // reused: root[p] is read before vol[p] is written
	byRoot := make([]int32, len(n.parent)) // name id of a root → volume + 1 (0: none)
	var vols []*Volume
	var volRoot []int
	var count []int
	var pending []int32 // positions of mount-timeouts to place by pod
	nOther := 0
	for p, k := range ord {
		r := int(root[p])
		if r >= 0 {
			r = n.find(r)
		}
		if r < 0 {
			if ev := &evs[k]; ev.Kind == parser.MountTimeout && ev.Pod != "" {
				vol[p] = toPending
				pending = append(pending, int32(p))
				continue
			}
			vol[p] = toOther
			nOther++
			continue
		}
		vi := byRoot[r] - 1
		if vi < 0 {
			vi = int32(len(vols))
			byRoot[r] = vi + 1
			vols = append(vols, &Volume{})
			volRoot = append(volRoot, r)
			count = append(count, 0)
		}
		vol[p] = vi
		count[vi]++
	}
	// pod (ns/name and name) → volumes, in order of first event; only
	// mount timeouts to place read it.
	var podVols map[string][]int32
	if len(pending) > 0 {
		podVols = map[string][]int32{}
		for p, k := range ord {
			vi := vol[p]
			if vi < 0 {
				continue
			}
			if ev := &evs[k]; ev.Pod != "" && !isUID(ev.Pod) {
				for _, pd := range [...]string{ev.Pod, podName(ev.Pod)} {
					if l := podVols[pd]; len(l) == 0 || l[len(l)-1] != vi {
						podVols[pd] = append(l, vi)
					}
				}
			}
		}
	}
	// A mount timeout names only the pod's volume names: it goes on every
	// volume of that pod (merged back in time order below), else to Other.
	var unplaced, placed []int32
	for _, p := range pending {
		if len(podVols[evs[ord[p]].Pod]) == 0 {
			unplaced = append(unplaced, p)
		} else {
			placed = append(placed, p)
		}
	}

	// Lay evs out: each volume's events, then Other (its own events, then
	// the unplaced mount timeouts), then the placed mount timeouts (copied
	// onto their volumes below), then the duplicates dropped by dedupe.
	start := make([]int, len(vols)+1)
	for i, c := range count {
		start[i+1] = start[i] + c
	}
	otherStart := start[len(vols)]
	dest := make([]int32, len(evs))
	for i := range dest {
		dest[i] = -1
	}
	next := slices.Clone(start[:len(vols)])
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
	permute(evs, dest)
	clear(evs[kept:]) // duplicates: drop their strings

	for i, v := range vols {
		v.Events = evs[start[i]:start[i+1]:start[i+1]]
	}
	if otherEnd > otherStart {
		t.Other = evs[otherStart:otherEnd:otherEnd]
	}
	touched := map[*Volume]bool{}
	for j := range placed {
		ev := &evs[placedStart+j]
		for _, vi := range podVols[ev.Pod] {
			v := vols[vi]
			v.Events = append(v.Events, *ev) // beyond the window's cap: a copy of its own
			touched[v] = true
		}
	}
	for v := range touched {
		slices.SortStableFunc(v.Events, func(a, b parser.Event) int {
			az, bz := a.Time.IsZero(), b.Time.IsZero()
			if az != bz {
				if az {
					return 1
				}
				return -1
			}
			return a.Time.Compare(b.Time)
		})
	}
	t.Volumes = vols

	// Names and derived fields.
	members := make([][]string, len(vols))
	for i, s := range n.name {
		if vi := byRoot[n.find(i)] - 1; vi >= 0 {
			members[vi] = append(members[vi], s)
		}
	}
	var sc scratch
	for i, v := range vols {
		mergePods(v)
		sc.describe(v, n.name[volRoot[i]], members[i])
	}
	slices.SortStableFunc(t.Volumes, func(a, b *Volume) int {
		if c := a.First.Compare(b.First); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// permute moves evs[k] to evs[dest[k]] for every k, in place (dest is a
// permutation of 0..len-1; it is used up). It walks each cycle of the
// inverse permutation with one spare event, so every event is copied once
// (swapping would copy each one three times).
func permute(evs []parser.Event, dest []int32) {
	src := make([]int32, len(dest)) // src[j]: the event that goes to j
	for k, d := range dest {
		src[d] = int32(k)
	}
	for i := range src {
		if int(src[i]) == i {
			continue
		}
		tmp := evs[i]
		j := i
		for {
			s := int(src[j])
			src[j] = int32(j)
			if s == i {
				evs[j] = tmp
				break
			}
			evs[j] = evs[s]
			j = s
		}
	}
}

// scratch is reused by describe across volumes, so that a volume of a few
// events costs a few sorts of short slices rather than a handful of maps.
type scratch struct {
	names, nodes, pods []string
	pvs                []pvCount
}

// pvCount is a run of events naming one PV.
type pvCount struct {
	pv string
	n  int
}

// describe fills a volume's names, nodes, pods and span from its events.
func (sc *scratch) describe(v *Volume, rootName string, linked []string) {
	names, nodes, pods, pvs := sc.names[:0], sc.nodes[:0], sc.pods[:0], sc.pvs[:0]
	// A volume's events mostly repeat the previous event's names: a value
	// equal to the last one added from the same field is not added again
	// (the lists are sorted and compacted below; pvs keeps counts).
	var lastVol, lastPV, lastHandle, lastAtt, lastNode, lastPod string
	add := func(s string, last *string) {
		if s != "" && s != "nil" && s != *last {
			names = append(names, s)
			*last = s
		}
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Volume != "" && v.UniqueName == "" {
			v.UniqueName = ev.Volume
		}
		add(ev.Volume, &lastVol)
		add(ev.Handle, &lastHandle)
		add(ev.Attachment, &lastAtt)
		if ev.PV != "" && ev.PV != "nil" {
			if n := len(pvs); n > 0 && pvs[n-1].pv == ev.PV {
				pvs[n-1].n++
			} else {
				pvs = append(pvs, pvCount{ev.PV, 1})
			}
			add(ev.PV, &lastPV)
		}
		if ev.Handle != "" && v.Handle == "" {
			v.Handle = ev.Handle
		}
		if ev.Node != "" && ev.Node != lastNode {
			nodes = append(nodes, ev.Node)
			lastNode = ev.Node
		}
		if ev.Pod != "" && ev.Pod != lastPod && !isUID(ev.Pod) {
			pods = append(pods, ev.Pod)
			lastPod = ev.Pod
		}
		if !ev.Time.IsZero() {
			if v.First.IsZero() || ev.Time.Before(v.First) {
				v.First = ev.Time
			}
			if ev.Time.After(v.Last) {
				v.Last = ev.Time
			}
		}
	}
	// every name linked into this volume (computed VA names included)
	names = append(names, linked...)
	if v.UniqueName != "" {
		if d, h, ok := ParseUniqueName(v.UniqueName); ok {
			v.Driver = d
			if h != "" {
				v.Handle = h
			}
		}
	}
	// PV: prefer a dynamic pvc-… name, then the most frequent display name
	// that is not the UniqueName itself.
	if len(pvs) > 1 {
		slices.SortFunc(pvs, func(a, b pvCount) int { return strings.Compare(a.pv, b.pv) })
	}
	best, bestN := "", 0
	for i := 0; i < len(pvs); {
		pv, c, j := pvs[i].pv, pvs[i].n, i+1
		for j < len(pvs) && pvs[j].pv == pv {
			c += pvs[j].n
			j++
		}
		i = j
		if pv == v.UniqueName {
			continue
		}
		score := c
		if isDynamicPV(pv) {
			score += 1 << 30
		}
		if score > bestN || score == bestN && pv < best {
			best, bestN = pv, score
		}
	}
	v.PV = best
	switch {
	case v.UniqueName != "":
		v.Key = v.UniqueName
	case v.PV != "":
		v.Key = v.PV
	case v.Handle != "":
		v.Key = v.Handle
	default:
		v.Key = rootName
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > 0 {
		v.Names = slices.Clone(names)
	}
	for _, s := range v.Names {
		if strings.HasPrefix(s, "csi-") && len(s) == 68 {
			v.Attachments = append(v.Attachments, s)
		}
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	if len(nodes) > 0 {
		v.Nodes = slices.Clone(nodes)
	}
	// drop a bare pod name when its namespaced form is present
	slices.Sort(pods)
	pods = slices.Compact(pods)
	var namespaced map[string]bool
	for _, p := range pods {
		if strings.Contains(p, "/") {
			if namespaced == nil {
				namespaced = map[string]bool{}
			}
			namespaced[podName(p)] = true
		}
	}
	for _, p := range pods {
		if !strings.Contains(p, "/") && namespaced[p] {
			continue
		}
		v.Pods = append(v.Pods, p)
	}
	sc.names, sc.nodes, sc.pods, sc.pvs = names[:0], nodes[:0], pods[:0], pvs[:0]
}

// mergePods gives a bare pod name (kubelet sentences name the pod without
// its namespace) its namespaced form, when exactly one namespaced pod of
// that name appears on the volume, so one pod is not counted as two.
func mergePods(v *Volume) {
	bare := false
	for i := range v.Events {
		if p := v.Events[i].Pod; p != "" && !strings.Contains(p, "/") {
			bare = true
			break
		}
	}
	if !bare {
		return // nothing to merge
	}
	full := map[string]string{} // name → ns/name; "" when ambiguous
	for i := range v.Events {
		p := v.Events[i].Pod
		if !strings.Contains(p, "/") || isUID(p) {
			continue
		}
		name := podName(p)
		if f, ok := full[name]; ok && f != p {
			full[name] = ""
			continue
		}
		full[name] = p
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Pod == "" || strings.Contains(ev.Pod, "/") {
			continue
		}
		if f := full[ev.Pod]; f != "" {
			ev.Pod = f
		}
	}
}
