package textstore

import (
	"strings"
	"unsafe"
)

// Names interns names: each distinct name is copied once, into an arena
// of its own, and every later Intern of equal bytes returns that copy. The
// zero Names is ready; one goroutine uses it (a parser's input). The
// strings it returns stay valid after the Names is dropped.
type Names struct {
	m     map[string]string
	arena []byte
}

// arenaChunk is the size of an arena chunk; a name longer than an eighth
// of it gets an allocation of its own.
const arenaChunk = 32 << 10

// Intern returns a string equal to s that owns its memory (s may be a
// window of a buffer about to be reused), shared with every other Intern
// of the same name.
func (n *Names) Intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := n.m[s]; ok {
		return v
	}
	c := n.copy(s)
	if n.m == nil {
		n.m = make(map[string]string, 256)
	}
	n.m[c] = c
	return c
}

// Len is the number of distinct names interned.
func (n *Names) Len() int { return len(n.m) }

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
