package timeline

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/texttest"
	"github.com/kcmtrace/kcmtrace/parser"
)

// splitSmall makes every input of the test split into parts (one per item
// where it can, over procs goroutines) until the test ends.
func splitSmall(t *testing.T, procs int) {
	t.Helper()
	prevMin, prevProcs := minChunk, runtime.GOMAXPROCS(procs)
	minChunk = 1
	t.Cleanup(func() {
		minChunk = prevMin
		runtime.GOMAXPROCS(prevProcs)
	})
}

// permute, cut into parts, gives what a plain copy to dest does, for
// permutations with few long cycles, many short ones and fixed points.
func TestPermuteParts(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 5} {
		t.Run("", func(t *testing.T) {
			splitSmall(t, procs)
			for seed := range uint64(200) {
				r := rand.New(rand.NewPCG(seed, 2))
				n := r.IntN(60)
				dest := make([]int32, n)
				for i := range dest {
					dest[i] = int32(i)
				}
				switch seed % 3 {
				case 0: // a random permutation
					r.Shuffle(n, func(i, j int) { dest[i], dest[j] = dest[j], dest[i] })
				case 1: // a few swaps: short cycles, most events in place
					for range n / 4 {
						i, j := r.IntN(n), r.IntN(n)
						dest[i], dest[j] = dest[j], dest[i]
					}
				case 2: // one rotation: a single cycle
					for i := range dest {
						dest[i] = int32((i + 1) % n)
					}
				}
				evs, ids := make([]parser.Event, n), make([]evIDs, n)
				wantEvs, wantIDs := make([]parser.Event, n), make([]evIDs, n)
				for k := range n {
					evs[k].Source.Line, ids[k].vol = parser.Int32(k), int32(k)
					wantEvs[dest[k]], wantIDs[dest[k]] = evs[k], ids[k]
				}
				permute(evs, ids, slices.Clone(dest))
				if !reflect.DeepEqual(evs, wantEvs) || !reflect.DeepEqual(ids, wantIDs) {
					t.Fatalf("procs %d seed %d: permute(%v) moved the events wrongly", procs, seed, dest)
				}
			}
		})
	}
}

// pull runs every range once, on workers numbered below GOMAXPROCS and
// below the number of ranges, whatever the split.
func TestPullRunsEveryRangeOnce(t *testing.T) {
	for _, tc := range []struct{ n, parts, procs int }{
		{0, 1, 2}, {1, 1, 2}, {10, 3, 1}, {100, 16, 2}, {7, 7, 3}, {1000, 24, 3}, {5, 2, 8},
	} {
		t.Run(fmt.Sprintf("n=%d,parts=%d,procs=%d", tc.n, tc.parts, tc.procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			bounds := cut(tc.n, tc.parts)
			ran := make([]atomic.Int32, tc.n)
			var ranges, badWorker atomic.Int32
			pull(bounds, func(w, lo, hi int) {
				ranges.Add(1)
				if w < 0 || w >= min(tc.procs, tc.parts) {
					badWorker.Store(int32(w) + 1)
				}
				for i := lo; i < hi; i++ {
					ran[i].Add(1)
				}
			})
			if got := int(ranges.Load()); got != len(bounds)-1 {
				t.Errorf("ran %d ranges, want %d", got, len(bounds)-1)
			}
			if w := badWorker.Load(); w != 0 {
				t.Errorf("a range ran on worker %d, want below %d", w-1, min(tc.procs, tc.parts))
			}
			for i := range ran {
				if n := ran[i].Load(); n != 1 {
					t.Errorf("item %d ran %d times, want once", i, n)
				}
			}
		})
	}
}

// volumeChunks cuts the volumes by their work (events plus volumeWork
// each): enough into more ranges than goroutines (for pull to balance),
// few into one, never more than pullParts per goroutine, every volume in
// exactly one range, and no range more than a part's worth plus one
// volume.
func TestVolumeChunks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	evenly := func(n, events int) []int {
		start := make([]int, n+1)
		for i := range n {
			start[i+1] = start[i] + events
		}
		return start
	}
	oneLong := evenly(2000, 1) // 2,000 one-event volumes, then one of 40,000 events
	oneLong = append(oneLong, oneLong[len(oneLong)-1]+40000)
	for _, tc := range []struct {
		name  string
		start []int
		want  int
	}{
		{"none", []int{0}, 1},
		{"500 of 1", evenly(500, 1), 1},
		{"1,200 of 3", evenly(1200, 3), 2},
		{"4,329 of 3 (churn, 128 MiB)", evenly(4329, 3), 7},
		{"35,000 of 3 (churn, 1 GiB)", evenly(35000, 3), 16},
		{"1,003 of 56 (many-nodes, 1 GiB)", evenly(1003, 56), 14},
		{"a million of 1", evenly(1<<20, 1), 16},
		{"one long volume", oneLong, 3},
	} {
		bounds := volumeChunks(tc.start)
		if got := len(bounds) - 1; got != tc.want {
			t.Errorf("%s: %d ranges on 2 goroutines, want %d (%v)", tc.name, got, tc.want, bounds)
		}
		n := len(tc.start) - 1
		if bounds[0] != 0 || bounds[len(bounds)-1] != max(n, 0) {
			t.Errorf("%s: ranges %v do not cover 0..%d", tc.name, bounds, n)
		}
		work := func(lo, hi int) int { return tc.start[hi] - tc.start[lo] + volumeWork*(hi-lo) }
		longest := 0
		for i := range n {
			longest = max(longest, work(i, i+1))
		}
		for c := 1; c < len(bounds); c++ {
			if bounds[c] <= bounds[c-1] && n > 0 {
				t.Errorf("%s: range %d is empty or backwards: %v", tc.name, c-1, bounds)
			}
			if w, limit := work(bounds[c-1], bounds[c]), work(0, n)/(len(bounds)-1)+longest; w > limit {
				t.Errorf("%s: range %d has %d of work, more than a part's worth and a volume (%d)", tc.name, c-1, w, limit)
			}
		}
	}
}

// Build gives the same timeline whether its work is split into parts or
// not: every fixture and real log, each item of work its own part where
// it can be, over 3 goroutines, with and without Options.Consume.
func TestBuildParts(t *testing.T) {
	var runs [][]string
	dirs, _ := filepath.Glob("../testdata/incidents/*")
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		var in []string
		for _, f := range files {
			if strings.HasSuffix(f, ".log") || strings.HasSuffix(f, ".txt") {
				in = append(in, f)
			}
		}
		runs = append(runs, in)
	}
	logs, _ := filepath.Glob("../testdata/real-logs/*.log")
	runs = append(runs, logs) // all together, as one run
	for _, f := range logs {
		runs = append(runs, []string{f})
	}
	build := func(paths []string, consume bool) *Timeline {
		res, errs := parser.ParseAll(paths, parser.Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if consume && len(res) > 1 {
			// not one array, the first without room: all are copied into a new one
			res[0].Events = slices.Clip(res[0].Events)
			res[1].Events = slices.Clone(res[1].Events)
		}
		return Build(res, Options{Consume: consume})
	}
	for _, consume := range []bool{false, true} {
		var want []*Timeline
		for _, paths := range runs {
			want = append(want, build(paths, consume))
		}
		t.Run("", func(t *testing.T) {
			splitSmall(t, 3)
			for i, paths := range runs {
				if got := build(paths, consume); !reflect.DeepEqual(texttest.Canon(got), texttest.Canon(want[i])) {
					t.Errorf("%v (consume %v): the timeline built in parts differs", paths, consume)
				}
			}
		})
	}
}
