// Package mempolicy is the memory policy of one run of the program: how
// the Go heap is placed, how far it may grow and when the collector may be
// held off, decided once, from the size of the input, before anything is
// read. The program (cmd/kcmtrace) calls Start once around a run; nothing
// else changes the runtime's process-wide memory settings.
//
// It owns seven settings:
//
//   - Huge pages. From hugeMinInput on, twice memBase + memPerGiB per GiB of
//     input, at most maxHugeReserve, of address space is reserved for the
//     heap on transparent huge pages (internal/hugeheap, the mechanism): on
//     a VM where a 4 KiB fault costs ~10 µs that took 128 MiB of KCM log
//     from 0.12 to 0.08 s, and 1 GiB from 0.54 to 0.40 s.
//
//   - The soft memory limit. The live heap grows with the relevant events,
//     which grow with the input — by how much depends on the traffic's
//     shape: ~30 MiB per GiB of KCM log with the generator's default shape,
//     ~65 MiB with a large cluster's churn (35k volumes per GiB, two events
//     each) once the timeline is built (80-byte events, their names in
//     shared tuples, their texts in compressed blocks). memPerGiB is 24 MiB:
//     measured at 1 GiB (default, json and many-nodes shapes) 32 → 24 took
//     peak RSS from 63–69 to 59–61 MiB with the collector at 3–4% of the
//     CPU; 16 with 40% headroom reached 53–56 MiB but 7–10%. GOGC=100 lets the heap reach twice
//     the live heap before collecting; a soft limit keeps it nearer for
//     large inputs. The limit starts from the input's size, memBase +
//     memPerGiB per GiB (never reached by small inputs; below memMinInput
//     none is set). But the size of the input is only a guess at the live
//     heap: after every collection the limit is raised to at least
//     liveHeadroom percent above the live heap the collector just measured
//     (runtime/metrics /gc/heap/live:bytes), and at least settleMinRoom
//     above the live heap and the runtime's memory outside it, which the
//     limit counts too, so it never sits below what was parsed (without
//     that floor it sat below the churn shape's live heap and the
//     collector ran back to back: 1 GiB churn, 52 cycles, 22% of the CPU;
//     without the memory outside the heap, a log export's heap — a few
//     MiB live, much garbage — met its goal at once: a 336 MB CloudWatch
//     export, 194 collections without it, 28 with it). Once the timeline is built (Run.Built), much of the heap has
//     just become garbage (the parse's last buffers, the grouping
//     tables): the run collects once and sets the limit from what is left,
//     lower than before if need be — settleHeadroom above the live heap (at
//     least settleMinRoom), the floor from then on, plus the runtime's
//     memory outside the heap, but never below what the run held just
//     before (the peak RSS is paid for up to there: collecting to stay
//     under it only costs CPU). The limit sized for the parse let the
//     tail's heap grow to 1.5 times what rules and report read: 1 GiB
//     churn 82–86 → 74–81 MiB peak RSS, default 57–60 → 56–57, for 0–3%
//     more CPU. The run also collects at the parse's end (Run.Parsed),
//     so that the timeline starts with no cycle under way. While a large
//     input is parsed GOGC is off, so that the limit alone starts a cycle:
//     GOGC=100 from the runtime's 4 MiB floor ran three cycles in the
//     parse's first 40 ms (heaps of 4, 6 and 12 MB), each stopping both
//     busy cores for 0.2–3.5 ms. 1 GiB, 12 interleaved runs each: CPU
//     1–3% less on the default, churn and many-nodes shapes (klog printf
//     and JSON; wall time the same to 3% less), the storm's the same (its
//     21 cycles 17–18), peak RSS 0–3 MiB more (4 GiB of the default
//     shape, whose parse peaks: 80–84 → 88–89 MiB). Parsed gives GOGC back:
//     off to the end, the build's heap grew to the limit where GOGC=100
//     had kept it lower, and 4 GiB of churn peaked at 160–161 MiB in two
//     runs of four (152–159 with GOGC back, 152–156 before). The limit is
//     soft: it never fails. It covers the Go heap (the parser's read
//     buffers included); the binary, goroutine stacks, the runtime's own
//     memory, huge-page rounding and the names off the heap come on top.
//     GOMEMLIMIT, when set, wins: the policy then sets nothing.
//
//   - Widening. A limit held near the live heap is cheap while that heap
//     stays small; where it grows through the parse, as an incident's log
//     grows it (the storm shape: 200k events a GiB, each error line with
//     a text of its own, a live heap past 50 MB), each raise of the limit
//     is soon met again and the collector runs again and again over the
//     growing heap: 1 GiB of the storm, 9 cycles in the parse, the
//     collector 7% of the CPU (gctrace). So after every collection the
//     policy reads the collector's share of the CPU since Start (the
//     runtime/metrics CPU classes; its marking on cores that were idle
//     left out, which costs nothing), once Start is widenAfter behind
//     (a share over the first few milliseconds is one cycle's
//     noise: 3–40% on every shape), and once the share reaches widenShare
//     percent the headroom above the live heap widens for the rest of the
//     run: widenHeadroom instead of liveHeadroom, and widenSettleHeadroom
//     instead of settleHeadroom once built. 1 GiB of the storm, 11
//     interleaved runs a row: klog printf 818 → 733 ms (cycles 18 → 13, 9
//     → 5 in the parse; the collector 7% → 4%; peak RSS 91 → 99 MiB),
//     structured 598 → 562 ms; json unchanged (613 → 629: its collector
//     reaches 4% only as its parse ends). The other shapes' shares stay
//     far below (1 GiB of churn 0.5–1.8%, default and many-nodes 0.3%, 4
//     GiB of churn 0.2%, a 336 MB CloudWatch export 2.9%): they never
//     widen. A headroom of 150% for every run instead took 4 GiB of churn
//     from 155 to 173 MiB; one of 300% made the storm slower again (the
//     fresh memory costs more than the cycles it saves).
//
//   - Small inputs. Below memMinInput of known size (files, stdin when it
//     is one, log-store sources fetched into files) the collector waits
//     for the heap to reach smallLimit: GOGC is off and the soft limit is
//     smallLimit, raised after a collection as for a large input, so that
//     it never sits below what is live. A run of a few MiB allocates less
//     than that: it collects never, not
//     two to nine times from the runtime's 4 MiB floor on — every cycle on
//     these VMs costs its page faults (~11 µs each) as much as its marking.
//     The seed incident (two files, 100 KB): 37.7–43 → 35.7–38 ms, 2
//     collections → 0, 1774 → 1530 page faults; 128 MiB of every generated
//     shape and era 4–10% faster (bench.sh: 0.094–0.128 → 0.085–0.114 s;
//     churn 6 → 2 collections) for 3–7 MiB more peak RSS (the storm's
//     40–45 → 55: its texts). 32 MiB kept half of the gain. A GOGC or
//     GOMEMLIMIT of the user's wins: the policy then sets neither.
//
//   - Collector holds. Parser, timeline and rules fill large new arrays
//     through internal/prefault, which holds the collector off (GOGC) from
//     an array's allocation until its pages are written. That changes a
//     process-wide setting, so prefault takes holds only while a run allows
//     them (prefault.AllowHolds): from Start to End.
//
//   - Names off the collector's heap. From hugeMinInput on, the names and
//     tuples of names the parser keeps (parser/textstore) are made in
//     memory mapped outside the Go heap (internal/offheap, the mechanism),
//     which the collector neither scans nor frees: a third less for every
//     cycle to mark, and fewer cycles (1 GiB of churn: the collector's CPU
//     110 → 65 ms). That memory is the process's to its end; End stops
//     making more of it. The soft limit covers the Go heap only: that
//     memory comes on top (1 GiB: 2 MiB of
//     the default shape's names, 8 of churn's, 19 of the storm's). Taking
//     it off the limit instead kept the total where it was, but bound the
//     limit on churn: 13–15 → 17–18 collections.
//
//   - The executable's pages. For a large input (memMinInput on), the
//     program's own code and read-only data resident so far are given
//     back to the kernel (internal/exepages) before the parse (what the
//     initialisers and the command line read) and after it (what the
//     parser read): by the parse's end 12 MB of the binary were resident,
//     counted in the RSS to the end, where each stage reads 5–9 MB of it.
//
// The input's size is estimated by parser.TextSize, which tells compressed
// input by its magic numbers as reading does. The policy knows nothing else
// of logs.
package mempolicy

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/exepages"
	"github.com/kcmtrace/kcmtrace/internal/hugeheap"
	"github.com/kcmtrace/kcmtrace/internal/offheap"
	"github.com/kcmtrace/kcmtrace/internal/prefault"
	"github.com/kcmtrace/kcmtrace/parser"
)

