package timeline

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
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

	// State is the cluster state read next to the logs: its objects are
	// joined to the volumes they describe (Volume.Objects), the inputs of
	// its Event lists keep their exact times (no describe anchoring), and
	// the rules read it from Timeline.State.
	State *state.Snapshot

	// Collect, when set, is called once during the build, where much of
	// what it allocated has just become garbage (grouping has linked every
	// name, dropped its tables of names and laid the events out volume by
	// volume; the volumes are made next):
	// a program's memory policy may collect there, so that the volumes
	// take the memory freed rather than more (internal/mempolicy). Build
	// itself never starts a collection.
	Collect func()
	// CollectTables, when set, is called once before that, where grouping
	// has linked every name and dropped its tables of names (the layout
	// is made next), for the same purpose.
	CollectTables func()
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
	comps := make([]parser.Component, len(results))
	for i := range results {
		t.Inputs = append(t.Inputs, results[i].Input)
		comps[i] = inputComponent(&results[i])
	}

	// Events in one array, input order kept; bounds[i]:bounds[i+1] is input i.
	evs, bounds, src := gather(results, opt.Consume)
	in := make([]int32, len(evs))
	for i := range results {
		for k := bounds[i]; k < bounds[i+1]; k++ {
			in[k] = int32(i)
		}
	}
	pr := prepareEvents(evs, src, bounds, in, comps)
	if opt.Consume && src != nil {
		release(results, nil)
	}
	// The parts' tables are merged while the events are placed in time
	// (which reads and edits the events only); nothing reads sy or ids
	// before interned.Wait.
	var sy *syms
	var interned sync.WaitGroup
	interned.Go(func() { sy = pr.merge() })
	ids := pr.ids

	nodes := fillKubeletNodes(evs, bounds, comps, pr.rawVol, pr.kcmAttaches)
	t.Skews = estimateSkews(evs, pr.attaches, bounds, t.Inputs, comps, opt.Skew)
	offsets := make([]time.Duration, len(results))
	byPath := inputsByPath(results)
	for _, s := range t.Skews {
		for _, i := range byPath[s.Path] {
			offsets[i] = s.Offset
			if s.Note != "" {
				t.Inputs[i].Problems = append(slices.Clip(t.Inputs[i].Problems), parser.Problem{Message: s.Note})
			}
		}
	}
	for i, d := range offsets {
		if d != 0 {
			shiftTimes(evs[bounds[i]:bounds[i+1]], d)
		}
	}
	var anchored []Skew
	if pr.describes {
		anchored = anchorDescribes(evs, in, bounds, t.Inputs, exactTimes(opt.Skew, opt.State))
	}
	for _, s := range anchored {
		t.Skews = append(t.Skews, s)
		for _, i := range byPath[s.Path] {
			offsets[i] += s.Offset
			// a describe input's span is derived from its ages: move it too
			if in := &t.Inputs[i]; !in.First.IsZero() {
				in.First = in.First.Add(s.Offset)
				in.Last = in.Last.Add(s.Offset)
			}
		}
	}

	// Merge order: time, input index, line. Zero times (unanchored describe
	// rows) go last, in input order. The keys prepareEvents took are
	// taken again for the inputs whose times moved since.
	for i, d := range offsets {
		if d != 0 {
			for k := bounds[i]; k < bounds[i+1]; k++ {
				pr.keys[k] = eventKey(&evs[k], k)
			}
		}
	}
	sorted := sortOrder(pr.keys, bounds, evs)
	ord := dedupe(evs, in, sorted, pr.texts, &t.Dupes)
	if opt.State != nil && pr.describes {
		ord = dropDescribeEchoes(evs, in, ord, t.Inputs, opt.State, &t.Dupes)
	}

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
		see(evs[ord[0]].Time.UTC())
		last := len(ord) - 1
		for last > 0 && evs[ord[last]].Time.IsZero() {
			last--
		}
		for last > 0 && evs[ord[last-1]].Time.Equal(evs[ord[last]].Time) {
			last--
		}
		see(evs[ord[last]].Time.UTC())
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

	interned.Wait()
	kubeletNodeIDs(evs, bounds, nodes, sy, ids)
	group(t, evs, ord, sy, ids, pr.va, func() { t.Restarts = detectRestarts(evs, in, ord, comps) }, opt.CollectTables, opt.Collect)
	if opt.State != nil {
		t.StateRead = opt.State
		if joinState(t, opt.State) {
			t.State = opt.State
		}
	}
	return t
}

