package timeline

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
)

// Options tune Build.
type Options struct {
	// Skew maps an input path to a clock offset (from --skew FILE=DURATION).
	// The offset is added to that input's times; it replaces the estimate.
	Skew map[string]time.Duration

	// Consume hands the results' events over to Build instead of having it
	// copy them: Build edits and reorders them in place (in the first
	// input's array when it has room), the volumes' Events become windows of
	// that one array, and every results[i].Events is nil on return. The
	// parse results and the timeline then never hold two copies of the
	// events. Without it the caller's results are left untouched and Build
	// works on a single copy.
	Consume bool
}

// Build merges parsed inputs into one Timeline: skew-corrected, sorted,
// de-duplicated, grouped per volume, with per-node state intervals.
//
// Memory: the events are held once, in one array (see Options.Consume);
// sorting, de-duplication and grouping work on int32 indexes into it, and
// one in-place permutation at the end lays it out volume by volume (each in
// time order), then Other, so Volume.Events and Other are sub-slices of it.
func Build(results []parser.Result, opt Options) *Timeline {
	t := &Timeline{}
	comps := make([]string, len(results))
	for i := range results {
		t.Inputs = append(t.Inputs, results[i].Input)
		comps[i] = inputComponent(&results[i])
	}

	// Events in one array, input order kept; bounds[i]:bounds[i+1] is input i.
	evs, bounds := gather(results, opt.Consume)
	in := make([]int32, len(evs))
	for i := range results {
		for k := bounds[i]; k < bounds[i+1]; k++ {
			in[k] = int32(i)
		}
	}
	sy, ids, rawVol := prepareEvents(evs, in, comps)

	fillKubeletNodes(evs, bounds, comps, rawVol, sy, ids)
	t.Skews = estimateSkews(evs, in, bounds, t.Inputs, comps, opt.Skew)
	offsets := make([]time.Duration, len(results))
	for _, s := range t.Skews {
		for i := range results {
			if results[i].Input.Path == s.Path {
				offsets[i] = s.Offset
			}
		}
	}
	for i, d := range offsets {
		if d == 0 {
			continue
		}
		for k := bounds[i]; k < bounds[i+1]; k++ {
			if !evs[k].Time.IsZero() {
				evs[k].Time = evs[k].Time.Add(d)
			}
		}
	}
	for _, s := range anchorDescribes(evs, in, bounds, t.Inputs, opt.Skew) {
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
	ord := sortOrder(evs, bounds)
	ord = dedupe(evs, in, ord, &t.Dupes)

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
	// ord is in time order, zero times last: its first event has the
	// earliest time, and the first of its latest ones the latest, which is
	// what seeing them all in order would keep.
	if len(ord) > 0 {
		see(evs[ord[0]].Time)
		last := len(ord) - 1
		for last > 0 && evs[ord[last]].Time.IsZero() {
			last--
		}
		for last > 0 && evs[ord[last-1]].Time.Equal(evs[ord[last]].Time) {
			last--
		}
		see(evs[ord[last]].Time)
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

	group(t, evs, ord, sy, ids, func() { t.Restarts = detectRestarts(evs, in, ord, comps) })
	return t
}

// prepareEvents completes each event (its input's component when it has
// none; a bare PV name moved from Volume to PV), points its names into its
// text (shareText) and interns them, so that grouping works on ids[k] (see
// syms). rawVol keeps a bare PV name moved out of Volume when PV was set
// too: the kubelet node vote reads the events as the parser gave them.
//
// The events are split into consecutive parts, done concurrently, each
// interned into a table of its own; the tables are then absorbed into the
// first in order, so the ids do not depend on the split.
func prepareEvents(evs []parser.Event, in []int32, comps []string) (sy *syms, ids []evIDs, rawVol map[int32]string) {
	ids = make([]evIDs, len(evs))
	bounds := chunks(len(evs))
	parts := make([]*syms, len(bounds)-1)
	raws := make([]map[int32]string, len(bounds)-1)
	each(bounds, func(c, lo, hi int) {
		size := hi - lo
		if c == 0 {
			size = len(evs) // the first part's table becomes everyone's
		}
		sy := newSyms(size)
		var raw map[int32]string
		var prev []evIDs
		for k := lo; k < hi; k++ {
			ev := &evs[k]
			if ev.Component == "" {
				ev.Component = comps[in[k]]
			}
			if ev.Volume != "" && !strings.Contains(ev.Volume, "/") {
				// not a UniqueName (a bare PV name in a volumeName= key)
				if ev.PV == "" {
					ev.PV = ev.Volume
				} else if ev.PV != ev.Volume {
					if raw == nil {
						raw = map[int32]string{}
					}
					raw[int32(k)] = ev.Volume
				}
				ev.Volume = ""
			}
			shareText(ev)
			ids[k] = sy.event(ev, &prev)
		}
		parts[c], raws[c] = sy, raw
	})
	sy, rawVol = parts[0], raws[0]
	for c := 1; c < len(parts); c++ {
		remap := sy.absorb(parts[c])
		for k := bounds[c]; k < bounds[c+1]; k++ {
			ids[k].remap(remap)
		}
		for k, v := range raws[c] {
			if rawVol == nil {
				rawVol = map[int32]string{}
			}
			rawVol[k] = v
		}
	}
	return sy, ids, rawVol
}

// gather puts every input's events into one array, input after input, and
// returns it with the start of each input's run (bounds has len(results)+1
// entries). With consume the first input's array is reused when it has
// room (else every input is copied into a new one), and the inputs' slices
// are dropped from results, all but the first's cleared first: the copy is
// the only one to keep their strings.
func gather(results []parser.Result, consume bool) ([]parser.Event, []int) {
	bounds := make([]int, len(results)+1)
	total := 0
	for i := range results {
		bounds[i] = total
		total += len(results[i].Events)
	}
	bounds[len(results)] = total
	var evs []parser.Event
	if consume && len(results) > 0 {
		if shared := sharedEvents(results, bounds); shared != nil {
			for i := range results {
				results[i].Events = nil
			}
			return shared, bounds
		}
		if evs = results[0].Events; cap(evs) >= total {
			for i := 1; i < len(results); i++ {
				evs = append(evs, results[i].Events...)
			}
		} else {
			evs = copyEvents(results, bounds)
		}
		for i := range results {
			if i > 0 {
				clear(results[i].Events) // the copy is the only one: let the strings go with it
			}
			results[i].Events = nil
		}
		return evs, bounds
	}
	return copyEvents(results, bounds), bounds
}

// copyEvents returns a new array of every input's events, input after
// input (bounds as gather returns them). The array is prefaulted (see
// internal/prefault; without it the copy cost 60–70 ms of page faults per
// GiB of input) and filled in consecutive parts, concurrently.
func copyEvents(results []parser.Result, bounds []int) []parser.Event {
	evs := make([]parser.Event, bounds[len(bounds)-1])
	each(chunks(len(evs)), func(_, lo, hi int) {
		prefault.Slice(evs[lo:hi:hi])
		for i := range results {
			if a, b := max(lo, bounds[i]), min(hi, bounds[i+1]); a < b {
				copy(evs[a:b], results[i].Events[a-bounds[i]:b-bounds[i]])
			}
		}
	})
	return evs
}

// sharedEvents returns the events of all results as one slice when they
// already lie in one array, in order (as parser.ParseAll returns them:
// each input's events a window of the array reaching to its end), else nil.
// Only pointer comparisons within results[0]'s own array decide it.
func sharedEvents(results []parser.Result, bounds []int) []parser.Event {
	total := bounds[len(bounds)-1]
	first := results[0].Events
	if total == 0 || cap(first) < total {
		return nil
	}
	all := first[:total]
	for i := 1; i < len(results); i++ {
		evs := results[i].Events
		if len(evs) > 0 && &evs[0] != &all[bounds[i]] {
			return nil
		}
	}
	return all
}

// shareText points the event's names at the same bytes inside ev.Text when
// they occur there. The parser cuts them out of a separate copy of the
// message; once none refers to it, that copy is freed and only Text, which
// evidence needs anyway, stays. The values are unchanged.
func shareText(ev *parser.Event) {
	if ev.Text == "" {
		return
	}
	for _, f := range [...]*string{&ev.Volume, &ev.PV, &ev.Handle, &ev.Attachment, &ev.Node, &ev.Pod, &ev.PodUID, &ev.Error, &ev.Detail, &ev.Reason} {
		*f = within(ev.Text, *f)
	}
	if ev.Retry != nil && ev.Retry.Until != "" {
		if u := within(ev.Text, ev.Retry.Until); !sameData(u, ev.Retry.Until) {
			r := *ev.Retry // the parser's Retry may be shared with a caller's event: never write through it
			r.Until = u
			ev.Retry = &r
		}
	}
}

// within returns s as a substring of text when text contains it, else s.
// A name the parser already cut out of text is returned as it is.
func within(text, s string) string {
	if s == "" || len(s) > len(text) {
		return s
	}
	if p, t := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text))); p >= t && p+uintptr(len(s)) <= t+uintptr(len(text)) {
		return s // already a window of text
	}
	if i := strings.Index(text, s); i >= 0 {
		return text[i : i+len(s)]
	}
	return s
}

