package mempolicy

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/offheap"
	"github.com/kcmtrace/kcmtrace/internal/prefault"
)

// TestStart: a large input gets the soft limit of its size with GOGC off
// until it is parsed, and once built a limit from the live heap
// (TestBuilt); a small one the small limit with GOGC off; GOMEMLIMIT (and for a small input GOGC) or an
// input of unknown size leave them alone. End puts back the limit and
// GOGC there were.
func TestStart(t *testing.T) {
	defer func(f func() int) { releaseExe = f }(releaseExe)
	releaseExe = func() int { return 0 }
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	dir := t.TempDir()
	big := sparseLog(t, dir, 512<<20)
	small := smallLog(t, dir)
	const none = math.MaxInt64
	for _, tc := range []struct {
		name              string
		paths             []string
		env               map[string]string
		limit, afterBuild int64 // afterBuild -1: set from the live heap
		gogc, gogcParsed  int   // GOGC during the parse and after Parsed (100 before the run)
		offHeap           bool  // names off the collector's heap during the run
	}{
		{name: "large", paths: []string{big}, limit: memBase + memPerGiB/2, afterBuild: -1, gogc: -1, gogcParsed: 100, offHeap: true},
		{name: "large with GOMEMLIMIT", paths: []string{big}, env: map[string]string{"GOMEMLIMIT": "1GiB"}, limit: none, afterBuild: none, gogc: 100, gogcParsed: 100, offHeap: true},
		{name: "large with GOGC", paths: []string{big}, env: map[string]string{"GOGC": "200"}, limit: memBase + memPerGiB/2, afterBuild: -1, gogc: 100, gogcParsed: 100, offHeap: true},
		{name: "small", paths: []string{small}, limit: smallLimit, afterBuild: smallLimit, gogc: -1, gogcParsed: -1},
		{name: "small with GOGC", paths: []string{small}, env: map[string]string{"GOGC": "200"}, limit: none, afterBuild: none, gogc: 100, gogcParsed: 100},
		{name: "small with GOMEMLIMIT", paths: []string{small}, env: map[string]string{"GOMEMLIMIT": "1GiB"}, limit: none, afterBuild: none, gogc: 100, gogcParsed: 100},
		{name: "directory", paths: []string{big, dir}, limit: none, afterBuild: none, gogc: 100, gogcParsed: 100},
	} {
		debug.SetMemoryLimit(none)
		debug.SetGCPercent(100)
		run := Start(tc.paths, func(k string) string { return tc.env[k] })
		if got := debug.SetMemoryLimit(-1); got != tc.limit {
			t.Errorf("%s: limit %d, want %d", tc.name, got, tc.limit)
		}
		if got := gogc(); got != tc.gogc {
			t.Errorf("%s: GOGC %d, want %d", tc.name, got, tc.gogc)
		}
		if got := offheap.Enabled(); got != tc.offHeap && runtime.GOOS == "linux" {
			t.Errorf("%s: names off the heap %v, want %v", tc.name, got, tc.offHeap)
		}
		run.Parsed()
		if got := gogc(); got != tc.gogcParsed {
			t.Errorf("%s: GOGC once parsed %d, want %d", tc.name, got, tc.gogcParsed)
		}
		run.Built()
		got := debug.SetMemoryLimit(-1)
		if tc.afterBuild == -1 && (got == none || got == tc.limit || got != run.Limit()) {
			t.Errorf("%s: limit once built %d (policy %d): want one set from the live heap", tc.name, got, run.Limit())
		} else if tc.afterBuild != -1 && got != tc.afterBuild {
			t.Errorf("%s: limit once built %d, want %d", tc.name, got, tc.afterBuild)
		}
		run.End()
		if got := debug.SetMemoryLimit(-1); got != none {
			t.Errorf("%s: limit after End %d, want %d as before Start", tc.name, got, int64(none))
		}
		if got := gogc(); got != 100 {
			t.Errorf("%s: GOGC after End %d, want 100 as before Start", tc.name, got)
		}
		if offheap.Enabled() {
			t.Errorf("%s: names off the heap after End", tc.name)
		}
	}
}

// TestHoldsOnlyWithinRun: prefault's collector holds change GOGC only
// while a run is in force; before Start and after End (library use) they
// leave it alone, and a hold taken within a run still restores GOGC when
// released after End.
func TestHoldsOnlyWithinRun(t *testing.T) {
	before := debug.SetGCPercent(137)
	defer debug.SetGCPercent(before)
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }

	release := prefault.HoldCollector()
	if got := gogc(); got != 137 {
		t.Fatalf("GOGC held without a run: %d, want 137", got)
	}
	release()

	run := Start(nil, func(string) string { return "" })
	release = prefault.HoldCollector()
	if got := gogc(); got == 137 {
		t.Fatalf("GOGC not held within a run: %d", got)
	}
	run.End()
	release()
	if got := gogc(); got != 137 {
		t.Fatalf("GOGC after the hold's release = %d, want 137", got)
	}

	release = prefault.HoldCollector()
	defer release()
	if got := gogc(); got != 137 {
		t.Fatalf("GOGC held after End: %d, want 137", got)
	}
}