// prepareEvents completes each event (its input's component when it has
// none; a bare PV name moved from Volume to PV) and interns its names, so
// that grouping works on ids[k] (see syms). rawVol keeps a bare PV name moved out of Volume when PV was set
// too: the kubelet node vote reads the events as the parser gave them.
// While it holds each event it also notes what the later passes would
// otherwise read every event again for (see prepared).
//
// When src is not nil, evs is filled from it first (fillEvents; inputs
// as bounds says), a block at a time, each just before it is read: the
// copy and the first reading of the events are one pass over them.
//
// The events are split into consecutive parts, done concurrently, each
// interned into a table of its own; merge then absorbs the tables into
// the first in order, so that the ids do not depend on the split.
func prepareEvents(evs []parser.Event, src []parser.Result, inputs []int, in []int32, comps []parser.Component) *prepared {
	bounds := chunks(len(evs))
	pr := &prepared{
		ids:    make([]evIDs, len(evs)),
		va:     make([]uint32, len(evs)),
		keys:   make([]sortKey, len(evs)),
		texts:  make([]bool, len(evs)),
		parts:  make([]*syms, len(bounds)-1),
		bounds: bounds,
	}
	raws := make([]map[int32]string, len(bounds)-1)
	attaches := make([][]int32, len(bounds)-1)
	differ := make([]bool, len(bounds)-1) // attaches[c] and kcmAttaches[c] differ
	kcmAttaches := make([][]int32, len(bounds)-1)
	describes := make([]bool, len(bounds)-1)
	// the parts' strings, region c (regionOf) for part c: merge keeps
	// them where they are when every part's fit (see merge)
	pr.strs = prefault.Make[string](0, idRoom(len(evs))) // (see internal/prefault)
	each(bounds, func(c, lo, hi int) {
		sy := newSymsIn(hi-lo, pr.regionOf(c))
		var raw map[int32]string
		bare := map[*parser.Ident]*parser.Ident{}
		prev := newLastNames(hi - lo)
		// the part's findings, kept here and stored once it is done: the
		// parts' slots of describes, differ and attaches share cache
		// lines, and writing them for every event made the parts' cores
		// take the line from each other (1 GiB of the storm shape: ~9 of
		// the loop's 16 ms)
		var att, kcmAtt []int32
		var differs, describe bool
		for k := lo; k < hi; k++ {
			if src != nil && (k-lo)%fillBlock == 0 {
				fillEvents(evs, src, inputs, k, min(k+fillBlock, hi))
			}
			if k-lo == expectAt && hi-lo > 2*expectAt {
				// sized for its own part, the first too: merge grows its
				// table for everyone's names once, while the events are
				// placed in time, and a part's table half the size is half
				// the cache misses (1 GiB of churn: the first part, the
				// slowest, ~30 → ~24 ms)
				sy.expect(expectAt, hi-lo)
			}
			ev := &evs[k]
			if ev.Component == 0 {
				ev.Component = comps[in[k]]
			}
			if ev.Volume != "" && !strings.Contains(ev.Volume, "/") {
				// not a UniqueName (a bare PV name in a volumeName= key)
				pv := ev.PV
				if pv == "" {
					pv = ev.Volume
				} else if pv != ev.Volume {
					if raw == nil {
						raw = map[int32]string{}
					}
					raw[int32(k)] = ev.Volume
				}
				ev.SetVolume("", pv, bare) // events that shared the names share the new ones
			}
			pr.ids[k], pr.va[k] = sy.event(ev, &prev)
			pr.keys[k] = eventKey(ev, k)
			pr.texts[k] = !ev.Text.IsZero()
			if skewAttach(ev) {
				inKCM, ofKCM := comps[in[k]] == parser.ComponentKCM, ev.Component == parser.ComponentKCM
				if inKCM {
					att = append(att, int32(k))
				}
				if ofKCM {
					kcmAtt = append(kcmAtt, int32(k))
				}
				differs = differs || inKCM != ofKCM
			}
			describe = describe || ev.Origin == parser.OriginDescribe
		}
		pr.parts[c], raws[c] = sy, raw
		attaches[c], kcmAttaches[c], differ[c], describes[c] = att, kcmAtt, differs, describe
	})
	pr.rawVol = raws[0]
	for c := range raws {
		if c > 0 {
			for k, v := range raws[c] {
				if pr.rawVol == nil {
					pr.rawVol = map[int32]string{}
				}
				pr.rawVol[k] = v
			}
		}
		pr.describes = pr.describes || describes[c]
	}
	// the two lists of attaches are mostly the same (the KCM's events in
	// KCM inputs): then one array serves both (neither is written to)
	pr.attaches = concat(attaches)
	if slices.Contains(differ, true) {
		pr.kcmAttaches = concat(kcmAttaches)
	} else {
		pr.kcmAttaches = pr.attaches
	}
	return pr
}