// sameData reports whether a and b are the same bytes in memory.
func sameData(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// sortOrder returns the event indexes ordered by (time, input, line,
// position); zero times (unanchored describe rows) go last. It sorts small
// keys copied out of the events once, not the large events (nor indexes
// into them, which would compare through a cache miss each time). An input
// is usually in time order already: each input's keys are sorted only when
// they are not, and the inputs are then merged (ties go to the lower input),
// so the common case is linear and the worst case stays O(n log n).
func sortOrder(evs []parser.Event, bounds []int) []int32 {
	keys := make([]sortKey, len(evs))
	for i := range evs {
		ev := &evs[i]
		kk := sortKey{sec: math.MaxInt64, line: ev.Source.Line, k: int32(i)}
		if !ev.Time.IsZero() {
			kk.sec, kk.nsec = ev.Time.Unix(), int32(ev.Time.Nanosecond())
		}
		keys[i] = kk
	}
	for i := 0; i+1 < len(bounds); i++ {
		seg := keys[bounds[i]:bounds[i+1]]
		for j := 1; j < len(seg); j++ {
			if cmpSortKey(seg[j-1], seg[j]) > 0 {
				slices.SortFunc(seg, cmpSortKey)
				break
			}
		}
	}
	return mergeInputs(keys, bounds)
}

// sortKey is an event's place in the merge order within its input.
type sortKey struct {
	sec  int64 // Unix seconds; math.MaxInt64 for a zero time (last)
	line int
	nsec int32
	k    int32 // index into the events
}

// cmpSortKey orders the keys of one input: time, line, position.
func cmpSortKey(a, b sortKey) int {
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	if a.nsec != b.nsec {
		return cmp.Compare(a.nsec, b.nsec)
	}
	if a.line != b.line {
		return cmp.Compare(a.line, b.line)
	}
	return cmp.Compare(a.k, b.k)
}

// mergeInputs merges the inputs' sorted runs of keys (bounds[i]:bounds[i+1]
// is input i) pairwise, bottom-up; on equal times the lower input's key
// comes first. It returns the events' indexes in merged order.
func mergeInputs(keys []sortKey, bounds []int) []int32 {
	idx := make([]int32, len(keys))
	runs := slices.Clone(bounds)
	var buf []sortKey
	for len(runs) > 3 { // more than two runs: merge pairs into buf
		if buf == nil {
			buf = make([]sortKey, len(keys))
		}
		next := runs[:1]
		for i := 0; i+1 < len(runs); i += 2 {
			lo, end := runs[i], runs[i+1]
			if i+2 < len(runs) {
				mid := end
				end = runs[i+2]
				mergeRuns(buf[lo:end], keys[lo:mid], keys[mid:end], func(dst []sortKey, o int, k sortKey) { dst[o] = k })
			} else {
				copy(buf[lo:end], keys[lo:end])
			}
			next = append(next, end)
		}
		runs = next
		keys, buf = buf, keys
	}
	if len(runs) == 3 {
		mergeRuns(idx, keys[:runs[1]], keys[runs[1]:], func(dst []int32, o int, k sortKey) { dst[o] = k.k })
	} else {
		for i := range keys {
			idx[i] = keys[i].k
		}
	}
	return idx
}

// mergeRuns merges the sorted runs a and b into dst by time, a first on
// equal times, storing each key with put.
func mergeRuns[T any](dst []T, a, b []sortKey, put func(dst []T, o int, k sortKey)) {
	i, j, o := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].sec < a[i].sec || b[j].sec == a[i].sec && b[j].nsec < a[i].nsec {
			put(dst, o, b[j])
			j++
		} else {
			put(dst, o, a[i])
			i++
		}
		o++
	}
	for ; i < len(a); i++ {
		put(dst, o, a[i])
		o++
	}
	for ; j < len(b); j++ {
		put(dst, o, b[j])
		o++
	}
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
// another input (a file given twice, overlapping rotated files). ord is
// sorted, so identical lines are adjacent within their timestamp. It
// returns the kept indexes (reusing ord). Most timestamps carry one event:
// the map of texts is only filled once a second event shares one.
func dedupe(evs []parser.Event, in []int32, ord []int32, dupes *int) []int32 {
	type key struct {
		t    int64
		text string
		kind parser.Kind
	}
	type where struct{ input, line int32 }
	out := ord[:0]
	var seen map[key]where // key → where the kept event was read; only for the current timestamp
	var cur time.Time
	first := int32(-1) // the current timestamp's first event while it is alone (not yet in seen)
	for _, k := range ord {
		ev := &evs[k]
		if ev.Text == "" || ev.Time.IsZero() {
			out = append(out, k)
			continue
		}
		if !ev.Time.Equal(cur) {
			cur = ev.Time
			first = k // nothing else at this time yet: kept
			out = append(out, k)
			continue
		}
		if first >= 0 {
			if seen == nil {
				seen = map[key]where{}
			} else {
				clear(seen)
			}
			f := &evs[first]
			seen[key{f.Time.UnixNano(), f.Text, f.Kind}] = where{in[first], int32(f.Source.Line)}
			first = -1
		}
		kk := key{ev.Time.UnixNano(), ev.Text, ev.Kind}
		at := where{in[k], int32(ev.Source.Line)}
		// The same entry read again: from another input (a file given
		// twice, overlapping rotated files), or from another line of the
		// same input (a log pasted twice into one file; klog's microsecond
		// timestamps make a real repeat practically impossible). Several
		// describe rows collapsed onto one physical line share a line and
		// are kept.
		if prev, ok := seen[kk]; ok && (prev.input != at.input || prev.line != at.line && ev.Origin != parser.OriginDescribe) {
			*dupes++
			continue
		}
		seen[kk] = at
		out = append(out, k)
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

// fillKubeletNodes gives kubelet events of kubelet inputs without a node
// the node of their input: the single node named by the input's own
// events, or else the node the controller attached the input's volumes to
// (majority vote); ids[k].node follows. Only kubelet inputs are read, but
// for the controller's attaches when an input names no node.
func fillKubeletNodes(evs []parser.Event, bounds []int, comps []string, rawVol map[int32]string, sy *syms, ids []evIDs) {
	nodes := make([]map[string]int, len(comps)) // kubelet input → the nodes its kubelet events name
	for i := range comps {
		if comps[i] != parser.ComponentKubelet {
			continue
		}
		for k := bounds[i]; k < bounds[i+1]; k++ {
			ev := &evs[k]
			if ev.Component != parser.ComponentKubelet || ev.Node == "" {
				continue
			}
			if nodes[i] == nil {
				nodes[i] = map[string]int{}
			}
			nodes[i][ev.Node]++
		}
	}
	// Controller attach successes per volume reference, in time order; only
	// a kubelet input that names no node of its own reads them.
	var attaches map[string][]stamp
	for i := range comps {
		if comps[i] == parser.ComponentKubelet && len(nodes[i]) == 0 {
			attaches = map[string][]stamp{}
			break
		}
	}
	for k := range evs {
		if attaches == nil {
			break
		}
		ev := &evs[k]
		if ev.Component == parser.ComponentKCM && ev.Kind == parser.AttachSucceeded && ev.Origin == "" && ev.Node != "" && !ev.Time.IsZero() {
			var buf [4]string
			for _, r := range refs(ev, &buf) {
				attaches[r] = append(attaches[r], stamp{ev.Time, ev.Node})
			}
		}
	}
	for _, a := range attaches {
		slices.SortFunc(a, func(x, y stamp) int { return x.t.Compare(y.t) })
	}
	node := make([]string, len(comps))
	for i := range comps {
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
		for k := bounds[i]; k < bounds[i+1]; k++ {
			ev := &evs[k]
			switch ev.Kind {
			case parser.VerifyAttachedSucceeded, parser.WaitForAttachSucceeded, parser.MountDeviceSucceeded, parser.SetupSucceeded:
			default:
				continue
			}
			if ev.Time.IsZero() {
				continue
			}
			var buf [4]string
			rs := refs(ev, &buf)
			if v, ok := rawVol[int32(k)]; ok {
				rs = append(rs, "") // as the parser gave it: v first
				copy(rs[1:], rs)
				rs[0] = v
			}
			for _, r := range rs {
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
	for i := range comps {
		if node[i] == "" {
			continue
		}
		id := sy.intern(symNode, node[i])
		for k := bounds[i]; k < bounds[i+1]; k++ {
			if ev := &evs[k]; ev.Node == "" && ev.Component == parser.ComponentKubelet {
				ev.Node, ids[k].node = node[i], id
			}
		}
	}
}

type stamp struct {
	t    time.Time
	node string
}

// refs lists the names an event can be matched on before linking, in buf
// (no allocation; buf has room for one more name in front).
func refs(ev *parser.Event, buf *[4]string) []string {
	out := buf[:0]
	if ev.Volume != "" {
		out = append(out, ev.Volume)
	}
	if ev.PV != "" {
		out = append(out, ev.PV)
	}
	if ev.Handle != "" {
		out = append(out, ev.Handle)
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
