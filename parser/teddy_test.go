package parser

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// indexNaive is the reference of teddySet.index.
func indexNaive(lits [][]byte, b []byte) int {
	best := -1
	for _, l := range lits {
		if i := bytes.Index(b, l); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// TestTeddyRandomSets checks the kernel and its verification on random
// literal sets (one to twenty literals of one to six bytes, so buckets get
// merged and short literals accept any following byte) over random
// haystacks of every length around the chunk and tail boundaries, with the
// match placed at every offset.
func TestTeddyRandomSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcdeXYZ \x00\xc2\xa0\n")
	randBytes := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for set := 0; set < 200; set++ {
		lits := make([][]byte, 1+rng.IntN(20))
		for i := range lits {
			lits[i] = randBytes(1 + rng.IntN(6))
		}
		tl := prefixLits(lits)
		if set%2 == 1 {
			// fingerprints anywhere in the literals
			for i := range tl {
				tl[i].fp = rng.IntN(len(tl[i].lit))
			}
		}
		ts := newTeddySet(tl)
		for n := 0; n < 140; n++ {
			hay := randBytes(n)
			if got, want := ts.index(hay), indexNaive(lits, hay); got != want {
				t.Fatalf("set %q: index(%q) = %d, want %d", lits, hay, got, want)
			}
		}
	}
}

// TestTeddyEveryOffset plants one token at every offset of haystacks that
// contain none, so each position of a chunk and of the scalar tail is hit.
func TestTeddyEveryOffset(t *testing.T) {
	for _, tok := range hitLiterals {
		for n := len(tok); n < 160; n++ {
			for at := 0; at+len(tok) <= n; at++ {
				hay := bytes.Repeat([]byte{'.'}, n)
				copy(hay[at:], tok)
				if got := indexHit(hay); got != at {
					t.Fatalf("indexHit(%q) = %d, want %d", hay, got, at)
				}
				if got, want := indexToken(hay), indexTokenSlow(hay); got != want {
					t.Fatalf("indexToken(%q) = %d, want %d", hay, got, want)
				}
			}
		}
	}
}

// indexHitSlow is the reference of indexHit.
func indexHitSlow(b []byte) int {
	return indexNaive(hitLiterals, b)
}

func FuzzIndexHit(f *testing.F) {
	f.Add([]byte("I0812 03:10:00.000001       1 event.go:291] x\x00 No retries \u00a0"))
	f.Add(bytes.Repeat([]byte("serial diskI"), 9))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := indexHit(b), indexHitSlow(b); got != want {
			t.Fatalf("indexHit(%q) = %d, reference %d", b, got, want)
		}
		if got, want := indexTokenScalar(b), indexTokenSlow(b); got != want {
			t.Fatalf("indexTokenScalar(%q) = %d, reference %d", b, got, want)
		}
	})
}