// concat is the parts end to end: the one part itself, or a new array.
func concat(parts [][]int32) []int32 {
	if len(parts) == 1 {
		return parts[0]
	}
	return slices.Concat(parts...)
}

// idsPerEvent is the room for strings prepareEvents gives each event
// (names distinct in its part; the array is written whole before it is
// used, see internal/prefault, so room not used is memory held for
// nothing): at 1 GiB 0.6 are used on the generator's default shape, 1.33
// on the churn shape (35k volumes of three events each: their computed
// VolumeAttachment names are not interned), 0.19 on the storm's, 0.13
// on many-nodes'. A part that needs more grows its own array, and merge
// copies them all. Tests change it.
var idsPerEvent = 1.5

// idRoom is the room for strings of the first n events (idsPerEvent each).
func idRoom(n int) int { return int(idsPerEvent * float64(n)) }

// expectAt is how many events of a part are interned before its tables
// are sized for the rest (syms.expect).
const expectAt = 2048

// fillBlock is how many events prepareEvents copies at a time: few enough
// that they are still in cache when it reads them.
const fillBlock = 256

// prepared is what prepareEvents returns: the events' names as ids
// (ids[k] for evs[k]), in the tables of the parts they were interned in
// until merge, and rawVol; and, taken on the way, each event's sort key
// (for the times it had then) and whether it has a text, the controller's
// attaches estimateSkews pairs (skewAttach, in KCM inputs; in event
// order), the controller's attaches fillKubeletNodes reads (skewAttach,
// KCM events of any input; in event order), and whether there is any describe row (anchorDescribes has
// nothing to do without).
type prepared struct {
	ids      []evIDs
	va       []uint32 // va[k]: evs[k]'s computed VolumeAttachment name's hash (see syms.event)
	rawVol   map[int32]string
	parts    []*syms // part c interned the events bounds[c]:bounds[c+1]
	bounds   []int
	strs     []string // the parts' strings: regionOf(c) for part c
	keys     []sortKey
	texts    []bool
	attaches []int32
	// kcmAttaches: the KCM events that are skewAttach (of any input)
	kcmAttaches []int32
	describes   bool
}

// regionOf is part c's region of pr.strs: idsPerEvent for each of its
// events, empty.
func (pr *prepared) regionOf(c int) []string {
	lo, hi := idRoom(pr.bounds[c]), idRoom(pr.bounds[c+1])
	return pr.strs[lo:lo:hi]
}

