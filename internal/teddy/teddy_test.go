package teddy

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// indexNaive is the reference of Set.Index.
func indexNaive(lits [][]byte, b []byte) int {
	best := -1
	for _, l := range lits {
		if i := bytes.Index(b, l); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// TestTeddyRandomSets checks the kernels (AVX-512 where it runs, and
// AVX2) and their verification on random literal sets (one to twenty
// literals of one to six bytes, so buckets get merged and short literals
// accept any following byte) over random haystacks of every length around
// the chunk and tail boundaries of both kernels, with the match placed at
// every offset.
func TestTeddyRandomSets(t *testing.T) {
	kernels := []bool{false}
	if use512 {
		kernels = append(kernels, true)
	}
	defer func(v bool) { use512 = v }(use512)
	for _, k := range kernels {
		use512 = k
		t.Run(map[bool]string{false: "avx2", true: "avx512"}[k], testRandomSets)
	}
}

func testRandomSets(t *testing.T) {
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
		tl := Prefix(lits)
		if set%2 == 1 {
			// fingerprints anywhere in the literals
			for i := range tl {
				tl[i].FP = rng.IntN(len(tl[i].Lit))
			}
		}
		ts := New(tl)
		for n := 0; n < 300; n++ {
			hay := randBytes(n)
			if got, want := ts.Index(hay), indexNaive(lits, hay); got != want {
				t.Fatalf("set %q: index(%q) = %d, want %d", lits, hay, got, want)
			}
		}
	}
}

// TestCandidates: Candidates finds exactly the positions where a literal
// starts at its fingerprint's offset (counted naively), on random sets
// and haystacks, with each kernel, and proposes no fewer.
func TestCandidates(t *testing.T) {
	kernels := []bool{false}
	if use512 {
		kernels = append(kernels, true)
	}
	defer func(v bool) { use512 = v }(use512)
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("abcdeXYZ \n")
	for _, k := range kernels {
		use512 = k
		for set := 0; set < 100; set++ {
			lits := make([]Literal, 1+rng.IntN(12))
			for i := range lits {
				l := make([]byte, 1+rng.IntN(5))
				for j := range l {
					l[j] = alphabet[rng.IntN(len(alphabet))]
				}
				lits[i] = Literal{Lit: l, FP: rng.IntN(len(l))}
			}
			s := New(lits)
			hay := make([]byte, rng.IntN(400))
			for i := range hay {
				hay[i] = alphabet[rng.IntN(len(alphabet))]
			}
			want := 0
			for p := range hay {
				for _, l := range lits {
					if st := p - l.FP; st >= 0 && bytes.HasPrefix(hay[st:], l.Lit) {
						want++
						break
					}
				}
			}
			proposed, found := s.Candidates(hay)
			if found != want || proposed < found {
				t.Fatalf("avx512 %v, %v in %q: proposed %d, found %d; want found %d", k, lits, hay, proposed, found, want)
			}
		}
	}
}

// bucketsNaive is the reference of New's merging: from one bucket per
// fingerprint, merge the pair whose merged tables cost the most over the
// two apart the least (the first such pair on a tie), recomputing every
// pair's cost each round, until eight buckets are left.
func bucketsNaive(lits []Literal) [][][]byte {
	var groups [][][]byte
	for _, l := range lits {
		groups = append(groups, [][]byte{l.fingerprint()})
	}
	cost := func(fps [][]byte) float64 {
		var a accepted
		for i, f := range fps {
			if i == 0 {
				a = acceptedOf(f)
			} else {
				a = a.or(acceptedOf(f))
			}
		}
		return a.cost()
	}
	for len(groups) > 8 {
		bi, bj, best := -1, -1, 0.0
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				merged := append(append([][]byte{}, groups[i]...), groups[j]...)
				if extra := cost(merged) - cost(groups[i]) - cost(groups[j]); bi < 0 || extra < best {
					bi, bj, best = i, j, extra
				}
			}
		}
		groups[bi] = append(groups[bi], groups[bj]...)
		groups = append(groups[:bj], groups[bj+1:]...)
	}
	return groups
}

// TestNewBuckets: New's nibble tables are those of the naive merge
// (bucketsNaive) on random sets of up to 60 literals, and on sets where
// literals share fingerprints, so merges that add nothing (a negative
// cost over the two apart) happen.
func TestNewBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("etaoinXYZ0123 :/\"")
	for set := range 300 {
		lits := make([]Literal, 1+rng.IntN(60))
		for i := range lits {
			if i > 0 && set%3 == 0 && rng.IntN(3) == 0 {
				lits[i] = lits[rng.IntN(i)] // the same fingerprint again
				continue
			}
			b := make([]byte, 1+rng.IntN(6))
			for k := range b {
				b[k] = alphabet[rng.IntN(len(alphabet))]
			}
			lits[i] = Literal{Lit: b, FP: rng.IntN(len(b))}
		}
		var want Set
		for bucket, g := range bucketsNaive(lits) {
			for _, f := range g {
				for k := range 3 {
					if k >= len(f) {
						for n := range 16 {
							want.setNibbles(k, n, n, 1<<bucket)
						}
						continue
					}
					want.setNibbles(k, int(f[k]&15), int(f[k]>>4), 1<<bucket)
				}
			}
		}
		got := New(lits).masks
		if [6][32]byte(got[:6]) != [6][32]byte(want.masks[:6]) {
			t.Fatalf("set %d (%d literals): tables differ from the naive merge's", set, len(lits))
		}
	}
}

// setNibbles is the reference of Set.accept: bucket bit accepts low nibble
// lo and high nibble hi as byte k of a literal.
func (s *Set) setNibbles(k, lo, hi int, bit byte) {
	s.masks[2*k][lo] |= bit
	s.masks[2*k][16+lo] |= bit
	s.masks[2*k+1][hi] |= bit
	s.masks[2*k+1][16+hi] |= bit
}

// BenchmarkNew: building a set of 50 literals (the parser's sets are built
// when the program starts).
func BenchmarkNew(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	lits := make([]Literal, 50)
	for i := range lits {
		l := make([]byte, 4+rng.IntN(10))
		for k := range l {
			l[k] = 'a' + byte(rng.IntN(26))
		}
		lits[i] = Literal{Lit: l}
	}
	for b.Loop() {
		New(lits)
	}
}
