package timeline

import (
	"hash/maphash"
	"math/bits"
)

// strTab is the index of one table of a syms: an open-addressing hash set
// of sym ids, each found by its string (the syms' str). A slot holds the
// low 32 bits of the string's hash (which place it, and let most probes
// skip a string comparison) and the id +1 (0: empty), 8 bytes a string
// where a map[string]int32 costs about 30 (and allocates as it grows).
type strTab struct {
	slots []uint64
	used  int
}

// strSeed hashes the strings of every table.
var strSeed = maphash.MakeSeed()

// strHash is the hash s is placed by.
func strHash(s string) uint32 { return uint32(maphash.String(strSeed, s)) }

// makeStrTab returns a table with room for about n strings.
func makeStrTab(n int) strTab { return strTab{slots: make([]uint64, strTabSize(n))} }

// strTabSize is the slots for n strings: a power of two, at most 3/4 full.
func strTabSize(n int) int {
	size := 16
	if want := n + n/3 + 1; want > size {
		size = 1 << bits.Len(uint(want-1))
	}
	return size
}

// find returns the id of s (hash h) among the ids of str, or -1 and the
// slot where it would go.
func (t *strTab) find(str []string, s string, h uint32) (id int32, slot int) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return -1, i
		}
		if uint32(e>>32) == h {
			if id := int32(uint32(e)) - 1; str[id] == s {
				return id, i
			}
		}
	}
}

// insert puts id (hash h) in the empty slot find just returned for it
// (the table may grow: a slot is good for one insert only).
func (t *strTab) insert(slot int, h uint32, id int32) {
	t.slots[slot] = uint64(h)<<32 | uint64(uint32(id+1))
	if t.used++; t.used*4 > len(t.slots)*3 {
		t.grow()
	}
}

// reserve grows the table, once, to hold n strings in all.
func (t *strTab) reserve(n int) {
	if size := strTabSize(n); size > len(t.slots) {
		t.resize(size)
	}
}

// grow doubles the table.
func (t *strTab) grow() { t.resize(2 * len(t.slots)) }

// resize places every entry, by its stored hash, in a table of size
// slots (a power of two).
func (t *strTab) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	mask := len(t.slots) - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := int(uint32(e>>32)) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = e
	}
}
