package timeline

import (
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
)

// group links every event to a volume (or to Other) and fills t.Volumes.
func group(t *Timeline, items []item) {
	n := newNames()
	// aliases that are not safe to union on (static PV names, pod volume
	// names): alias → the UniqueNames seen with it.
	alias := map[string][]string{}
	csiNodes := map[string]map[string]bool{} // CSI UniqueName → nodes seen

	addAlias := func(a, u string) {
		if !slices.Contains(alias[a], u) {
			alias[a] = append(alias[a], u)
		}
	}
	// Pass 1: events that carry a UniqueName.
	for k := range items {
		ev := &items[k].ev
		if ev.Volume == "" || Ignored(ev.Volume) {
			continue
		}
		u := n.add(ev.Volume, true)
		driver, handle, ok := ParseUniqueName(ev.Volume)
		if ok && handle != "" {
			n.union(u, n.add(handle, false))
		}
		if ev.Handle != "" {
			n.union(u, n.add(ev.Handle, false))
		}
		if ev.Attachment != "" {
			n.union(u, n.add(ev.Attachment, false))
		}
		if ev.PV != "" && ev.PV != "nil" {
			if dynamicPV.MatchString(ev.PV) {
				n.union(u, n.add(ev.PV, false))
			} else {
				addAlias(ev.PV, ev.Volume)
			}
		}
		if ok && strings.HasPrefix(ev.Volume, "kubernetes.io/csi/") && ev.Node != "" {
			m := csiNodes[ev.Volume]
			if m == nil {
				m = map[string]bool{}
				csiNodes[ev.Volume] = m
			}
			if !m[ev.Node] {
				m[ev.Node] = true
				n.union(u, n.add(AttachmentName(handle, driver, ev.Node), false))
			}
		}
	}
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
	root := make([]int, len(items))
	for k := range items {
		ev := &items[k].ev
		root[k] = -1
		switch {
		case ev.Volume != "" && Ignored(ev.Volume):
			t.Ignored++
			continue
		case ev.Volume != "":
			root[k], _ = n.lookup(ev.Volume)
			continue
		case ev.Kind == parser.ControllerStarted:
			continue
		}
		found := false
		for _, s := range []string{ev.Attachment, ev.Handle, ev.PV} {
			if s == "" || s == "nil" {
				continue
			}
			if r, ok := n.lookup(s); ok {
				root[k], found = r, true
				break
			}
			if r, ok := resolveAlias(s); ok {
				root[k], found = r, true
				break
			}
		}
		if found || ev.Kind == parser.Unknown || ev.Kind == parser.MountTimeout {
			continue
		}
		// An unjoinable event forms its own volume under its own names.
		first := -1
		for _, s := range []string{ev.PV, ev.Handle, ev.Attachment} {
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
			root[k] = n.find(first)
		}
	}

	// Volumes, in order of first event (items are sorted).
	byRoot := map[int]*Volume{}
	podVols := map[string][]*Volume{} // pod (ns/name and name) → volumes
	var pending []int                 // mount-timeouts to place by pod
	for k := range items {
		ev := &items[k].ev
		r := root[k]
		if r >= 0 {
			r = n.find(r)
		}
		if r < 0 {
			if ev.Kind == parser.MountTimeout && ev.Pod != "" {
				pending = append(pending, k)
				continue
			}
			t.Other = append(t.Other, *ev)
			continue
		}
		v := byRoot[r]
		if v == nil {
			v = &Volume{}
			byRoot[r] = v
			t.Volumes = append(t.Volumes, v)
		}
		v.Events = append(v.Events, *ev)
		if ev.Pod != "" && !isUID(ev.Pod) {
			for _, p := range []string{ev.Pod, podName(ev.Pod)} {
				if l := podVols[p]; len(l) == 0 || l[len(l)-1] != v {
					podVols[p] = append(l, v)
				}
			}
		}
	}
	// A mount timeout names only the pod's volume names: put it on every
	// volume of that pod (merged back in time order below).
	touched := map[*Volume]bool{}
	for _, k := range pending {
		ev := &items[k].ev
		vs := podVols[ev.Pod]
		if len(vs) == 0 {
			t.Other = append(t.Other, *ev)
			continue
		}
		for _, v := range vs {
			v.Events = append(v.Events, *ev)
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

	// Names and derived fields.
	members := map[int][]string{}
	for i, s := range n.name {
		if r := n.find(i); byRoot[r] != nil {
			members[r] = append(members[r], s)
		}
	}
	for r, v := range byRoot {
		mergePods(v)
		describe(v, n.name[r], members[r])
	}
	slices.SortStableFunc(t.Volumes, func(a, b *Volume) int {
		if c := a.First.Compare(b.First); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
}

// describe fills a volume's names, nodes, pods and span from its events.
func describe(v *Volume, rootName string, linked []string) {
	set := map[string]bool{}
	nodes := map[string]bool{}
	pods := map[string]bool{}
	pvCount := map[string]int{}
	add := func(s string) {
		if s != "" && s != "nil" {
			set[s] = true
		}
	}
	for i := range v.Events {
		ev := &v.Events[i]
		if ev.Volume != "" && v.UniqueName == "" {
			v.UniqueName = ev.Volume
		}
		add(ev.Volume)
		add(ev.PV)
		add(ev.Handle)
		add(ev.Attachment)
		if ev.PV != "" && ev.PV != "nil" {
			pvCount[ev.PV]++
		}
		if ev.Handle != "" && v.Handle == "" {
			v.Handle = ev.Handle
		}
		if ev.Node != "" {
			nodes[ev.Node] = true
		}
		if ev.Pod != "" && !isUID(ev.Pod) {
			pods[ev.Pod] = true
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
	for _, s := range linked {
		set[s] = true
	}
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
	best, bestN := "", 0
	for pv, c := range pvCount {
		if pv == v.UniqueName {
			continue
		}
		score := c
		if dynamicPV.MatchString(pv) {
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
	for s := range set {
		v.Names = append(v.Names, s)
		if strings.HasPrefix(s, "csi-") && len(s) == 68 {
			v.Attachments = append(v.Attachments, s)
		}
	}
	slices.Sort(v.Names)
	slices.Sort(v.Attachments)
	for nd := range nodes {
		v.Nodes = append(v.Nodes, nd)
	}
	slices.Sort(v.Nodes)
	// drop a bare pod name when its namespaced form is present
	namespaced := map[string]bool{}
	for p := range pods {
		if strings.Contains(p, "/") {
			namespaced[podName(p)] = true
		}
	}
	for p := range pods {
		if !strings.Contains(p, "/") && namespaced[p] {
			delete(pods, p)
		}
	}
	for p := range pods {
		v.Pods = append(v.Pods, p)
	}
	slices.Sort(v.Pods)
}

// mergePods gives a bare pod name (kubelet sentences name the pod without
// its namespace) its namespaced form, when exactly one namespaced pod of
// that name appears on the volume, so one pod is not counted as two.
func mergePods(v *Volume) {
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
