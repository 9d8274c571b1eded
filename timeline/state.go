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
	start time.Time
	from  int
}

// reconstruct replays a volume's events (already in time order) into
// controller and kubelet intervals, overlaps and the Multi flag.
func reconstruct(v *Volume) {
	// Which nodes have direct controller log lines; echoes (events in logs,
	// describe rows) only speak for nodes without them. Only echoes read
	// these, so a volume without echoes skips them.
	var direct map[string]bool
	var podNodes map[string]map[string]bool // pod name or UID → nodes (from direct lines)
	addPod := func(p, node string) {
		if p == "" || node == "" {
			return
		}
		if podNodes[p] == nil {
			podNodes[p] = map[string]bool{}
		}
		podNodes[p][node] = true
	}
	echoes := false
	for i := range v.Events {
		if v.Events[i].Origin != "" {
			echoes = true
			direct, podNodes = map[string]bool{}, map[string]map[string]bool{}
			break
		}
	}
	for i := range v.Events {
		if !echoes {
			break
		}
		ev := &v.Events[i]
		if ev.Origin != "" {
			continue
		}
		if controllerKind(ev.Kind) && ev.Node != "" {
			direct[ev.Node] = true
		}
		if ev.Node != "" {
			addPod(ev.PodUID, ev.Node)
			if ev.Pod != "" && !isUID(ev.Pod) {
				addPod(podName(ev.Pod), ev.Node)
			}
		}
	}
	only := func(m map[string]bool) string {
		if len(m) != 1 {
			return ""
		}
		for k := range m {
			return k
		}
		return ""
	}
	echoNode := func(ev *parser.Event) string {
		if ev.Node != "" {
			return ev.Node
		}
		if n := only(podNodes[ev.PodUID]); ev.PodUID != "" && n != "" {
			return n
		}
		if n := only(podNodes[podName(ev.Pod)]); ev.Pod != "" && n != "" {
			return n
		}
		if len(v.Nodes) == 1 {
			return v.Nodes[0]
		}
		return ""
	}

	// one lane per node, in a short slice (a volume sees few nodes); the
	// intervals are sorted afterwards, so lane order does not matter
	var ctl, kl lanes
	closeLane := func(out *[]Interval, node string, l *lane, at time.Time, to int) {
		if l.state != "" {
			*out = append(*out, Interval{Node: node, State: l.state, Start: l.start, End: at, From: l.from, To: to})
		}
		l.state = ""
	}
	set := func(out *[]Interval, lanes *lanes, node string, s State, at time.Time, idx int) {
		l := lanes.get(node)
		if l.state == s {
			return
		}
		closeLane(out, node, l, at, idx)
		if s != Detached && s != Unmounted {
			l.state, l.start, l.from = s, at, idx
		}
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Time.IsZero() {
			continue
		}
		switch {
		case controllerKind(ev.Kind):
			node := ev.Node
			if ev.Origin != "" {
				node = echoNode(ev)
				if node == "" || direct[node] {
					continue
				}
			}
			if node == "" {
				continue
			}
			if s, ok := controllerNext(ctl.state(node), ev); ok {
				set(&v.Intervals, &ctl, node, s, ev.Time, i)
			}
		case kubeletKind(ev.Kind):
			node := ev.Node
			if node == "" && ev.Origin != "" {
				node = echoNode(ev)
			}
			if node == "" {
				continue
			}
			if s, ok := kubeletNext(kl.state(node), ev.Kind); ok {
				set(&v.Kubelet, &kl, node, s, ev.Time, i)
			}
		}
	}
	for i := range ctl {
		closeLane(&v.Intervals, ctl[i].node, &ctl[i].lane, time.Time{}, -1)
	}
	for i := range kl {
		closeLane(&v.Kubelet, kl[i].node, &kl[i].lane, time.Time{}, -1)
	}
	sortIntervals(v.Intervals)
	sortIntervals(v.Kubelet)
	v.Overlaps = overlaps(v.Intervals)
	v.Multi = multi(v)
}

// lanes holds one lane per node.
type lanes []struct {
	node string
	lane
}