// merge absorbs every part's table into the first, in order, rewrites
// the ids of the later parts' events to the first table's, and returns it.
//
// When every part's strings fit in its region of pr.strs, the first
// part's ids are given all of pr.strs as their room, and absorbing moves
// each later part's new strings down into place: the strings before part
// c are at most its region's start, so a string is never written over
// before it is read. Otherwise they are copied into an array of exactly
// the room they need.
func (pr *prepared) merge() *syms {
	sy := pr.parts[0]
	if len(pr.parts) > 1 {
		n, names, fit := 0, 0, true
		for c, p := range pr.parts {
			n += len(p.str)
			names += p.tab[symName].used
			r := pr.regionOf(c)
			fit = fit && cap(p.str) == cap(r) && (cap(r) == 0 || unsafe.SliceData(p.str) == unsafe.SliceData(r))
		}
		if fit {
			sy.str = pr.strs[:len(sy.str):cap(pr.strs)]
		} else {
			sy.str = append(prefault.Make[string](0, n), sy.str...)
		}
		sy.flag = append(make([]uint8, 0, n), sy.flag...)
		// the names: room for every part's at most, made once
		// (appending them grew the table many times over)
		sy.tab[symName].reserve(names)
	}
	pr.strs = nil
	for c := 1; c < len(pr.parts); c++ {
		remap := sy.absorb(pr.parts[c])
		pr.parts[c] = nil
		for k := pr.bounds[c]; k < pr.bounds[c+1]; k++ {
			pr.ids[k].remap(remap)
		}
	}
	return sy
}

// inputsByPath indexes the inputs by path (a path given twice has two), so
// that applying the skews, one per input at most, is linear in the inputs.
func inputsByPath(results []parser.Result) map[string][]int {
	m := make(map[string][]int, len(results))
	for i := range results {
		p := results[i].Input.Path
		m[p] = append(m[p], i)
	}
	return m
}

// gather puts every input's events into one array, input after input, and
// returns it with the start of each input's run (bounds has len(results)+1
// entries). With consume the events are taken as they lie when they are
// one array already, or appended to the first input's array when it has
// room (the inputs' slices are then dropped from results; see release).
// Otherwise they are copied into a new array: gather returns it unfilled,
// with src the results to fill it from (see fillEvents), which
// prepareEvents does as it reads them; with consume the caller releases
// the results once that is done.
func gather(results []parser.Result, consume bool) (evs []parser.Event, bounds []int, src []parser.Result) {
	bounds = make([]int, len(results)+1)
	total := 0
	for i := range results {
		bounds[i] = total
		total += len(results[i].Events)
	}
	bounds[len(results)] = total
	if consume && len(results) > 0 {
		if shared := sharedEvents(results, bounds); shared != nil {
			for i := range results {
				results[i].Events = nil
			}
			return shared, bounds, nil
		}
		if evs = results[0].Events; cap(evs) >= total {
			for i := 1; i < len(results); i++ {
				evs = append(evs, results[i].Events...)
			}
			release(results, evs)
			return evs, bounds, nil
		}
	}
	return make([]parser.Event, total), bounds, results
}

// release drops the inputs' events from results once they are copied to
// kept, all but the first's cleared first: the copy is the only one to
// keep their strings. Events that lie within kept are not cleared: the
// results of one ParseAll share an array, and once a Window filtered them
// in place, the first's window, appended to, covers the others' events.
func release(results []parser.Result, kept []parser.Event) {
	for i := range results {
		if i > 0 && !overlaps(results[i].Events, kept) {
			clear(results[i].Events)
		}
		results[i].Events = nil
	}
}

// overlaps reports whether a and b share an element.
func overlaps(a, b []parser.Event) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(a[0])
	a0, b0 := uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&b[0]))
	return a0 < b0+uintptr(len(b))*size && b0 < a0+uintptr(len(a))*size
}

