package timeline

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// lane tracks one node's current state while events are replayed.
type lane struct {
	state State
	from  int32 // the event that opened it (its time is the start)
}

// podNode is what a volume's direct lines say about one pod's node: the
// node (a sym id), and whether they name more than one.
type podNode struct {
	node  int32
	multi bool
}

// reconstruct replays a volume's events (already in time order) into
// controller and kubelet intervals, overlaps and the Multi flag. ids are
// the events' names (v.Nodes must be filled in).
func (sc *scratch) reconstruct(v *Volume, ids []evIDs, sy *syms) {
	// Which nodes have direct controller log lines; echoes (events in logs,
	// describe rows) only speak for nodes without them. Only echoes read
	// these, so they are built on the first echo that needs them.
	ready := false
	prepare := func() {
		if ready {
			return
		}
		ready = true
		direct := sc.direct[:0]
		// pod name or UID → node (from direct lines); a map that grew
		// large is dropped rather than cleared (clear costs its size)
		if sc.podNodes == nil || len(sc.podNodes) > 64 {
			sc.podNodes = map[string]podNode{}
		} else {
			clear(sc.podNodes)
		}
		addPod := func(p string, node int32) {
			if p == "" {
				return
			}
			if e, ok := sc.podNodes[p]; !ok {
				sc.podNodes[p] = podNode{node: node}
			} else if e.node != node && !e.multi {
				sc.podNodes[p] = podNode{node: e.node, multi: true}
			}
		}
		for i := range v.Events {
			ev := &v.Events[i]
			if ev.Origin != 0 {
				continue
			}
			node := ids[i].node
			if node < 0 {
				continue
			}
			if controllerKind(ev.Kind) && (len(direct) == 0 || direct[len(direct)-1] != node) {
				direct = append(direct, node)
			}
			addPod(ev.PodUID, node)
			if pod := ids[i].pod; pod >= 0 && !sy.is(pod, symUID) {
				addPod(PodName(sy.str[pod]), node)
			}
		}
		slices.Sort(direct)
		sc.direct = slices.Compact(direct)
	}
	hasDirect := func(node int32) bool {
		prepare()
		_, ok := slices.BinarySearch(sc.direct, node)
		return ok
	}
	only := func(p string) int32 {
		if e, ok := sc.podNodes[p]; ok && !e.multi {
			return e.node
		}
		return -1
	}
	// the volume's one node, when it has exactly one
	single := int32(-1)
	if len(v.Nodes()) == 1 {
		for i := range ids {
			if ids[i].node >= 0 {
				single = ids[i].node
				break
			}
		}
	}
	echoNode := func(i int) int32 {
		if n := ids[i].node; n >= 0 {
			return n
		}
		prepare()
		ev := &v.Events[i]
		if n := only(ev.PodUID); ev.PodUID != "" && n >= 0 {
			return n
		}
		if pod := ids[i].pod; pod >= 0 {
			if n := only(PodName(sy.str[pod])); n >= 0 {
				return n
			}
		}
		return single
	}

	// one lane per node, in a short slice (a volume sees few nodes); the
	// intervals are sorted afterwards, so lane order does not matter
	ctl, kl := &sc.ctl, &sc.kl
	ctl.reset()
	kl.reset()
	ctlIv, klIv := sc.ctlIv[:0], sc.klIv[:0] // the intervals, copied out at the end
	closeLane := func(out *[]Interval, node int32, l *lane, at time.Time, to int32) {
		if l.state != 0 {
			// its times are those of its events From and To (at is the
			// time of To: see set)
			*out = append(*out, Interval{Node: sy.str[node], State: l.state, From: l.from, To: to, evs: &v.Events})
		}
		l.state = 0
	}
	set := func(out *[]Interval, lanes *lanes, node int32, s State, at time.Time, idx int32) {
		l := lanes.get(node)
		if l.state == s {
			return
		}
		closeLane(out, node, l, at, idx)
		if s != Detached && s != Unmounted {
			l.state, l.from = s, idx
		}
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Time.IsZero() {
			continue
		}
		switch {
		case controllerKind(ev.Kind):
			node := ids[i].node
			if ev.Origin != 0 {
				node = echoNode(i)
				if node < 0 {
					continue
				}
				if hasDirect(node) {
					continue
				}
			}
			if node < 0 {
				continue
			}
			if s, ok := controllerNext(ctl.state(node), ev); ok {
				set(&ctlIv, ctl, node, s, ev.Time.UTC(), int32(i))
			}
		case kubeletKind(ev.Kind):
			node := ids[i].node
			if node < 0 && ev.Origin != 0 {
				node = echoNode(i)
			}
			if node < 0 {
				continue
			}
			if s, ok := kubeletNext(kl.state(node), ev.Kind); ok {
				set(&klIv, kl, node, s, ev.Time.UTC(), int32(i))
			}
		}
	}
	for i := range ctl.list {
		closeLane(&ctlIv, ctl.list[i].node, &ctl.list[i].lane, time.Time{}, -1)
	}
	for i := range kl.list {
		closeLane(&klIv, kl.list[i].node, &kl.list[i].lane, time.Time{}, -1)
	}
	ctl.reset()
	kl.reset()
	v.Intervals = sc.ivs.copy(ctlIv)
	kubelet := sc.ivs.copy(klIv)
	sc.ctlIv, sc.klIv = ctlIv[:0], klIv[:0]
	sortIntervals(v.Intervals)
	sortIntervals(kubelet)
	if overlaps := sc.overlaps(v.Intervals); kubelet != nil || overlaps != nil {
		// (cut from a slab too: the volumes that have either may be many)
		var r volumeRare
		if v.rare != nil {
			r = *v.rare // given attachments (describe)
		}
		r.kubelet, r.overlaps = kubelet, overlaps
		v.rare = &sc.rares.copy([]volumeRare{r})[0]
	}
	v.Multi = multi(v)
}

