package parser

import (
	"bytes"
	"testing"
)

// indexNaive is the reference of teddy.Set.Index over lits.
func indexNaive(lits [][]byte, b []byte) int {
	best := -1
	for _, l := range lits {
		if i := bytes.Index(b, l); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
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
