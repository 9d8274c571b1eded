package timeline

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Options tune Build.
type Options struct {
	// Skew maps an input path to a clock offset (from --skew FILE=DURATION).
	// The offset is added to that input's times; it replaces the estimate.
	Skew map[string]time.Duration
}

// item is one event in the merge, with the bookkeeping Build needs.
type item struct {
	ev    parser.Event
	input int // index into results
}

// Build merges parsed inputs into one Timeline: skew-corrected, sorted,
// de-duplicated, grouped per volume, with per-node state intervals.
func Build(results []parser.Result, opt Options) *Timeline {
	t := &Timeline{}
	comps := make([]string, len(results))
	for i := range results {
		t.Inputs = append(t.Inputs, results[i].Input)
		comps[i] = inputComponent(&results[i])
	}

	// Events in one slice, input order kept.
	total := 0
	for i := range results {
		total += len(results[i].Events)
	}
	items := make([]item, 0, total)
	for i := range results {
		for _, ev := range results[i].Events {
			if ev.Component == "" {
				ev.Component = comps[i]
			}
			if ev.Volume != "" && !strings.Contains(ev.Volume, "/") {
				// not a UniqueName (a bare PV name in a volumeName= key)
				if ev.PV == "" {
					ev.PV = ev.Volume
				}
				ev.Volume = ""
			}
			items = append(items, item{ev: ev, input: i})
		}
	}

	fillKubeletNodes(items, results, comps)
	t.Skews = estimateSkews(items, results, comps, opt.Skew)
	offsets := make([]time.Duration, len(results))
	for _, s := range t.Skews {
		for i := range results {
			if results[i].Input.Path == s.Path {
				offsets[i] = s.Offset
			}
		}
	}
	for k := range items {
		if d := offsets[items[k].input]; d != 0 && !items[k].ev.Time.IsZero() {
			items[k].ev.Time = items[k].ev.Time.Add(d)
		}
	}
	for _, s := range anchorDescribes(items, results, opt.Skew) {
		t.Skews = append(t.Skews, s)
		for i := range results {
			if results[i].Input.Path == s.Path {
				offsets[i] += s.Offset
				// a describe input's span is derived from its ages: move it too
				if in := &t.Inputs[i]; !in.First.IsZero() {
					in.First = in.First.Add(s.Offset)
					in.Last = in.Last.Add(s.Offset)
				}
			}
		}
	}

	// Merge order: time, input index, line. Zero times (unanchored describe
	// rows) go last, in input order.
	items = sortItems(items)
	items = dedupe(items, &t.Dupes)

	// The span covers every input's first and last timestamp (on the
	// corrected clock), not only the lines that became events.
	see := func(tm time.Time) {
		if tm.IsZero() {
			return
		}
		if t.Start.IsZero() || tm.Before(t.Start) {
			t.Start = tm
		}
		if tm.After(t.End) {
			t.End = tm
		}
	}
	for _, it := range items {
		see(it.ev.Time)
	}
	for i, in := range t.Inputs {
		d := offsets[i]
		if results[i].Input.First != in.First {
			d = 0 // already moved with its events
		}
		for _, tm := range []time.Time{in.First, in.Last} {
			if !tm.IsZero() {
				see(tm.Add(d))
			}
		}
	}

	t.Restarts = detectRestarts(items, comps)
	group(t, items)
	for _, v := range t.Volumes {
		reconstruct(v)
	}
	return t
}

// sortItems orders events by (time, input, line, position); zero times
// (unanchored describe rows) go last. It sorts indexes, not the large
// events, then permutes once.
func sortItems(items []item) []item {
	idx := make([]int32, len(items))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := &items[x], &items[y]
		az, bz := a.ev.Time.IsZero(), b.ev.Time.IsZero()
		if az != bz {
			if az {
				return 1
			}
			return -1
		}
		if c := a.ev.Time.Compare(b.ev.Time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.input, b.input); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ev.Source.Line, b.ev.Source.Line); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	out := make([]item, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out
}

// inputComponent is the input's component, or the most common event component.
func inputComponent(r *parser.Result) string {
	switch r.Input.Component {
	case parser.ComponentKCM, parser.ComponentKubelet, parser.ComponentCSI, parser.ComponentEvents:
		return r.Input.Component
	}
	counts := map[string]int{}
	for i := range r.Events {
		counts[r.Events[i].Component]++
	}
	best, n := r.Input.Component, 0
	for c, k := range counts {
		if c != "" && (k > n || k == n && c < best) {
			best, n = c, k
		}
	}
	return best
}

// dedupe drops an event whose time and text equal an event already kept from
// another input (a file given twice, overlapping rotated files). Items are
// sorted, so identical lines are adjacent within their timestamp.
func dedupe(items []item, dupes *int) []item {
	type key struct {
		t    int64
		text string
	}
	out := items[:0]
	var seen map[key]int // key → input of the kept event; only for the current timestamp
	var cur time.Time
	for _, it := range items {
		if it.ev.Text == "" || it.ev.Time.IsZero() {
			out = append(out, it)
			continue
		}
		if !it.ev.Time.Equal(cur) {
			cur = it.ev.Time
			clear(seen)
		}
		if seen == nil {
			seen = map[key]int{}
		}
		k := key{it.ev.Time.UnixNano(), it.ev.Text + "\x00" + string(it.ev.Kind)}
		if in, ok := seen[k]; ok && in != it.input {
			*dupes++
			continue
		}
		seen[k] = it.input
		out = append(out, it)
	}
	return out
}

