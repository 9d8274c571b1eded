package textstore

import (
	"hash/maphash"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/offheap"
)

// Names interns names: each name is copied once, into an arena of its
// own, and a later Intern of equal bytes returns that copy. The zero Names
// is ready; one goroutine uses it (a parser's input). The strings it
// returns stay valid after the Names is dropped.
//
// The table is a cache of names, two per set (a new name replaces the
// less recent of its set), not a map of every name: it stays small enough
// to be read from the CPU's cache however many names an input has (a map
// of every name of a large cluster's churn, 140k per GiB, was mostly cache
// misses: interning took 3-4 times as long). It starts small, for the many
// small inputs of a must-gather, and doubles with the names copied, up to
// maxNameSets. The names that repeat are the ones an input keeps naming —
// its nodes, the volumes it is working on — and they stay; a name seen
// again only after thousands of others may be copied again, which costs
// no more than not interning it (on the generated shapes, 0.2% to 5% more
// bytes of names than a map of every name).
//
// A set's entry keeps the low 32 bits of its name's hash beside it: a
// name of another hash is told apart without reading its bytes (in a
// large cluster's churn most interns miss, and the names of a set are
// often as long as the new one), and the table grows without hashing
// its names again.
type Names struct {
	sets   [][2]name // len is a power of two
	copies int       // names copied since the table last grew
	arena  []byte
}

// name is an interned name and the low bits of its hash (Hash), in the
// size of a string header.
type name struct {
	p  *byte
	n  uint32
	lo uint32
}

func (e name) str() string { return unsafe.String(e.p, e.n) }

// The table's size in sets: from minNameSets, doubled once as many names
// as it has sets were copied, up to maxNameSets (16384 names, 256 KiB).
const (
	minNameSets = 16
	maxNameSets = 8192
)

var nameSeed = maphash.MakeSeed()

// arenaChunk is the size of an arena chunk, from the first (minArena,
// doubling); a name longer than an eighth of it gets an allocation of its
// own.
const (
	minArena   = 512
	arenaChunk = 32 << 10
)

// Intern returns a string equal to s that owns its memory (s may be a
// window of a buffer about to be reused), shared with the other Interns
// of the same name.
func (n *Names) Intern(s string) string { return n.InternHash(s, Hash(s)) }

// InternHash is Intern for a name whose hash h (Hash(s)) is known.
func (n *Names) InternHash(s string, h uint64) string {
	if s == "" {
		return ""
	}
	if len(s) > maxTableName {
		return n.copy(s)
	}
	if n.sets == nil {
		n.sets = make([][2]name, minNameSets)
	}
	lo := uint32(h)
	set := &n.sets[lo&uint32(len(n.sets)-1)]
	switch {
	case set[0].lo == lo && int(set[0].n) == len(s) && set[0].str() == s:
		return set[0].str()
	case set[1].lo == lo && int(set[1].n) == len(s) && set[1].str() == s:
		set[0], set[1] = set[1], set[0] // the most recent first
		return set[0].str()
	}
	c := n.copy(s)
	set[0], set[1] = name{unsafe.StringData(c), uint32(len(c)), lo}, set[0]
	if n.copies++; n.copies >= len(n.sets) && len(n.sets) < maxNameSets {
		n.grow()
	}
	return c
}

// maxTableName is the longest name the table holds (a name's length is
// kept in 32 bits); a longer one is copied each time.
const maxTableName = 1<<31 - 1

// Hash is the hash of a name that InternHash and HashNames take (0 for
// ""). It may be computed on another goroutine than the Names'.
func Hash(s string) uint64 {
	if s == "" {
		return 0
	}
	return maphash.String(nameSeed, s)
}

// grow doubles the table, keeping its names.
func (n *Names) grow() {
	old := n.sets
	n.sets, n.copies = make([][2]name, 2*len(old)), 0
	for _, set := range old {
		for k := 1; k >= 0; k-- { // the less recent first: the most recent stays first
			if e := set[k]; e.p != nil {
				to := &n.sets[e.lo&uint32(len(n.sets)-1)]
				to[0], to[1] = e, to[0]
			}
		}
	}
}

// Len is the number of names the table holds.
func (n *Names) Len() int {
	k := 0
	for _, set := range n.sets {
		for _, e := range set {
			if e.p != nil {
				k++
			}
		}
	}
	return k
}

// copy copies s into the arena, or a long s into memory of its own; both
// are memory of internal/offheap when it is enabled (names hold no
// pointers: the collector need not see them).
func (n *Names) copy(s string) string {
	if len(s) > arenaChunk/8 {
		b := append(offheap.Bytes(len(s)), s...)
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	if len(n.arena)+len(s) > cap(n.arena) {
		n.arena = offheap.Bytes(max(min(max(2*cap(n.arena), minArena), arenaChunk), len(s)))
	}
	n.arena = append(n.arena, s...)
	return unsafe.String(unsafe.SliceData(n.arena[len(n.arena)-len(s):]), len(s))
}