// fillEvents copies evs[lo:hi] from the results' events (bounds as gather
// returns them). The range is prefaulted first (see internal/prefault;
// without it the copy cost 60–70 ms of page faults per GiB of input).
func fillEvents(evs []parser.Event, src []parser.Result, bounds []int, lo, hi int) {
	prefault.Slice(evs[lo:hi:hi])
	for i := range src {
		if a, b := max(lo, bounds[i]), min(hi, bounds[i+1]); a < b {
			copy(evs[a:b], src[i].Events[a-bounds[i]:b-bounds[i]])
		}
	}
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

// sortOrder returns the events' keys (keys[k] for evs[k]; bounds[i] is
// where input i starts) ordered by (time, input, line, position), as the
// merge of at most two sorted runs; zero times (unanchored describe rows)
// go last. It sorts small keys copied out of the events, not the large
// events (nor indexes into them, which would compare through a cache miss
// each time): only keys of one time are told apart by the events' lines.
// An input is usually in time order already: each input's keys are
// sorted only when they are not, and the inputs are then merged (ties go
// to the lower input), so the common case is linear and the worst case
// stays O(n log n). keys is reordered, and its array reused.
func sortOrder(keys []sortKey, bounds []int, evs []parser.Event) merged {
	// within one input: time, line, position
	cmpKeys := func(a, b sortKey) int {
		if a.sec != b.sec {
			return cmp.Compare(a.sec, b.sec)
		}
		if a.nsec != b.nsec {
			return cmp.Compare(a.nsec, b.nsec)
		}
		if la, lb := evs[a.k].Source.Line, evs[b.k].Source.Line; la != lb {
			return cmp.Compare(la, lb)
		}
		return cmp.Compare(a.k, b.k)
	}
	for i := 0; i+1 < len(bounds); i++ {
		seg := keys[bounds[i]:bounds[i+1]]
		for j := 1; j < len(seg); j++ {
			if cmpKeys(seg[j-1], seg[j]) > 0 {
				slices.SortFunc(seg, cmpKeys)
				break
			}
		}
	}
	return mergeInputs(keys, bounds)
}

// eventKey is the sort key of ev, evs[k].
func eventKey(ev *parser.Event, k int) sortKey {
	kk := sortKey{sec: math.MaxInt64, k: int32(k)}
	if !ev.Time.IsZero() {
		kk.sec, kk.nsec = ev.Time.Unix(), int32(ev.Time.Nanosecond())
	}
	return kk
}

// shiftTimes adds d to every non-zero time of evs.
func shiftTimes(evs []parser.Event, d time.Duration) {
	for k := range evs {
		if !evs[k].Time.IsZero() {
			evs[k].Time = evs[k].Time.Add(d)
		}
	}
}

// sortKey is an event's place in the merge order within its input (its
// line, the next tie-break, is read from the event: see sortOrder).
type sortKey struct {
	sec  int64 // Unix seconds; math.MaxInt64 for a zero time (last)
	nsec int32
	k    int32 // index into the events
}

// mergeInputs merges the inputs' sorted runs of keys (bounds[i]:bounds[i+1]
// is input i) pairwise, bottom-up, until at most two are left; on equal
// times the lower input's key comes first. The last two are not merged
// into an array: the caller walks them (merged.next).
func mergeInputs(keys []sortKey, bounds []int) merged {
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
				m := merged{a: keys[lo:mid], b: keys[mid:end]}
				for o := lo; o < end; o++ {
					buf[o], _ = m.next()
				}
			} else {
				copy(buf[lo:end], keys[lo:end])
			}
			next = append(next, end)
		}
		runs = next
		keys, buf = buf, keys
	}
	if len(runs) == 3 {
		return merged{a: keys[:runs[1]], b: keys[runs[1]:]}
	}
	return merged{a: keys}
}

// merged is two sorted runs of keys, walked in merge order by next.
type merged struct{ a, b []sortKey }