// TestLimitFollowsLiveHeap: when the live heap outgrows the limit sized
// from the input, the next collection raises the limit above it, so the
// collector does not run back to back; after End it no longer moves.
func TestLimitFollowsLiveHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	dir := t.TempDir()
	small := smallLog(t, dir)
	for _, tc := range []struct {
		name  string
		path  string
		limit int64
	}{
		{"large", sparseLog(t, dir, 256<<20), memBase + memPerGiB/4},
		{"small", small, smallLimit}, // GOGC off: only the limit starts a cycle
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := Start([]string{tc.path}, func(string) string { return "" })
			defer run.End()
			base := run.Limit()
			if base != tc.limit {
				t.Fatalf("limit %d, want %d", base, tc.limit)
			}
			// a live heap of twice the limit
			live := make([][]byte, 0, 128)
			for range 2 * base / (1 << 20) {
				live = append(live, make([]byte, 1<<20))
			}
			// The policy moves the limit after collections; one that ran while the
			// heap was still being allocated raises it for a part of it only, so
			// wait for one that saw it whole (or the deadline).
			deadline := time.Now().Add(5 * time.Second)
			for (run.Limit() <= base || run.Limit() < int64(liveHeap())) && time.Now().Before(deadline) {
				runtime.GC()
				time.Sleep(10 * time.Millisecond)
			}
			got, heap := run.Limit(), int64(liveHeap())
			if got <= base || got < heap {
				t.Fatalf("limit %d with a live heap of %d (base %d): want it raised above the live heap", got, heap, base)
			}
			if cur := debug.SetMemoryLimit(-1); cur != got {
				t.Fatalf("runtime limit %d, policy says %d", cur, got)
			}
			runtime.KeepAlive(live)
			run.End()
			live = nil
			runtime.GC()
			if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 {
				t.Fatalf("limit after End %d, want the one before Start", cur)
			}
		})
	}
}

// TestFollowLiveCountsOutside: the floor after a collection is the
// headroom above the live heap, and at least settleMinRoom above the live
// heap and the runtime's memory outside it, which the limit counts too:
// without that a heap of small live size and
// much garbage (a log export: per record strings, a few MiB live) met
// its goal at once, and the collector ran back to back (a 336 MB
// CloudWatch export: 194 collections instead of 28).
func TestFollowLiveCountsOutside(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	collectorShare(t, 0)
	const mib = 1 << 20
	for _, c := range []struct {
		name          string
		limit         int64
		live, outside uint64
		headroom      uint64
		want          int64
	}{
		{"below the limit", 40 * mib, 10 * mib, 8 * mib, liveHeadroom, 40 * mib},
		{"raised by the headroom above the live heap", 20 * mib, 40 * mib, 4 * mib, liveHeadroom, 60 * mib},
		{"raised by the room above the live heap and what is outside it", 20 * mib, 10 * mib, 8 * mib, liveHeadroom, 26 * mib},
		{"settled headroom", 20 * mib, 40 * mib, 4 * mib, settleHeadroom, 52 * mib},
		{"settled, room above what is outside", 20 * mib, 16 * mib, 4 * mib, settleHeadroom, 28 * mib},
		{"never lowered", 100 * mib, 16 * mib, 4 * mib, settleHeadroom, 100 * mib},
	} {
		r := &Run{base: c.limit, limit: c.limit, headroom: c.headroom}
		if !r.followLive(c.live, c.outside) {
			t.Fatalf("%s: the policy is not in force", c.name)
		}
		if got := r.Limit(); got != c.want {
			t.Errorf("%s: limit %d MiB, want %d MiB", c.name, got/mib, c.want/mib)
		}
	}
	r := &Run{ended: true, limit: 10 * mib}
	if r.followLive(100*mib, 0) || r.limit != 10*mib {
		t.Error("an ended policy moved the limit or stayed in force")
	}
}

// collectorShare makes the runtime's CPU readings (cpuClasses) say the
// collector took percent of the CPU there was since the last reading, a
// second of it each, for the rest of the test.
func collectorShare(t *testing.T, percent float64) { collectorShareEvery(t, percent, 1) }

// collectorShareEvery is collectorShare with step seconds of CPU between
// two readings.
func collectorShareEvery(t *testing.T, percent, step float64) {
	old := cpuClasses
	t.Cleanup(func() { cpuClasses = old })
	var all float64
	cpuClasses = func() (float64, float64, bool) {
		all += step
		return all * percent / 100, all, true
	}
}

