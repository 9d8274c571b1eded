package timeline

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// minChunk is the least work, in events, worth a goroutine of its own:
// below it, starting and joining one costs more than it saves. Tests
// lower it to split small inputs.
var minChunk = 4096

// volumeWork is what a volume costs Build's last stage (describing it,
// its intervals, its echoes) beyond its events, in events' worth of the
// first (preparing an event): ~1 µs against ~0.3 at 128 MiB of churn,
// where 4,329 volumes were one part by events' worth.
const volumeWork = 4

// pullParts is how many ranges per goroutine volumeChunks cuts at most,
// for pull to balance.
const pullParts = 8

// chunks splits 0..n events into at most GOMAXPROCS consecutive ranges of
// at least minChunk items each (one range when n is small); range c is
// bounds[c]:bounds[c+1].
func chunks(n int) []int { return cut(n, min(runtime.GOMAXPROCS(0), n/minChunk)) }

// volumeChunks splits the volumes into consecutive ranges of about equal
// work, at least minChunk events' worth each, at most pullParts per
// goroutine, for pull. start[i]:start[i+1] are volume i's events: a
// volume costs its events plus volumeWork. Cut by volumes alone, a
// cluster of few volumes with long histories (1 GiB of the many-nodes
// shape: 1,003 volumes of ~56 events) was one range, done on one core.
func volumeChunks(start []int) []int {
	n := len(start) - 1
	if n <= 0 {
		return []int{0, 0}
	}
	work := func(i int) int { return start[i] - start[0] + volumeWork*i }
	total := work(n)
	parts := max(1, min(pullParts*runtime.GOMAXPROCS(0), total/minChunk))
	bounds := make([]int, 1, parts+1)
	for c := 1; c < parts; c++ {
		// the first volume boundary by which c parts' worth is done; a
		// volume longer than a part leaves the next range empty: dropped
		at := sort.Search(n, func(i int) bool { return work(i) >= total*c/parts })
		if at > bounds[len(bounds)-1] && at < n {
			bounds = append(bounds, at)
		}
	}
	return append(bounds, n)
}

// cut cuts 0..n into parts (at least one) consecutive ranges of about
// equal size.
func cut(n, parts int) []int {
	parts = max(1, parts)
	bounds := make([]int, parts+1)
	for c := range bounds {
		bounds[c] = n * c / parts
	}
	return bounds
}

// each runs f(c, bounds[c], bounds[c+1]) for every range of bounds, the
// first on the calling goroutine and the others on goroutines of their
// own, and returns when all are done.
func each(bounds []int, f func(c, lo, hi int)) {
	var wg sync.WaitGroup
	for c := 1; c+1 < len(bounds); c++ {
		wg.Go(func() { f(c, bounds[c], bounds[c+1]) })
	}
	f(0, bounds[0], bounds[1])
	wg.Wait()
}

// pull runs f over every range of bounds on at most GOMAXPROCS
// goroutines, the caller's among them, each taking the next range left
// when it is done with one: ranges of uneven cost, or a core the collector
// or another process shares, end together. (describe at 1 GiB of churn in
// two fixed halves: one half took 17–22 ms, the other 29–37.) worker, from
// 0, is which goroutine runs f: state kept per worker is its own.
func pull(bounds []int, f func(worker, lo, hi int)) {
	parts := len(bounds) - 1
	var next atomic.Int32
	run := func(w int) {
		for c := int(next.Add(1)) - 1; c < parts; c = int(next.Add(1)) - 1 {
			f(w, bounds[c], bounds[c+1])
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < min(runtime.GOMAXPROCS(0), parts); w++ {
		wg.Go(func() { run(w) })
	}
	run(0)
	wg.Wait()
}