// lanes holds one lane per node (a sym id): a short slice searched in
// order, as most volumes see few nodes, and an index by node once it grows
// past linearLanes (a volume attached to thousands of nodes in turn).
type lanes struct {
	list []nodeLane
	at   map[int32]int32 // node → index in list; nil while list is short
}

type nodeLane struct {
	node int32
	lane
}

// linearLanes is how many lanes are searched in order before lanes index
// them by node.
const linearLanes = 16

// reset empties ls, keeping the slice.
func (ls *lanes) reset() {
	ls.list, ls.at = ls.list[:0], nil
}

// find returns the node's index in ls.list, or -1.
func (ls *lanes) find(node int32) int {
	if ls.at != nil {
		if i, ok := ls.at[node]; ok {
			return int(i)
		}
		return -1
	}
	for i := range ls.list {
		if ls.list[i].node == node {
			return i
		}
	}
	return -1
}

// get returns the node's lane, adding an empty one.
func (ls *lanes) get(node int32) *lane {
	if i := ls.find(node); i >= 0 {
		return &ls.list[i].lane
	}
	ls.list = append(ls.list, nodeLane{node: node})
	if n := len(ls.list); ls.at != nil {
		ls.at[node] = int32(n - 1)
	} else if n > linearLanes {
		ls.at = make(map[int32]int32, 2*n)
		for i := range ls.list {
			ls.at[ls.list[i].node] = int32(i)
		}
	}
	return &ls.list[len(ls.list)-1].lane
}

// state is the node's current state, none (0) when it has no lane.
func (ls *lanes) state(node int32) State {
	if i := ls.find(node); i >= 0 {
		return ls.list[i].state
	}
	return 0
}

func sortIntervals(iv []Interval) {
	slices.SortFunc(iv, func(a, b Interval) int {
		if c := a.Start().Compare(b.Start()); c != 0 {
			return c
		}
		if c := strings.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return cmp.Compare(a.From, b.From)
	})
}

// controllerNext is the controller's state after ev, given the current state.
// ok is false when ev does not change it.
func controllerNext(cur State, ev *parser.Event) (State, bool) {
	switch ev.Kind {
	case parser.AttachStarted:
		// A retry of an uncertain attachment leaves the entry uncertain in
		// the actual state of world; a confirmed one stays confirmed.
		if cur == Uncertain || cur == Attached {
			return cur, false
		}
		return Attaching, true
	case parser.AttachSucceeded:
		return Attached, true
	case parser.AttachFailed:
		if ev.Code == parser.CodeAlreadyExecuting {
			return cur, false // the operation never started
		}
		return Uncertain, true
	case parser.DetachStarted, parser.ForceDetach:
		return Detaching, true
	case parser.DetachSucceeded, parser.MarkedDetached:
		return Detached, true
	case parser.DetachFailed:
		if ev.Code == parser.CodeAlreadyExecuting {
			return cur, false
		}
		return Uncertain, true
	}
	return cur, false
}