// The sizes of the policy (see the package comment).
const (
	memBase        = 15 << 20
	memPerGiB      = 24 << 20
	liveHeadroom   = 50 // percent above the live heap the limit never goes below until then
	settleHeadroom = 25 // percent above the live heap once the timeline is built
	// widening (see the package comment): from the collector's share of
	// the CPU since Start, once Start is widenAfter behind, the headrooms
	// above the live heap that replace liveHeadroom and settleHeadroom
	widenShare          = 4
	widenAfter          = 50 * time.Millisecond
	widenHeadroom       = 150
	widenSettleHeadroom = 100
	settleMinRoom       = 8 << 20
	tablesShare         = 60 // percent of the limit the heap's objects reach for CollectTables to collect
	memMinInput         = 256 << 20
	smallLimit          = 48 << 20
	hugeMinInput        = 16 << 20
	maxHugeReserve      = 1 << 30
)

// Run is the policy in force for one run, from Start to End.
type Run struct {
	oldLimit int64  // the limit before Start
	revoke   func() // ends the collector holds (and the off-heap names)

	mu       sync.Mutex
	base     int64  // the limit from the input's size (0: Start set no limit)
	limit    int64  // the limit in force: base, or more when the live heap asks, or what Built set
	headroom uint64 // percent above the live heap the limit never goes below
	ended    bool
	small    bool // a small input: GOGC off, the limit from smallLimit (base stays 0)
	large    bool // memMinInput on: the executable's pages are released
	oldGC    int  // GOGC before Start, when small or parsing
	parsing  bool // a large input's parse: GOGC off until Parsed
	// widened: the collector took widenShare percent of the CPU since
	// Start (gcAt and cpuAt: the runtime's CPU seconds then), and the
	// headroom is widenHeadroom, or widenSettleHeadroom once built
	widened     bool
	gcAt, cpuAt float64
}

