package textstore

import "github.com/kcmtrace/kcmtrace/internal/offheap"

// Tuples interns tuples of names (an event's volume names, its node and
// pod, its error): each distinct tuple is made once and a later Intern of
// an equal one returns the same pointer, so that the events of an input
// share them. Like [Names] the table is a cache, two per set, that grows
// with the tuples made up to maxNameSets: the tuples that repeat are the
// ones an input keeps naming, and a tuple seen again only after thousands
// of others may be made again, which costs no more than not interning it.
// The zero Tuples is ready; one goroutine uses it. The tuples it returns
// stay valid after the Tuples is dropped, and are never written.
//
// New tuples are made in memory of internal/offheap when the run enabled
// it, which the collector does not scan: Intern's own must leave none of
// the tuple's pointers to memory of the Go heap, only to a [Names]' names
// (which are off the heap then too) or to constants.
type Tuples[T comparable] struct {
	sets   [][2]tuple[T] // len is a power of two
	copies int
	slab   []T // where new tuples are made, tupleSlab at a time
}

type tuple[T any] struct {
	p *T
	h uint64
}

// New tuples are allocated a slab at a time: from minSlab, doubling up to
// maxSlab (a must-gather's thousands of one-line inputs take a little).
const (
	minSlab = 4
	maxSlab = 256
)

// Intern returns a tuple equal to t, of hash h (equal tuples have equal
// hashes: see [HashStrings]). On a miss, own gives the new tuple's strings
// memory of their own (t's may be windows of a buffer about to be reused).
func (c *Tuples[T]) Intern(t T, h uint64, own func(*T)) *T {
	if c.sets == nil {
		c.sets = make([][2]tuple[T], minNameSets)
	}
	set := &c.sets[h&uint64(len(c.sets)-1)]
	switch {
	case set[0].h == h && set[0].p != nil && *set[0].p == t:
		return set[0].p
	case set[1].h == h && set[1].p != nil && *set[1].p == t:
		set[0], set[1] = set[1], set[0] // the most recent first
		return set[0].p
	}
	if len(c.slab) == cap(c.slab) {
		c.slab = offheap.Slice[T](min(max(2*cap(c.slab), minSlab), maxSlab))
	}
	c.slab = append(c.slab, t)
	p := &c.slab[len(c.slab)-1]
	own(p)
	set[0], set[1] = tuple[T]{p, h}, set[0]
	if c.copies++; c.copies >= len(c.sets) && len(c.sets) < maxNameSets {
		c.grow()
	}
	return p
}

// grow doubles the table, keeping its tuples.
func (c *Tuples[T]) grow() {
	old := c.sets
	c.sets, c.copies = make([][2]tuple[T], 2*len(old)), 0
	for _, set := range old {
		for k := 1; k >= 0; k-- { // the less recent first: the most recent stays first
			if e := set[k]; e.p != nil {
				to := &c.sets[e.h&uint64(len(c.sets)-1)]
				to[0], to[1] = e, to[0]
			}
		}
	}
}

// HashStrings is a hash of the strings of a tuple, for Tuples.Intern:
// equal strings in the same order hash equal.
func HashStrings(a, b, c, d string) uint64 {
	return HashNames(a, b, c, d, [4]uint64{Hash(a), Hash(b), Hash(c), Hash(d)})
}

// HashNames is HashStrings(a, b, c, d) for strings whose hashes h (Hash)
// are known.
func HashNames(a, b, c, d string, h [4]uint64) uint64 {
	x := uint64(len(a)) | uint64(len(b))<<16 | uint64(len(c))<<32 | uint64(len(d))<<48
	for _, y := range h {
		if y != 0 {
			x = (x ^ y) * 0x9E3779B97F4A7C15
		}
	}
	return x ^ x>>29
}