// kubeletNext is the kubelet-side state after an event of kind k.
func kubeletNext(cur State, k parser.Kind) (State, bool) {
	switch k {
	case parser.VerifyAttachedStarted, parser.MountStarted, parser.VerifyAttachedSucceeded, parser.WaitForAttachSucceeded:
		if cur == 0 || cur == Unmounted {
			return Mounting, true
		}
	case parser.MountDeviceSucceeded, parser.SetupSucceeded:
		return Mounted, true
	case parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed:
		return MountFailing, true
	case parser.MountTimeout:
		if cur == Mounting {
			return MountFailing, true
		}
	case parser.UnmountDeviceSucceeded, parser.KubeletVolumeDetached:
		return Unmounted, true
	}
	return cur, false
}

// attachedLike: the controller may have the volume on the node.
func attachedLike(s State) bool {
	switch s {
	case Attaching, Attached, Uncertain, Detaching:
		return true
	}
	return false
}

// edge is where an interval that holds the volume starts or ends.
type edge struct {
	t     time.Time
	open  bool
	node  string
	state State
	order int
}

// held is a node holding the volume, and in which state.
type held struct {
	node  string
	state State
}

// heldIndex finds a node in the nodes holding a volume (active): by a
// scan while they are few, as they nearly always are (a map made for
// each volume was most of overlaps' time on a cluster of many nodes),
// by a map of their positions once they are many (RWX, or attached to
// node after node without detaching).
type heldIndex struct {
	active *[]held
	pos    map[string]int // nil while active is short
}

// heldScan is how many nodes heldIndex scans before it keeps a map.
const heldScan = 16

// find returns the position of node in active.
func (h *heldIndex) find(node string) (int, bool) {
	if h.pos != nil {
		j, ok := h.pos[node]
		return j, ok
	}
	for j := range *h.active {
		if (*h.active)[j].node == node {
			return j, true
		}
	}
	return 0, false
}

// add appends e, a node not in active.
func (h *heldIndex) add(e held) {
	*h.active = append(*h.active, e)
	switch n := len(*h.active); {
	case h.pos != nil:
		h.pos[e.node] = n - 1
	case n > heldScan:
		h.pos = make(map[string]int, 2*n)
		for j, a := range *h.active {
			h.pos[a.node] = j
		}
	}
}

// remove takes the node at j out of active, moving the last one there.
func (h *heldIndex) remove(j int) {
	active := *h.active
	last := len(active) - 1
	gone := active[j].node
	active[j] = active[last]
	*h.active = active[:last]
	if h.pos != nil {
		h.pos[active[j].node] = j
		delete(h.pos, gone)
	}
}