// Start puts the policy in force for a run over the inputs paths: it
// allows collector holds, and, from the regular files' text size
// (parser.TextSize), reserves huge pages for the heap and sets the soft
// limit, which then follows the live heap (see the package comment), with
// GOGC off until Parsed; below memMinInput the limit is smallLimit and
// GOGC is off. It reserves and limits nothing when a path is not a regular
// file (a directory, stdin: size unknown); the limit is left alone when
// getenv("GOMEMLIMIT") is set, and GOGC (and a small input's limit) when
// getenv("GOGC") is. Call it once per run, before the input is read, and
// End once the run is over (the CLI: when its command returns).
func Start(paths []string, getenv func(string) string) *Run {
	r := &Run{revoke: prefault.AllowHolds(), headroom: liveHeadroom}
	total, ok := parser.TextSize(paths)
	if !ok {
		return r
	}
	limit := memBase + int64(float64(total)/(1<<30)*memPerGiB)
	if total >= hugeMinInput {
		hugeheap.Reserve(int(min(2*limit, maxHugeReserve)))
		if disable, ok := offheap.Enable(); ok {
			revoke := r.revoke
			r.revoke = func() { disable(); revoke() }
		}
	}
	r.gcAt, r.cpuAt, _ = cpuClasses()
	switch {
	case getenv("GOMEMLIMIT") != "":
	case total >= memMinInput:
		r.base, r.limit = limit, limit
		r.oldLimit = debug.SetMemoryLimit(limit)
		if getenv("GOGC") == "" {
			r.parsing = true
			r.oldGC = prefault.SetGCPercent(-1)
		}
		r.watch()
	case getenv("GOGC") == "":
		r.small, r.limit = true, smallLimit
		r.oldGC = prefault.SetGCPercent(-1)
		r.oldLimit = debug.SetMemoryLimit(smallLimit)
		r.watch()
	}
	if total >= memMinInput {
		r.large = true
		releaseExe() // what the initialisers and the command line read
	}
	return r
}