// get returns the node's lane, adding an empty one.
func (ls *lanes) get(node string) *lane {
	for i := range *ls {
		if (*ls)[i].node == node {
			return &(*ls)[i].lane
		}
	}
	*ls = append(*ls, struct {
		node string
		lane
	}{node: node})
	return &(*ls)[len(*ls)-1].lane
}

// state is the node's current state, "" when it has no lane.
func (ls lanes) state(node string) State {
	for i := range ls {
		if ls[i].node == node {
			return ls[i].state
		}
	}
	return ""
}

func sortIntervals(iv []Interval) {
	slices.SortFunc(iv, func(a, b Interval) int {
		if c := a.Start.Compare(b.Start); c != 0 {
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
		if cur == "" || cur == Unmounted {
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

// overlaps sweeps the controller intervals and returns every stretch during
// which more than one node held the volume (attaching, attached, uncertain or
// still detaching), split where a node's state changes.
func overlaps(iv []Interval) []Overlap {
	type edge struct {
		t     time.Time
		open  bool
		node  string
		state State
		order int
	}
	edges := make([]edge, 0, 2*len(iv))
	for k, in := range iv {
		if !attachedLike(in.State) {
			continue
		}
		edges = append(edges, edge{in.Start, true, in.Node, in.State, k})
		if !in.End.IsZero() {
			edges = append(edges, edge{in.End, false, in.Node, in.State, k})
		}
	}
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
	// the nodes holding the volume now (few: a short slice, not a map)
	type held struct {
		node  string
		state State
	}
	var active []held
	var out []Overlap
	var cur *Overlap
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
			j := slices.IndexFunc(active, func(h held) bool { return h.node == e.node })
			switch {
			case e.open && j >= 0:
				active[j].state = e.state
			case e.open:
				active = append(active, held{e.node, e.state})
			case j >= 0 && active[j].state == e.state:
				active = slices.Delete(active, j, j+1)
			}
		}
		flush(at)
		if len(active) > 1 {
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
		cur.End = time.Time{}
		out = append(out, *cur)
	}
	return out
}

// hasRWXKey reports whether text has a nestedpendingoperations key that
// carries a node (the ADC uses nodeName only for volumes that may attach to
// many nodes, RWX/ROX): the regexp
//
//	Operation for "\{volumeName:\S+ podName:\S* nodeName:[^}\s]
//
// matched by hand, once per event:
// \S+ and \S* cannot cross a blank, so after each `Operation for
// "{volumeName:` the first whitespace byte must be the blank before
// "podName:", the next one the blank before "nodeName:", and the byte after
// that must be neither "}" nor whitespace.
func hasRWXKey(text string) bool {
	const lead = `Operation for "{volumeName:`
	for {
		i := strings.Index(text, lead)
		if i < 0 {
			return false
		}
		text = text[i+len(lead):]
		if rest, ok := afterWord(text, " podName:", true); ok {
			if rest, ok = afterWord(rest, " nodeName:", false); ok && rest != "" && rest[0] != '}' && !isSpace(rest[0]) {
				return true
			}
		}
	}
}

// afterWord skips a run of non-whitespace bytes (at least one when
// nonEmpty) and returns what follows word, which must come right after the
// run.
func afterWord(s, word string, nonEmpty bool) (string, bool) {
	j := 0
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	if nonEmpty && j == 0 || !strings.HasPrefix(s[j:], word) {
		return "", false
	}
	return s[j+len(word):], true
}

// isSpace is RE2's \s: [\t\n\f\r ].
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

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
		ev := &v.Events[i]
		if ev.Component == parser.ComponentKCM && ev.Origin == "" && hasRWXKey(ev.Text) {
			return true
		}
	}
	for i := range v.Events {
		if v.Events[i].Kind == parser.MultiAttach {
			return false
		}
	}
	for _, o := range v.Overlaps {
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
			end = v.Last
		}
		all := true
		for _, n := range o.Nodes {
			if !mountedDuring(v.Kubelet, n, o.Start, end) {
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

func mountedDuring(iv []Interval, node string, start, end time.Time) bool {
	for _, in := range iv {
		if in.Node != node || in.State != Mounted {
			continue
		}
		if in.Start.After(end) {
			continue
		}
		if !in.End.IsZero() && in.End.Before(start) {
			continue
		}
		return true
	}
	return false
}