// overlaps sweeps the controller intervals and returns every stretch during
// which more than one node held the volume (attaching, attached, uncertain or
// still detaching), split where a node's state changes.
func (sc *scratch) overlaps(iv []Interval) []Overlap {
	// One node never overlaps itself: most volumes stop here.
	node, nodes := "", 0
	for i := range iv {
		if attachedLike(iv[i].State) && (nodes == 0 || iv[i].Node != node) {
			node = iv[i].Node
			if nodes++; nodes > 1 {
				break
			}
		}
	}
	if nodes < 2 {
		return nil
	}
	edges := sc.edges[:0]
	for k, in := range iv {
		if !attachedLike(in.State) {
			continue
		}
		edges = append(edges, edge{in.Start(), true, in.Node, in.State, k})
		if !in.End().IsZero() {
			edges = append(edges, edge{in.End(), false, in.Node, in.State, k})
		}
	}
	// (nearly sorted as the intervals come: the stable sort's insertion
	// runs beat pdqsort here, 3,000 nodes in turn ~8%)
	slices.SortStableFunc(edges, func(a, b edge) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		// closes before opens at the same instant: a hand-over is not an overlap
		if a.open != b.open {
			if a.open {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.order, b.order)
	})
	// the nodes holding the volume now, and where each is in active
	active := sc.active[:0]
	pos := heldIndex{active: &active}
	var out []Overlap
	var cur *Overlap
	budget := maxOverlapEntries // node entries the split stretches may still take
	flush := func(at time.Time) {
		if cur != nil {
			cur.End = at
			if !cur.End.Equal(cur.Start) {
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	for i := 0; i < len(edges); {
		at := edges[i].t
		for ; i < len(edges) && edges[i].t.Equal(at); i++ {
			e := edges[i]
			j, ok := pos.find(e.node)
			switch {
			case e.open && ok:
				active[j].state = e.state
			case e.open:
				pos.add(held{e.node, e.state})
			case ok && active[j].state == e.state:
				pos.remove(j) // the order of active does not matter: Nodes are sorted
			default:
				continue
			}
			if cur != nil && budget < 0 && e.open {
				// a coalesced stretch: each node's last state in it
				if _, seen := cur.States[e.node]; !seen {
					cur.Nodes = append(cur.Nodes, e.node)
				}
				cur.States[e.node] = e.state
			}
		}
		if cur != nil && budget < 0 && len(active) > 1 {
			continue // the coalesced stretch goes on
		}
		if cur != nil && budget < 0 {
			slices.Sort(cur.Nodes)
		}
		flush(at)
		if len(active) > 1 {
			budget -= len(active)
			o := Overlap{Start: at, States: make(map[string]State, len(active)), Nodes: make([]string, 0, len(active))}
			for _, h := range active {
				o.Nodes = append(o.Nodes, h.node)
				o.States[h.node] = h.state
			}
			slices.Sort(o.Nodes)
			cur = &o
		}
	}
	if cur != nil {
		if budget < 0 {
			slices.Sort(cur.Nodes)
		}
		cur.End = time.Time{}
		out = append(out, *cur)
	}
	sc.edges, sc.active = edges[:0], active[:0]
	return out
}

// maxOverlapEntries bounds the node entries (Σ len(Nodes)) of a volume's
// overlaps split at every change: past it, a stretch during which more than
// one node holds the volume is one Overlap naming every node that held it
// in that stretch, each with its last state there. Splitting at every change
// costs the square of the node count when many nodes hold one volume at once
// (RWX, or attached to node after node without detaching).
const maxOverlapEntries = 1 << 14

// multi decides whether the volume is legitimately attached to many nodes.
//
//  1. Any KCM attach/detach line whose nestedpendingoperations key carries a
//     nodeName (catalog §4: RWO keys never do).
//  2. Or: an attach succeeded on node B while node A was attach-confirmed
//     (not uncertain) with no failure on A since, no Multi-Attach error for
//     the volume anywhere, and the kubelets show the volume mounted on both
//     nodes during that time. The controller refuses the second attach of an
//     RWO volume while the first is confirmed, so this only happens for
//     RWX/ROX volumes.
func multi(v *Volume) bool {
	for i := range v.Events {
		if ev := &v.Events[i]; ev.Component == parser.ComponentKCM && ev.Origin == 0 && ev.RWXKey {
			return true
		}
	}
	for i := range v.Events {
		if v.Events[i].Kind == parser.MultiAttach {
			return false
		}
	}
	var mounted mounts
	for _, o := range v.Overlaps() {
		confirmed := 0
		for _, s := range o.States {
			if s == Attached {
				confirmed++
			}
		}
		if confirmed < 2 {
			continue
		}
		end := o.End
		if end.IsZero() {
			end = v.Last()
		}
		if mounted == nil {
			mounted = mountsByNode(v.Kubelet())
		}
		all := true
		for _, n := range o.Nodes {
			if !mounted.during(n, o.Start, end) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// mounts are the kubelet's Mounted intervals per node, in start order, each
// with the latest end among it and those before it (zero: still open).
type mounts map[string][]mountSpan

type mountSpan struct{ start, maxEnd time.Time }

func mountsByNode(iv []Interval) mounts {
	m := mounts{}
	for _, in := range iv {
		if in.State != Mounted {
			continue
		}
		sp := mountSpan{in.Start(), in.End()}
		if l := m[in.Node]; len(l) > 0 {
			if prev := l[len(l)-1].maxEnd; prev.IsZero() || !sp.maxEnd.IsZero() && prev.After(sp.maxEnd) {
				sp.maxEnd = prev
			}
		}
		m[in.Node] = append(m[in.Node], sp)
	}
	return m
}

// during reports whether node was mounted at some time in [start, end]: a
// Mounted interval that starts by end and ends (or is open) at or after
// start.
func (m mounts) during(node string, start, end time.Time) bool {
	l := m[node]
	// the intervals that start by end are a prefix (the kubelet view is in start order)
	k, _ := slices.BinarySearchFunc(l, end, func(sp mountSpan, t time.Time) int {
		if sp.start.After(t) {
			return 1
		}
		return -1
	})
	if k == 0 {
		return false
	}
	e := l[k-1].maxEnd
	return e.IsZero() || !e.Before(start)
}