// Collect, given to the timeline as Options.Collect, collects at once
// when Start set a limit (a large input): the timeline calls it where its
// tables of names and the arrays that laid the events out have just
// become garbage, before it makes the volumes, which then take the memory
// freed instead of more. The collector would find that garbage only
// later, after the volumes were made: 1 GiB of churn (35k volumes), 11
// runs, peak RSS median 63 → 62 MiB and the largest 66 → 63, for 2–3%
// more CPU; 4 GiB, 220–223 → 202–205 MiB. Below memMinInput it does
// nothing: there a collection costs more than the little it frees.
func (r *Run) Collect() {
	r.mu.Lock()
	active := r.base > 0 && !r.ended
	r.mu.Unlock()
	if active {
		runtime.GC()
	}
}

// CollectTables, given to the timeline as Options.CollectTables (where
// its tables of names die, before the layout), collects at once as Collect
// does, but only when the heap's objects are at least tablesShare percent
// of the soft limit: then the layout and the volumes that come next would
// take the heap to the limit, and it is their peak the collection lowers.
// 4 GiB of churn peaked twice at nearly the same height, there (the heap
// at 107 MB) and where the last volume is described; once the second peak
// was lowered (the volumes' computed VolumeAttachment names made when
// asked), this took the first from 155.3–160.5 MiB (median 156.9, 7
// runs) to 150.2–153.4 (151.2), its objects 72% of the limit there. On 1
// GiB of churn (69%) it changes neither time nor peak; on the storm
// (49–50%: the parse's larger live heap raised its limit) it cost 18 ms
// of ~0.72 s (`scripts/ab.py 25`), and the default shape's are at a
// third.
func (r *Run) CollectTables() {
	r.mu.Lock()
	active, limit := r.base > 0 && !r.ended, r.limit
	r.mu.Unlock()
	if !active {
		return
	}
	if v, ok := readBytes("/memory/classes/heap/objects:bytes"); ok && v[0]*100 >= uint64(limit)*tablesShare {
		runtime.GC()
	}
}

// Parsed, called once the inputs are parsed, collects at once when Start
// set a limit (a large input), before the timeline is built: the parse
// ends with a cycle under way (its last blocks raised the heap to its
// goal), and the timeline's first large arrays (its events' names as ids,
// their sort keys: ~5 MB on 1 GiB of churn) were allocated during it, each
// paying the collector's assist and a sweep first, one after the other
// before its two parts could start (4–16 ms), its parts then interning
// beside the collector's workers. Collected before, they take the memory
// the parse left (2–7 ms): 1 GiB of churn, the timeline 83–115 → 73–92 ms.
// (A collection here gained nothing when the names were in the heap: the
// cycle then marked them too.)
//
// It also gives GOGC back the value it had before Start (off while a
// large input is parsed: see the package comment), and gives back the
// executable's resident pages.
func (r *Run) Parsed() {
	r.mu.Lock()
	if r.parsing && !r.ended {
		r.parsing = false
		prefault.SetGCPercent(r.oldGC)
	}
	r.mu.Unlock()
	r.Collect()
	r.mu.Lock()
	active := r.large && !r.ended
	r.mu.Unlock()
	if active {
		releaseExe() // what the parser read
	}
}

// releaseExe gives back the executable's pages (a variable for tests).
var releaseExe = exepages.Release

// Built, called once the timeline is built, for a large input (Start sized
// a limit: memMinInput on) collects what parse and timeline left behind
// and sets the limit from what the rules and the report start with:
// settleHeadroom percent (at least settleMinRoom) above the live heap the
// collection leaves, plus the runtime's memory outside the heap (the limit
// counts it), lower than before if need be — but never below the memory
// the run held just before (footprint): the peak RSS has been paid for up
// to there, and collecting to stay below it would only cost CPU.
// settleHeadroom becomes the floor after later collections.
func (r *Run) Built() {
	r.mu.Lock()
	active := r.base > 0 && !r.ended
	r.mu.Unlock()
	if !active {
		return
	}
	held := footprint() // before the collection: the run holds it already
	runtime.GC()
	live, outside := liveHeap(), nonHeap()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.headroom = settleHeadroom
	if r.widened {
		r.headroom = widenSettleHeadroom
	}
	r.setLocked(int64(max(live+max(settleMinRoom, live*r.headroom/100)+outside, held)))
}