// TestWidens: once the collector has taken widenShare percent of the CPU
// since Start, the headroom above the live heap widens, to widenHeadroom
// before the timeline is built and widenSettleHeadroom once it is; below
// that share it stays liveHeadroom and settleHeadroom, and a run that has
// widened stays widened.
func TestWidens(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	const mib = 1 << 20
	for _, c := range []struct {
		name     string
		share    float64 // percent of the CPU the collector takes
		headroom uint64  // in force before the collection
		want     int64   // the limit after one with 40 MiB live
	}{
		{"a small share", widenShare - 1, liveHeadroom, 60 * mib},
		{"a small share, built", widenShare - 1, settleHeadroom, 50 * mib},
		{"the share reached", widenShare, liveHeadroom, (40 + 40*widenHeadroom/100) * mib},
		{"the share reached once built", widenShare + 5, settleHeadroom, (40 + 40*widenSettleHeadroom/100) * mib},
	} {
		t.Run(c.name, func(t *testing.T) {
			collectorShare(t, c.share)
			r := &Run{base: 20 * mib, limit: 20 * mib, headroom: c.headroom}
			r.gcAt, r.cpuAt, _ = cpuClasses()
			r.followLive(40*mib, 0)
			if got := r.Limit(); got != c.want {
				t.Errorf("limit %d MiB, want %d MiB", got/mib, c.want/mib)
			}
			if r.widened != (c.share >= widenShare) {
				t.Errorf("widened %v at a share of %v%%", r.widened, c.share)
			}
		})
	}
	// a share measured over less than widenAfter of CPU (the first
	// collections, a few milliseconds into the run) is not acted on
	t.Run("too early to tell", func(t *testing.T) {
		half := widenAfter.Seconds() * float64(runtime.GOMAXPROCS(0)) / 2 // CPU-seconds
		collectorShareEvery(t, 50, half)
		r := &Run{base: 20 * mib, limit: 20 * mib, headroom: liveHeadroom}
		r.gcAt, r.cpuAt, _ = cpuClasses()
		if r.followLive(1*mib, 0); r.widened {
			t.Errorf("widened %v after Start", widenAfter/2)
		}
		if r.followLive(1*mib, 0); !r.widened {
			t.Errorf("not widened %v after Start at a share of 50%%", widenAfter)
		}
	})
	// widened while parsing, then built: the settled headroom is widened
	collectorShare(t, widenShare)
	dir := t.TempDir()
	run := Start([]string{sparseLog(t, dir, 8<<30)}, func(string) string { return "" })
	defer run.End()
	run.followLive(1*mib, 0)
	if !run.widened {
		t.Fatal("the run did not widen at the share")
	}
	run.Built()
	if run.headroom != widenSettleHeadroom {
		t.Errorf("built with a headroom of %d%%, want %d%%", run.headroom, widenSettleHeadroom)
	}
}

