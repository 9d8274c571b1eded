package timeline

import (
	"sort"

	"github.com/kcmtrace/kcmtrace/parser"
)

// permute moves evs[k] and ids[k] to evs[dest[k]] and ids[dest[k]] for
// every k, in place (dest is a permutation of 0..len-1). It follows each
// cycle of the inverse permutation, so every event is copied once
// (swapping would copy each one three times).
//
// The cycles (a few of them usually hold almost every event) are first
// listed end to end, then that list is cut into consecutive parts that
// are moved concurrently. Each part writes only its own positions; the
// event it would read across a cut (the first of the next part, or the
// first of a cycle begun in an earlier part) is saved before the moves.
func permute(evs []parser.Event, ids []evIDs, dest []int32) {
	src := make([]int32, len(dest)) // src[j]: the event that goes to j
	for k, d := range dest {
		src[d] = int32(k)
	}
	// walk[starts[c]:starts[c+1]] is cycle c: position walk[x] takes the
	// event at walk[x+1], the cycle's last position the event at its first.
	walk := make([]int32, 0, len(src))
	var starts []int
	for i := range src {
		if int(src[i]) == i {
			continue // in place
		}
		starts = append(starts, len(walk))
		for j := i; int(src[j]) != j; {
			walk = append(walk, int32(j))
			s := src[j]
			src[j] = int32(j) // visited
			j = int(s)
		}
	}
	starts = append(starts, len(walk))
	cycleOf := func(x int) int { return sort.Search(len(starts), func(c int) bool { return starts[c] > x }) - 1 }

	parts := chunks(len(walk))
	type saved struct {
		at int32
		ev parser.Event
		id evIDs
	}
	var cut []saved
	save := func(j int32) {
		for i := range cut {
			if cut[i].at == j {
				return
			}
		}
		cut = append(cut, saved{j, evs[j], ids[j]})
	}
	for _, x := range parts[1 : len(parts)-1] {
		if s := starts[cycleOf(x)]; s != x {
			save(walk[x])
			save(walk[s])
		}
	}
	old := func(j int32) *saved {
		for i := range cut {
			if cut[i].at == j {
				return &cut[i]
			}
		}
		panic("timeline: permute read an unsaved event across a cut")
	}

	each(parts, func(_, lo, hi int) {
		for x, c := lo, cycleOf(lo); x < hi; c++ {
			s, e := starts[c], starts[c+1]
			b := min(e, hi)
			var first saved // the cycle's first event, when it begins and ends in this part
			if x == s && e <= hi {
				first = saved{walk[s], evs[walk[s]], ids[walk[s]]}
			}
			for ; x < b-1; x++ {
				evs[walk[x]], ids[walk[x]] = evs[walk[x+1]], ids[walk[x+1]]
			}
			from := &first
			switch {
			case b < e:
				from = old(walk[b]) // the next part's first position
			case s < lo:
				from = old(walk[s]) // the cycle began in an earlier part
			}
			evs[walk[b-1]], ids[walk[b-1]] = from.ev, from.id
			x = b
		}
	})
}