// volumeRef is the name that best identifies an event's volume without the
// timeline's linking: UniqueName, PV, handle or VolumeAttachment.
func volumeRef(ev *parser.Event) string {
	switch {
	case ev.Volume != "":
		return ev.Volume
	case ev.PV != "":
		return ev.PV
	case ev.Handle != "":
		return ev.Handle
	}
	return ev.Attachment
}

// fillKubeletNodes gives kubelet events without a node the node of their
// input: the single node named by the input's own events, or else the node
// the controller attached the input's volumes to (majority vote).
func fillKubeletNodes(items []item, results []parser.Result, comps []string) {
	nodes := make([]map[string]int, len(results))
	for k := range items {
		ev := &items[k].ev
		if ev.Component != parser.ComponentKubelet || ev.Node == "" {
			continue
		}
		if nodes[items[k].input] == nil {
			nodes[items[k].input] = map[string]int{}
		}
		nodes[items[k].input][ev.Node]++
	}
	// Controller attach successes per volume reference, in time order.
	attaches := map[string][]stamp{}
	for k := range items {
		ev := &items[k].ev
		if ev.Component == parser.ComponentKCM && ev.Kind == parser.AttachSucceeded && ev.Origin == "" && ev.Node != "" && !ev.Time.IsZero() {
			for _, r := range refs(ev) {
				attaches[r] = append(attaches[r], stamp{ev.Time, ev.Node})
			}
		}
	}
	for _, a := range attaches {
		slices.SortFunc(a, func(x, y stamp) int { return x.t.Compare(y.t) })
	}
	node := make([]string, len(results))
	for i := range results {
		if comps[i] != parser.ComponentKubelet {
			continue
		}
		if len(nodes[i]) == 1 {
			for n := range nodes[i] {
				node[i] = n
			}
			continue
		}
		if len(nodes[i]) > 1 {
			continue // a mixed input: leave events as they are
		}
		votes := map[string]int{}
		for k := range results[i].Events {
			ev := &results[i].Events[k]
			switch ev.Kind {
			case parser.VerifyAttachedSucceeded, parser.WaitForAttachSucceeded, parser.MountDeviceSucceeded, parser.SetupSucceeded:
			default:
				continue
			}
			if ev.Time.IsZero() {
				continue
			}
			for _, r := range refs(ev) {
				a := attaches[r]
				// latest controller attach before the kubelet fact (+2 min of clock slack)
				j, _ := slices.BinarySearchFunc(a, ev.Time.Add(2*time.Minute), func(s stamp, t time.Time) int { return s.t.Compare(t) })
				if j > 0 {
					votes[a[j-1].node]++
					break
				}
			}
		}
		best, n, sum := "", 0, 0
		for nd, c := range votes {
			sum += c
			if c > n || c == n && nd < best {
				best, n = nd, c
			}
		}
		if n*2 > sum {
			node[i] = best
		}
	}
	for k := range items {
		ev := &items[k].ev
		if ev.Node == "" && ev.Component == parser.ComponentKubelet && node[items[k].input] != "" {
			ev.Node = node[items[k].input]
		}
	}
}

type stamp struct {
	t    time.Time
	node string
}

// refs lists the names an event can be matched on before linking.
func refs(ev *parser.Event) []string {
	var out []string
	for _, s := range []string{ev.Volume, ev.PV, ev.Handle} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// controllerKinds change the attach/detach controller's state.
func controllerKind(k parser.Kind) bool {
	switch k {
	case parser.AttachStarted, parser.AttachSucceeded, parser.AttachFailed,
		parser.DetachStarted, parser.DetachSucceeded, parser.DetachFailed,
		parser.ForceDetach, parser.MarkedDetached:
		return true
	}
	return false
}

// kubeletKind events describe the node's side of a volume.
func kubeletKind(k parser.Kind) bool {
	switch k {
	case parser.VerifyAttachedStarted, parser.VerifyAttachedSucceeded, parser.VerifyAttachedFailed,
		parser.MountStarted, parser.WaitForAttachSucceeded, parser.WaitForAttachFailed,
		parser.MountDeviceSucceeded, parser.MountDeviceFailed, parser.SetupSucceeded, parser.SetupFailed,
		parser.UnmountStarted, parser.TeardownSucceeded, parser.TeardownFailed,
		parser.UnmountDeviceSucceeded, parser.UnmountDeviceFailed, parser.KubeletVolumeDetached,
		parser.MountTimeout:
		return true
	}
	return false
}

// normPod strips nothing but answers whether a pod string is only a UID
// (kubelet unmount lines name the pod by UID).
func isUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// podName returns the name part of "ns/name".
func podName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