// TestBuilt: once built, the limit is set from the heap a collection
// leaves live — settleHeadroom above it (at least settleMinRoom) plus the
// runtime's memory outside the heap —, lower than before when the live
// heap is small, but never below the memory the run held before the
// collection; a later collection with a larger live heap raises it to
// settleHeadroom above that.
func TestBuilt(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	collectorShare(t, 0) // the test's own collections do not widen
	dir := t.TempDir()
	big := sparseLog(t, dir, 8<<30) // 207 MiB from its size
	run := Start([]string{big}, func(string) string { return "" })
	defer run.End()
	keep := func(mib int) [][]byte {
		b := make([][]byte, mib)
		for i := range b {
			b[i] = make([]byte, 1<<20)
		}
		return b
	}
	live := keep(32)
	garbage := keep(64)
	garbage = nil
	for _, step := range []struct {
		name   string
		before func() // what the run did before the call
	}{
		// the garbage is still held: the limit comes down to what is held
		{"garbage held", func() {}},
		// it has been returned to the system: the limit comes down further
		{"garbage returned", debug.FreeOSMemory},
	} {
		step.before()
		limit, held := run.Limit(), int64(footprint())
		run.Built()
		got, heap := run.Limit(), liveHeap()
		want := max(int64(heap+max(settleMinRoom, heap*settleHeadroom/100)), held)
		if got < want-2<<20 || got > want+int64(nonHeap())+4<<20 || got >= limit {
			t.Errorf("%s: limit %d MiB with %d MiB live, %d MiB held before (limit %d MiB): want about %d MiB, the larger of the headroom above the live heap and what was held, below the limit before", step.name, got>>20, heap>>20, held>>20, limit>>20, want>>20)
		}
		if cur := debug.SetMemoryLimit(-1); cur != got {
			t.Errorf("%s: runtime limit %d, policy says %d", step.name, cur, got)
		}
	}
	settled := run.Limit()
	more := keep(int(settled >> 20)) // live heap now above the limit
	deadline := time.Now().Add(5 * time.Second)
	for run.Limit() < int64(liveHeap()+liveHeap()*settleHeadroom/100) && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got, heap := run.Limit(), liveHeap(); got < int64(heap+heap*settleHeadroom/100) {
		t.Errorf("limit %d MiB after a collection with %d MiB live: want at least %d%% above it", got>>20, heap>>20, settleHeadroom)
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(more)
	runtime.KeepAlive(garbage)
}

// smallLog is a one-line log in dir, far below every size the policy
// acts on.
func smallLog(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "small.log")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sparseLog is a sparse file of size bytes in dir: the policy reads only
// its size (and first bytes).
func sparseLog(t *testing.T, dir string, size int64) string {
	t.Helper()
	path := filepath.Join(dir, "kcm.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCollect: Collect and Parsed force a collection for a large input's
// run, CollectTables only when the heap's objects are at least
// tablesShare percent of the limit; none for a small input's, nor after
// End.
func TestCollect(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	collectorShare(t, 0) // fullHeap sizes from liveHeadroom
	dir := t.TempDir()
	big := sparseLog(t, dir, 512<<20)
	small := smallLog(t, dir)
	forced := func() uint64 {
		v, ok := readBytes("/gc/cycles/forced:gc-cycles")
		if !ok {
			t.Skip("no forced-cycles metric in this runtime")
		}
		return v[0]
	}
	for _, tc := range []struct {
		name       string
		path       string
		full       bool // objects of the limit's tablesShare percent and more are live
		ended      bool
		want       uint64 // by Collect and by Parsed
		wantTables uint64 // by CollectTables
	}{
		{"large", big, false, false, 1, 0},
		{"large, heap near the limit", big, true, false, 1, 1},
		{"small", small, false, false, 0, 0},
		{"small, heap full", small, true, false, 0, 0},
		{"large, heap near the limit, ended", big, true, true, 0, 0},
	} {
		run := Start([]string{tc.path}, func(string) string { return "" })
		if tc.ended {
			run.End()
		}
		runtime.GC()
		var live []byte
		if tc.full {
			live = make([]byte, fullHeap(run))
		}
		for _, f := range []struct {
			name    string
			collect func()
			want    uint64
		}{{"CollectTables", run.CollectTables, tc.wantTables}, {"Collect", run.Collect, tc.want}, {"Parsed", run.Parsed, tc.want}} {
			before := forced()
			f.collect()
			if got := forced() - before; got != f.want {
				t.Errorf("%s: %s forced %d collections, want %d", tc.name, f.name, got, f.want)
			}
		}
		runtime.KeepAlive(live)
		run.End()
	}
}

// fullHeap is the size of an array that makes the heap's objects at least
// tablesShare percent of run's limit, whenever the limit's watcher runs:
// the collection just made may not have run its finalizer yet, and
// allocating the array may start another, each raising the limit to its
// floor (followLive) above what it found live. An array of tablesShare
// percent of the highest floor the last collection allows, and of
// 100/tablesShare times the room followLive keeps above the live heap
// beside what is outside it, stays at that share of any later floor too.
// (Sized from the limit alone, the test failed in CI: the watcher had
// raised the limit between the sizing and CollectTables.)
func fullHeap(run *Run) int64 {
	live, outside := liveHeap(), nonHeap()
	floor := max(live+live*liveHeadroom/100, live+outside+settleMinRoom)
	limit := max(uint64(run.Limit()), floor)
	room := (outside + outside/4 + settleMinRoom) * 100 / tablesShare
	return int64(max(limit*tablesShare/100, room) + 1<<20)
}

// TestReleasesExecutable: Start and Parsed give back the executable's
// pages for a large input's run only (Parsed not after End), whatever
// GOMEMLIMIT says.
func TestReleasesExecutable(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	calls := 0
	defer func(f func() int) { releaseExe = f }(releaseExe)
	releaseExe = func() int { calls++; return 0 }
	dir := t.TempDir()
	big := sparseLog(t, dir, 512<<20)
	small := smallLog(t, dir)
	for _, tc := range []struct {
		name     string
		path     string
		memlimit string
		ended    bool
		want     int
	}{
		{"large", big, "", false, 2},
		{"large, GOMEMLIMIT", big, "100MiB", false, 2},
		{"small", small, "", false, 0},
		{"large, ended", big, "", true, 1},
	} {
		calls = 0
		run := Start([]string{tc.path}, func(k string) string {
			if k == "GOMEMLIMIT" {
				return tc.memlimit
			}
			return ""
		})
		if tc.ended {
			run.End()
		}
		run.Parsed()
		run.Collect()
		run.Built()
		if calls != tc.want {
			t.Errorf("%s: executable released %d times, want %d", tc.name, calls, tc.want)
		}
		run.End()
	}
}
