package prefault

import (
	"runtime/debug"
	"testing"
)

type event struct {
	s   string
	p   *int
	n   int
	pad [200]byte
}

// TestSliceKeepsZeroAndLength: Slice returns s unchanged (length,
// capacity, every value zero) for arrays smaller and larger than a page,
// and for empty ones.
func TestSliceKeepsZeroAndLength(t *testing.T) {
	for _, c := range []int{0, 1, 7, 20, 5000} {
		s := Slice(make([]event, 0, c))
		if len(s) != 0 || cap(s) != c {
			t.Fatalf("cap %d: got len %d cap %d", c, len(s), cap(s))
		}
		for i, v := range s[:c] {
			if v.s != "" || v.p != nil || v.n != 0 || v.pad != [200]byte{} {
				t.Fatalf("cap %d: element %d changed: %+v", c, i, v)
			}
		}
	}
}

func BenchmarkSlice(b *testing.B) {
	const n = 64 << 10
	b.SetBytes(n * int64(len(event{}.pad)+32))
	for b.Loop() {
		_ = Slice(make([]event, 0, n))
	}
}

// TestHoldCollectorNestsAndRestores: GOGC is raised while any hold is
// held, whatever the order of release, restored (to a value set before)
// when the last goes, and a second release of one hold changes nothing.
func TestHoldCollectorNestsAndRestores(t *testing.T) {
	before := debug.SetGCPercent(137)
	defer debug.SetGCPercent(before)
	a := HoldCollector()
	b := HoldCollector()
	if got := debug.SetGCPercent(holdPercent); got != holdPercent {
		t.Fatalf("GOGC while held = %d, want %d", got, holdPercent)
	}
	a()
	a() // a second release is no release
	if got := debug.SetGCPercent(holdPercent); got != holdPercent {
		t.Fatalf("GOGC with one hold left = %d, want %d", got, holdPercent)
	}
	b()
	if got := debug.SetGCPercent(137); got != 137 {
		t.Fatalf("GOGC after the last release = %d, want 137", got)
	}
}

// TestSetGCPercentUnderHold: without a hold SetGCPercent sets GOGC; under
// one it leaves the hold's value and sets what the last release restores.
func TestSetGCPercentUnderHold(t *testing.T) {
	before := debug.SetGCPercent(137)
	defer debug.SetGCPercent(before)
	gogc := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	if old := SetGCPercent(-1); old != 137 || gogc() != -1 {
		t.Fatalf("SetGCPercent(-1) without a hold: returned %d (want 137), GOGC %d (want -1)", old, gogc())
	}
	release := HoldCollector()
	if old := SetGCPercent(55); old != -1 || gogc() != holdPercent {
		t.Fatalf("SetGCPercent(55) under a hold: returned %d (want -1), GOGC %d (want the hold's %d)", old, gogc(), holdPercent)
	}
	release()
	if got := gogc(); got != 55 {
		t.Fatalf("GOGC after the release = %d, want 55", got)
	}
}

// TestMakeIsMake: Make returns what make would, and lets the collector go.
func TestMakeIsMake(t *testing.T) {
	before := debug.SetGCPercent(91)
	defer debug.SetGCPercent(before)
	s := Make[event](3, 5000)
	if len(s) != 3 || cap(s) != 5000 || s[2].s != "" || s[2].p != nil {
		t.Fatalf("Make(3, 5000): len %d cap %d %+v", len(s), cap(s), s[2])
	}
	if got := debug.SetGCPercent(91); got != 91 {
		t.Fatalf("GOGC after Make = %d, want 91", got)
	}
}

// TestPrefixKeepsZeroAndLength: Prefix, for any n (none, part of a page,
// more than the capacity, negative), returns s unchanged, and MakeFor is
// make(0, c) that lets the collector go.
func TestPrefixKeepsZeroAndLength(t *testing.T) {
	for name, c := range map[string]struct{ cap, n int }{
		"empty":            {0, 5},
		"none":             {5000, 0},
		"within a page":    {5000, 3},
		"half":             {5000, 2500},
		"all":              {5000, 5000},
		"past the end":     {5000, 9000},
		"negative":         {5000, -1},
		"smaller than one": {7, 1},
	} {
		s := Prefix(make([]event, 0, c.cap), c.n)
		if len(s) != 0 || cap(s) != c.cap {
			t.Fatalf("%s: len %d cap %d", name, len(s), cap(s))
		}
		for i, v := range s[:c.cap] {
			if v.s != "" || v.p != nil || v.n != 0 || v.pad != [200]byte{} {
				t.Fatalf("%s: element %d changed: %+v", name, i, v)
			}
		}
	}
	before := debug.SetGCPercent(91)
	defer debug.SetGCPercent(before)
	s := MakeFor[event](5000, 100)
	if len(s) != 0 || cap(s) != 5000 {
		t.Fatalf("MakeFor(5000, 100): len %d cap %d", len(s), cap(s))
	}
	if got := debug.SetGCPercent(91); got != 91 {
		t.Fatalf("GOGC after MakeFor = %d, want 91", got)
	}
}
