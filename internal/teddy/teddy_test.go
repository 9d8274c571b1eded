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