// next returns the next key in merge order (by time; a's key first on
// equal times), false when both runs are done.
func (m *merged) next() (sortKey, bool) {
	var kk sortKey
	switch {
	case len(m.b) > 0 && (len(m.a) == 0 || m.b[0].sec < m.a[0].sec || m.b[0].sec == m.a[0].sec && m.b[0].nsec < m.a[0].nsec):
		kk, m.b = m.b[0], m.b[1:]
	case len(m.a) > 0:
		kk, m.a = m.a[0], m.a[1:]
	default:
		return kk, false
	}
	return kk, true
}

// len is how many keys are left.
func (m *merged) len() int { return len(m.a) + len(m.b) }

// inputComponent is the input's component, or the most common event component.
func inputComponent(r *parser.Result) parser.Component {
	best := parser.ComponentOf(r.Input.Component)
	switch best {
	case parser.ComponentKCM, parser.ComponentKubelet, parser.ComponentCSI, parser.ComponentEvents:
		return best
	}
	counts := map[parser.Component]int{}
	for i := range r.Events {
		counts[r.Events[i].Component]++
	}
	n := 0
	for c, k := range counts {
		if c != 0 && (k > n || k == n && c.String() < best.String()) {
			best, n = c, k
		}
	}
	return best
}

// dedupe drops an event whose time and text equal an event already kept from
// another input (a file given twice, overlapping rotated files). keys are
// the events' sort keys in merge order, so identical lines are adjacent
// within their timestamp; texts[k] tells whether evs[k] has a text. It
// returns the indexes of the kept events, in merge order. Most timestamps
// carry one event: those are decided on the keys alone, and the map of
// texts is only filled (each text decompressed, see parser.Text) once a
// second event shares one.
func dedupe(evs []parser.Event, in []int32, keys merged, texts []bool, dupes *int) []int32 {
	type key struct {
		t    int64
		text string
		kind parser.Kind
	}
	type where struct{ input, line int32 }
	out := make([]int32, 0, keys.len())
	var seen map[key]where // key → where the kept event was read; only for the current timestamp
	curSec, curNsec := int64(math.MaxInt64), int32(0)
	first := int32(-1) // the current timestamp's first event while it is alone (not yet in seen)
	for kk, ok := keys.next(); ok; kk, ok = keys.next() {
		k := kk.k
		if kk.sec == math.MaxInt64 || !texts[k] { // a zero time, or no text
			out = append(out, k)
			continue
		}
		if kk.sec != curSec || kk.nsec != curNsec {
			curSec, curNsec = kk.sec, kk.nsec
			first = k // nothing else at this time yet: kept
			out = append(out, k)
			continue
		}
		ev := &evs[k]
		if first >= 0 {
			if seen == nil {
				seen = map[key]where{}
			} else {
				clear(seen)
			}
			f := &evs[first]
			seen[key{f.Time.UnixNano(), f.Text.String(), f.Kind}] = where{in[first], int32(f.Source.Line)}
			first = -1
		}
		tk := key{ev.Time.UnixNano(), ev.Text.String(), ev.Kind}
		at := where{in[k], int32(ev.Source.Line)}
		// The same entry read again: from another input (a file given
		// twice, overlapping rotated files), or from another line of the
		// same input (a log pasted twice into one file; klog's microsecond
		// timestamps make a real repeat practically impossible). Several
		// describe rows collapsed onto one physical line share a line and
		// are kept.
		if prev, ok := seen[tk]; ok && (prev.input != at.input || prev.line != at.line && ev.Origin != parser.OriginDescribe) {
			*dupes++
			continue
		}
		seen[tk] = at
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
// (majority vote). It returns each input's node given ("" for none): the
// ids of the events it went to follow with kubeletNodeIDs. Only kubelet
// inputs are read, but for the controller's attaches when an input names
// no node (kcmAttaches, in event order: those of evs that are skewAttach
// and of the KCM).
func fillKubeletNodes(evs []parser.Event, bounds []int, comps []parser.Component, rawVol map[int32]string, kcmAttaches []int32) []string {
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
	// a kubelet input that names no node of its own reads them, and only
	// for the references its voting events name (a large cluster's KCM log
	// holds far more volumes than one node's kubelet log).
	var attaches map[string][]stamp
	for i := range comps {
		if comps[i] != parser.ComponentKubelet || len(nodes[i]) != 0 {
			continue
		}
		if attaches == nil {
			attaches = map[string][]stamp{}
		}
		for k := bounds[i]; k < bounds[i+1]; k++ {
			if ev := &evs[k]; votingKind(ev.Kind) && !ev.Time.IsZero() {
				var buf [4]string
				for _, r := range voteRefs(ev, k, rawVol, &buf) {
					attaches[r] = nil
				}
			}
		}
	}
	for _, k := range kcmAttaches {
		if attaches == nil {
			break
		}
		ev := &evs[k]
		var buf [4]string
		for _, r := range refs(ev, &buf) {
			if a, ok := attaches[r]; ok {
				attaches[r] = append(a, stamp{ev.Time, ev.Node})
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
			if !votingKind(ev.Kind) || ev.Time.IsZero() {
				continue
			}
			var buf [4]string
			for _, r := range voteRefs(ev, k, rawVol, &buf) {
				a := attaches[r]
				// latest controller attach before the kubelet fact (+2 min of clock slack)
				j, _ := slices.BinarySearchFunc(a, ev.Time.Add(2*time.Minute), func(s stamp, t parser.Stamp) int { return s.t.Compare(t) })
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
		memo := map[*parser.Place]*parser.Place{} // events that shared a Place share the new one
		for k := bounds[i]; k < bounds[i+1]; k++ {
			if ev := &evs[k]; ev.Node == "" && ev.Component == parser.ComponentKubelet {
				ev.SetNode(node[i], memo)
			}
		}
	}
	return node
}

// votingKind: the kubelet facts that vote for the node of a kubelet input
// naming none (the volume is attached to the node the kubelet runs on).
func votingKind(k parser.Kind) bool {
	switch k {
	case parser.VerifyAttachedSucceeded, parser.WaitForAttachSucceeded, parser.MountDeviceSucceeded, parser.SetupSucceeded:
		return true
	}
	return false
}

// voteRefs is refs with the volume name as the parser gave it first, when
// interning rewrote it (rawVol).
func voteRefs(ev *parser.Event, k int, rawVol map[int32]string, buf *[4]string) []string {
	rs := refs(ev, buf)
	if v, ok := rawVol[int32(k)]; ok {
		rs = append(rs, "")
		copy(rs[1:], rs)
		rs[0] = v
	}
	return rs
}

// kubeletNodeIDs sets ids[k].node for the events fillKubeletNodes gave
// their input's node (nodes[i] for input i): the kubelet events of the
// input that had none when they were interned.
func kubeletNodeIDs(evs []parser.Event, bounds []int, nodes []string, sy *syms, ids []evIDs) {
	for i, node := range nodes {
		if node == "" {
			continue
		}
		id := sy.intern(symNode, node)
		for k := bounds[i]; k < bounds[i+1]; k++ {
			if ids[k].node < 0 && evs[k].Component == parser.ComponentKubelet {
				ids[k].node = id
			}
		}
	}
}

type stamp struct {
	t    parser.Stamp
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

// exactTimes adds the Event lists of the snapshot to the --skew flags as
// zero offsets: their rows carry exact times, which anchoring must not move.
func exactTimes(flags map[string]time.Duration, snap *state.Snapshot) map[string]time.Duration {
	if snap == nil {
		return flags
	}
	var out map[string]time.Duration
	for _, f := range snap.Files {
		if f.Role != state.RoleEvents {
			continue
		}
		if _, given := flags[f.Path]; given {
			continue
		}
		if out == nil {
			out = maps.Clone(flags)
			if out == nil {
				out = map[string]time.Duration{}
			}
		}
		out[f.Path] = 0
	}
	if out == nil {
		return flags
	}
	return out
}
