package timeline

import (
	"fmt"
	"testing"
)

// A table sized for a few strings grows as thousands go in, and finds
// each under its own id, and no string it was not given.
func TestStrTab(t *testing.T) {
	tab := makeStrTab(2)
	var str []string
	for i := range 5000 {
		s := fmt.Sprintf("pvc-%d", i)
		h := strHash(s)
		if id, _ := tab.find(str, s, h); id >= 0 {
			t.Fatalf("find(%q) = %d before it went in", s, id)
		}
		_, slot := tab.find(str, s, h)
		str = append(str, s)
		tab.insert(slot, h, int32(i))
	}
	if len(tab.slots) < 5000*4/3 {
		t.Errorf("%d slots for 5000 strings: the table did not grow", len(tab.slots))
	}
	for i, s := range str {
		if id, _ := tab.find(str, s, strHash(s)); id != int32(i) {
			t.Fatalf("find(%q) = %d, want %d", s, id, i)
		}
		if id, _ := tab.find(str, s+"x", strHash(s+"x")); id >= 0 {
			t.Fatalf("find(%q) = %d, never given", s+"x", id)
		}
	}
}