// End takes the policy out of force: no more collector holds, the limit no
// longer follows the live heap, and it and GOGC are as they were before
// Start (the reserved address space stays part of the heap). The CLI calls
// it when a command returns, so that commands run one after another in one
// process (the tests') each start from the runtime's own settings.
func (r *Run) End() {
	r.revoke()
	r.mu.Lock()
	defer r.mu.Unlock()
	if (r.base > 0 || r.small) && !r.ended {
		debug.SetMemoryLimit(r.oldLimit)
	}
	if (r.small || r.parsing) && !r.ended {
		prefault.SetGCPercent(r.oldGC)
	}
	r.ended = true
}

// Limit is the soft limit the policy has in force (0 when none).
func (r *Run) Limit() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return 0
	}
	return r.limit
}

func (r *Run) setLocked(limit int64) {
	r.limit = limit
	debug.SetMemoryLimit(limit)
}

// gcSentinel is an object nothing refers to: its finalizer runs once the
// collection that found it unreachable is over.
type gcSentinel struct{ _ *int }

// watch arms a finalizer that runs after the next collection: it raises
// the limit above the live heap that collection measured (followLive) and
// arms itself again, until End.
func (r *Run) watch() {
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) {
		if r.followLive(liveHeap(), nonHeap()) {
			r.watch()
		}
	})
}

// followLive raises the limit to the headroom in force (liveHeadroom,
// then settleHeadroom once built; widened, widenHeadroom and
// widenSettleHeadroom) above live, and to at least settleMinRoom above
// live and outside (the runtime's memory outside the heap, nonHeap, which
// the limit counts) together, when it is below that, and reports whether
// the policy is still in force. It widens the headroom once the collector
// has taken widenShare percent of the CPU since Start.
func (r *Run) followLive(live, outside uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	if !r.widened {
		window := widenAfter.Seconds() * float64(runtime.GOMAXPROCS(0)) // the CPU there was in widenAfter
		if gc, all, ok := cpuClasses(); ok && all-r.cpuAt >= window && (gc-r.gcAt)*100 >= (all-r.cpuAt)*widenShare {
			r.widened = true
			if r.headroom == settleHeadroom { // built already
				r.headroom = widenSettleHeadroom
			} else {
				r.headroom = widenHeadroom
			}
		}
	}
	if floor := int64(max(live+live*r.headroom/100, live+outside+settleMinRoom)); floor > r.limit {
		r.setLocked(floor)
	}
	return true
}

// cpuClasses is the runtime's estimate of the CPU its collector has
// taken from the program — its marking on cores that had nothing else to
// run left out: that costs nothing — and of the CPU there was
// (GOMAXPROCS over the time since the process started), in seconds. A
// variable for tests.
var cpuClasses = func() (gc, all float64, ok bool) {
	s := []metrics.Sample{
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
		{Name: "/cpu/classes/gc/mark/idle:cpu-seconds"},
		{Name: "/cpu/classes/total:cpu-seconds"},
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindFloat64 {
			return 0, 0, false
		}
	}
	return s[0].Value.Float64() - s[1].Value.Float64(), s[2].Value.Float64(), true
}

// liveHeap is the heap the last collection found live.
func liveHeap() uint64 {
	v, _ := readBytes("/gc/heap/live:bytes")
	return v[0]
}

// nonHeap is the memory the runtime has mapped and not released outside
// the heap's spans: stacks, its metadata, profiling buckets, what the
// soft limit counts besides the heap.
func nonHeap() uint64 {
	v, ok := readBytes("/memory/classes/total:bytes", "/memory/classes/heap/released:bytes",
		"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes")
	if heap := v[1] + v[2] + v[3] + v[4]; ok && heap <= v[0] {
		return v[0] - heap
	}
	return 0
}

// footprint is the memory the runtime holds and the soft limit counts:
// all it has mapped, less the heap pages returned to the system.
func footprint() uint64 {
	v, ok := readBytes("/memory/classes/total:bytes", "/memory/classes/heap/released:bytes")
	if ok && v[1] <= v[0] {
		return v[0] - v[1]
	}
	return 0
}

// readBytes reads the runtime's metrics of those names; ok is false (and a
// value 0) when one is not a number of this Go's runtime.
func readBytes(names ...string) (v []uint64, ok bool) {
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	v, ok = make([]uint64, len(s)), true
	for i := range s {
		if s[i].Value.Kind() != metrics.KindUint64 {
			ok = false
			continue
		}
		v[i] = s[i].Value.Uint64()
	}
	return v, ok
}
