package textstore

import (
	"strings"
	"unsafe"
)

// Names interns names: each distinct name is copied once, into an arena
// of its own, and every later Intern of equal bytes returns that copy. The
// zero Names is ready; one goroutine uses it (a parser's input). The
// strings it returns stay valid after the Names is dropped.
//
// The table is bounded: it remembers the names of the last two
// generations of genNames new names each (a name found in the older one
// moves to the newer), so it stays small enough to be read from cache
// however many names an input has. The names that repeat are the ones an
// input keeps naming — its nodes, the volumes it is working on — and they
// stay; a name seen again only after tens of thousands of others is
// copied again, which costs no more than not interning it.
type Names struct {
	cur, old map[string]string
	arena    []byte
}

// genNames is the number of new names of a generation.
const genNames = 8192

// arenaChunk is the size of an arena chunk; a name longer than an eighth
// of it gets an allocation of its own.
const arenaChunk = 32 << 10

// Intern returns a string equal to s that owns its memory (s may be a
// window of a buffer about to be reused), shared with the other Interns
// of the same name.
func (n *Names) Intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := n.cur[s]; ok {
		return v
	}
	v, ok := n.old[s]
	if !ok {
		v = n.copy(s)
	}
	if len(n.cur) >= genNames {
		clear(n.old)
		n.cur, n.old = n.old, n.cur
	}
	if n.cur == nil {
		n.cur = make(map[string]string, 256)
	}
	n.cur[v] = v
	return v
}

// Len is the number of names the table holds.
func (n *Names) Len() int { return len(n.cur) + len(n.old) }

func (n *Names) copy(s string) string {
	if len(s) > arenaChunk/8 {
		return strings.Clone(s)
	}
	if len(n.arena)+len(s) > cap(n.arena) {
		n.arena = make([]byte, 0, arenaChunk)
	}
	n.arena = append(n.arena, s...)
	return unsafe.String(unsafe.SliceData(n.arena[len(n.arena)-len(s):]), len(s))
}
