package textstore

import (
	"fmt"
	"testing"
	"unsafe"
)

// TestTuplesIntern: equal tuples are one pointer, own is called once per
// tuple made, a different tuple is another, and the tuples survive the
// table's growth.
func TestTuplesIntern(t *testing.T) {
	type pair struct{ a, b string }
	var c Tuples[pair]
	owned := 0
	own := func(*pair) { owned++ }
	in := func(p pair) *pair { return c.Intern(p, HashStrings(p.a, p.b, "", ""), own) }
	x, y := in(pair{"vol-1", "node-1"}), in(pair{"vol-1", "node-1"})
	if x != y || owned != 1 {
		t.Fatalf("equal tuples: %p %p, own called %d times", x, y, owned)
	}
	if z := in(pair{"vol-1", "node-2"}); z == x || *z != (pair{"vol-1", "node-2"}) || owned != 2 {
		t.Fatalf("a different tuple: %p %+v, own called %d times", z, *z, owned)
	}
	for i := range 1000 { // grows the table
		in(pair{fmt.Sprint("v", i), "n"})
	}
	if in(pair{"v999", "n"}) == nil || *in(pair{"v999", "n"}) != (pair{"v999", "n"}) || owned != 1002 {
		t.Errorf("after growth: own called %d times, want 1002", owned)
	}
	if HashStrings("ab", "", "", "") == HashStrings("a", "b", "", "") {
		t.Error("the strings' boundaries do not change the hash")
	}
}

// TestHashNames: a tuple's hash from its names' hashes is HashStrings',
// and a name interned with its hash is the string Intern gives.
func TestHashNames(t *testing.T) {
	for _, c := range [][4]string{{"", "", "", ""}, {"vol-1", "", "", ""}, {"a", "b", "c", "d"}, {"", "pv", "", "att"}} {
		h := [4]uint64{Hash(c[0]), Hash(c[1]), Hash(c[2]), Hash(c[3])}
		if got, want := HashNames(c[0], c[1], c[2], c[3], h), HashStrings(c[0], c[1], c[2], c[3]); got != want {
			t.Errorf("%q: HashNames %x, HashStrings %x", c, got, want)
		}
	}
	var n Names
	a := n.Intern(fmt.Sprint("node-", 1))
	if b := n.InternHash(fmt.Sprint("node-", 1), Hash("node-1")); unsafe.StringData(a) != unsafe.StringData(b) {
		t.Error("InternHash made a new string of a name interned")
	}
	if Hash("") != 0 || n.InternHash("", 0) != "" {
		t.Error(`"" does not hash to 0 or is interned`)
	}
}
