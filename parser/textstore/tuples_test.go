package textstore

import (
	"fmt"
	"testing"
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
