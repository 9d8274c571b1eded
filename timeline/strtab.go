package timeline

import (
	"hash/maphash"
)

// strTab is the index of one table of a syms: an open-addressing hash set
// of sym ids, each found by its string (the syms' str). A slot holds the
// low 32 bits of the string's hash (which place it, and let most probes
// skip a string comparison) and the id +1 (0: empty), 8 bytes a string
// where a map[string]int32 costs about 30 (and allocates as it grows).
// The table has any number of slots, not a power of two: a hash places
// its string at hash×slots/2³² (slotOf), so that a table sized for n
// strings takes 1.5 n slots, not up to 2.7 n (1 GiB of churn, 206k
// names: the tables took 3.9 MB of the build's peak).
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

// strTabSize is the slots for n strings: 2/3 full (a table grows at 3/4),
// at least 16.
func strTabSize(n int) int { return max(16, n+n/2+1) }

// slotOf is the slot a hash h places its string at in a table of size slots.
func slotOf(h uint32, size int) int { return int(uint64(h) * uint64(size) >> 32) }

// find returns the id of s (hash h) among the ids of str, or -1 and the
// slot where it would go.
func (t *strTab) find(str []string, s string, h uint32) (id int32, slot int) {
	size := len(t.slots)
	for i := slotOf(h, size); ; i = slotAfter(i, size) {
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

// slotAfter is the slot probed after i in a table of size slots.
func slotAfter(i, size int) int {
	if i++; i == size {
		return 0
	}
	return i
}

// resize places every entry, by its stored hash, in a table of size
// slots.
func (t *strTab) resize(size int) {
	old := t.slots
	t.slots = make([]uint64, size)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := slotOf(uint32(e>>32), size)
		for t.slots[i] != 0 {
			i = slotAfter(i, size)
		}
		t.slots[i] = e
	}
}
