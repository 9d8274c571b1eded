package swar

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
	"testing"
)

// The classes, byte by byte: what each word test must agree with.
var classes = []struct {
	name string
	mask func(uint64) uint64
	in   func(c byte) bool
}{
	{"NonASCII", NonASCII, func(c byte) bool { return c >= 0x80 }},
	{"JSONStops", JSONStops, func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }},
	{"NotPlainJSON", NotPlainJSON, func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80 }},
	{"Unprintable", Unprintable, func(c byte) bool { return c < 0x20 || c > 0x7e }},
}

// firstIn is the index of the first byte of w in the class (8: none).
func firstIn(w []byte, in func(byte) bool) int {
	for i, c := range w {
		if in(c) {
			return i
		}
	}
	return 8
}

// check: the mask of w is zero exactly when no byte of w is in the class,
// and otherwise First finds the first that is.
func check(t *testing.T, w []byte) {
	t.Helper()
	x := binary.LittleEndian.Uint64(w)
	if got := Load(string(w)); got != x {
		t.Fatalf("Load(%q) = %#x, want %#x", w, got, x)
	}
	for _, c := range classes {
		want, m := firstIn(w, c.in), c.mask(x)
		switch {
		case want == 8 && m != 0:
			t.Fatalf("%s(%q) = %#x: flags a byte, none is in the class", c.name, w, m)
		case want < 8 && m == 0:
			t.Fatalf("%s(%q) = 0: byte %d (%#x) is in the class", c.name, w, want, w[want])
		case want < 8 && First(m) != want:
			t.Fatalf("%s(%q) = %#x: first flag at byte %d, the first in the class is %d", c.name, w, m, First(m), want)
		}
	}
}

// TestEveryByteEverywhere: every byte value at every position of a word
// of plain bytes, and before and after a second byte of every value.
func TestEveryByteEverywhere(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 8; pos++ {
			w := []byte("aZ09 ~.a")
			w[pos] = byte(c)
			check(t, w)
			for d := 0; d < 256; d++ {
				for other := pos + 1; other < 8; other++ {
					v := []byte("aZ09 ~.a")
					v[pos], v[other] = byte(c), byte(d)
					check(t, v)
				}
			}
		}
	}
}

// TestRandomWords: words of bytes drawn near the classes' edges, where a
// borrow or carry would show.
func TestRandomWords(t *testing.T) {
	edges := []byte{0, 1, 0x1f, 0x20, 0x21, '"' - 1, '"', '"' + 1, '\\' - 1, '\\', '\\' + 1, 0x7e, 0x7f, 0x80, 0x81, 0xa0, 0xdc, 0xfe, 0xff, 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	w := make([]byte, 8)
	for range 500000 {
		for i := range w {
			if rng.IntN(3) == 0 {
				w[i] = byte(rng.IntN(256))
			} else {
				w[i] = edges[rng.IntN(len(edges))]
			}
		}
		check(t, w)
	}
}

func TestIsASCII(t *testing.T) {
	for n := 0; n <= 20; n++ {
		s := strings.Repeat("k", n)
		if !IsASCII(s) {
			t.Fatalf("IsASCII(%q) = false", s)
		}
		for pos := 0; pos < n; pos++ {
			for _, c := range []byte{0x7f, 0x80, 0xc3, 0xff} {
				b := []byte(s)
				b[pos] = c
				if got, want := IsASCII(string(b)), c < 0x80; got != want {
					t.Fatalf("IsASCII(%q) = %v, want %v", b, got, want)
				}
			}
		}
	}
}

// FuzzWords: every eight-byte window of any input, as TestRandomWords.
func FuzzWords(f *testing.F) {
	f.Add([]byte(`"ts":1723420819247.976,"msg":"a\"b\\c` + "\x00\x1f\x7f\x80\xff"))
	f.Add([]byte("I0812 00:00:18.900086       1 reconciler.go:304] \u00e4\u00a0\t"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := 0; i+8 <= len(b); i++ {
			check(t, b[i:i+8])
		}
		if want := !strings.ContainsFunc(string(b), func(r rune) bool { return r >= 0x80 }); IsASCII(string(b)) != want {
			t.Fatalf("IsASCII(%q) = %v, want %v", b, !want, want)
		}
	})
}
