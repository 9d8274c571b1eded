package timeline

import (
	"runtime"
	"sync"
)

// minChunk is the least work (events, or volumes) worth a goroutine of its
// own: below it, starting and joining one costs more than it saves. Tests
// lower it to split small inputs.
var minChunk = 4096

// chunks splits 0..n into at most GOMAXPROCS consecutive ranges of at
// least minChunk items each (one range when n is small); range c is
// bounds[c]:bounds[c+1].
func chunks(n int) []int {
	parts := max(1, min(runtime.GOMAXPROCS(0), n/minChunk))
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
