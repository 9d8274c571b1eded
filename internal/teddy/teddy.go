// Package teddy finds the first of a small set of byte strings in a byte
// slice: a Teddy searcher (the packed multi-literal algorithm of Hyperscan
// and of Rust's aho-corasick crate, which ripgrep runs). It knows nothing of
// logs; the parser's prefilter builds its sets from the token list of
// parser/classifier. The kernel (teddy_amd64.s) examines 32 positions at
// once with AVX2, 64 with AVX-512 (VBMI's VPERMB) where the CPU has it:
// position p is a candidate when the bytes p, p+1 and p+2 can be the
// fingerprint of a literal of one of eight buckets, each byte tested with
// two 16-entry nibble tables (VPSHUFB). Candidates are then verified here,
// in Go. Without the kernel (Available false) Set.Index is a byte-at-a-time
// scan; callers that care keep a faster scalar searcher of their own.
//
// A literal's fingerprint is 3 of its bytes, not necessarily its first
// ones (Literal.FP): every candidate costs a return from the kernel and a
// verification, so each literal is looked for by its rarest 3 bytes in
// logs ("kId" of "diskId", not "dis" of "display", "discovery", …).
package teddy

import (
	"bytes"
	"math/bits"
)

// nibbleMasks is the kernel's table: for k = 0, 1, 2 the low- and
// high-nibble bucket tables of the (k+1)th byte, each 16 entries repeated in
// both 128-bit lanes, then 32 bytes of 0x0F.
type nibbleMasks [7][32]byte

// Literal is a literal and the offset of its fingerprint, the bytes
// Lit[FP:FP+3] (fewer when the literal is shorter) the kernel looks for.
type Literal struct {
	Lit []byte
	FP  int
}

// fingerprint is the part of l the kernel looks for.
func (l Literal) fingerprint() []byte { return l.Lit[l.FP:min(len(l.Lit), l.FP+3)] }

// Prefix fingerprints each literal by its first bytes.
func Prefix(lits [][]byte) []Literal {
	out := make([]Literal, len(lits))
	for i, l := range lits {
		out[i] = Literal{Lit: l}
	}
	return out
}

// Set is one set of literals prepared for the kernel. A fingerprint of
// one byte or two matches whatever follows it: its bucket accepts every
// byte in the positions it does not have.
type Set struct {
	masks nibbleMasks
	// byFP lists, per first byte of a fingerprint, the literals with it
	byFP [256][]Literal
	// fpFirst marks the bytes that start a fingerprint, for the scalar tail
	fpFirst [256]bool
	// maxFP is the largest fingerprint offset: a literal found at s is the
	// first one once every fingerprint position up to s+maxFP is examined
	maxFP int
}

// New spreads lits over the eight buckets, merging the literals whose
// merged nibble tables accept the fewest extra 3-byte strings, each
// string weighted by how often text holds it (textFreq).
func New(lits []Literal) *Set {
	groups := make([]accepted, 0, len(lits)) // a bucket: what its tables accept
	for _, l := range lits {
		if len(l.Lit) == 0 || l.FP < 0 || l.FP >= len(l.Lit) {
			panic("teddy: empty literal or fingerprint outside it")
		}
		groups = append(groups, acceptedOf(l.fingerprint()))
	}
	// Merge the pair whose merge adds the least cost, until eight are
	// left (the first such pair in order on a tie). A pair's added cost
	// depends on the pair alone: it is computed once (extra), and again
	// only for the pairs of a group just merged.
	n := len(groups)
	alive := make([]bool, n)
	costs := make([]float64, n)
	for i := range groups {
		alive[i], costs[i] = true, groups[i].cost()
	}
	extra := make([]float64, n*n)
	pair := func(i, j int) float64 {
		return groups[i].or(groups[j]).cost() - costs[i] - costs[j]
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			extra[i*n+j] = pair(i, j)
		}
	}
	for left := n; left > 8; left-- {
		bi, bj, best := -1, -1, 0.0
		for i := range n {
			if !alive[i] {
				continue
			}
			for j := i + 1; j < n; j++ {
				if alive[j] && (bi < 0 || extra[i*n+j] < best) {
					bi, bj, best = i, j, extra[i*n+j]
				}
			}
		}
		groups[bi] = groups[bi].or(groups[bj])
		costs[bi], alive[bj] = groups[bi].cost(), false
		for k := range n {
			switch {
			case !alive[k] || k == bi:
			case k < bi:
				extra[k*n+bi] = pair(k, bi)
			default:
				extra[bi*n+k] = pair(bi, k)
			}
		}
	}
	s := &Set{}
	bucket := 0
	for i, a := range groups {
		if alive[i] {
			s.accept(a, byte(1)<<bucket)
			bucket++
		}
	}
	for i := range s.masks[6] {
		s.masks[6][i] = 0x0f
	}
	for _, l := range lits {
		c := l.Lit[l.FP]
		s.byFP[c] = append(s.byFP[c], l)
		s.fpFirst[c] = true
		s.maxFP = max(s.maxFP, l.FP)
	}
	return s
}

// accept lets bucket bit accept what a accepts. A bucket accepts every
// (low, high) nibble pair of its literals' bytes, which is where false
// candidates come from.
func (s *Set) accept(a accepted, bit byte) {
	for k := range 3 {
		for n := range 16 {
			if a.lo[k]&(1<<n) != 0 {
				s.masks[2*k][n] |= bit
				s.masks[2*k][16+n] |= bit
			}
			if a.hi[k]&(1<<n) != 0 {
				s.masks[2*k+1][n] |= bit
				s.masks[2*k+1][16+n] |= bit
			}
		}
	}
}

// startAt returns the smallest start of a literal of s whose fingerprint
// is at b[p], or -1.
func (s *Set) startAt(b []byte, p int) int {
	best := -1
	for _, l := range s.byFP[b[p]] {
		if st := p - l.FP; st >= 0 && (best < 0 || st < best) && bytes.HasPrefix(b[st:], l.Lit) {
			best = st
		}
	}
	return best
}

// Candidates counts the positions of b the search proposes (the kernel's
// candidates; without it, or in the tail the kernel leaves, the positions
// of a fingerprint's first byte) and those of them where a literal's
// fingerprint is found (its literal starts FP bytes before). Every
// proposed position that is not found is a return from the kernel, or a
// verification, for nothing: what choosing fingerprints is about.
func (s *Set) Candidates(b []byte) (proposed, found int) {
	see := func(p int) {
		proposed++
		if s.startAt(b, p) >= 0 {
			found++
		}
	}
	off := 0
	for Available {
		i, m, width := scan(b[off:], &s.masks)
		if m == 0 {
			off += i
			break
		}
		for ; m != 0; m &= m - 1 {
			see(off + i + bits.TrailingZeros64(m))
		}
		off += i + width
	}
	for p := off; p < len(b); p++ {
		if s.fpFirst[b[p]] {
			see(p)
		}
	}
	return proposed, found
}

// Index returns the smallest p at which a literal of s starts in b, or -1.
// Fingerprint positions are examined in order, so a literal found at st is
// the answer once the positions up to st+maxFP have been: a literal that
// starts earlier has its fingerprint no later. Without the kernel
// (Available false) it is a byte-at-a-time scan.
func (s *Set) Index(b []byte) int {
	best := -1
	off := 0
	for Available {
		i, m, width := scan(b[off:], &s.masks)
		base := off + i
		if m == 0 {
			// the kernel stops short of the positions whose 3-byte window
			// passes the end of b
			off = base
			break
		}
		for ; m != 0; m &= m - 1 {
			p := base + bits.TrailingZeros64(m)
			if best >= 0 && p > best+s.maxFP {
				return best
			}
			if st := s.startAt(b, p); st >= 0 && (best < 0 || st < best) {
				best = st
			}
		}
		off = base + width
		if best >= 0 && off > best+s.maxFP {
			return best
		}
	}
	for p := off; p < len(b); p++ {
		if best >= 0 && p > best+s.maxFP {
			return best
		}
		if s.fpFirst[b[p]] {
			if st := s.startAt(b, p); st >= 0 && (best < 0 || st < best) {
				best = st
			}
		}
	}
	return best
}

// accepted is what a bucket's nibble tables accept: for each of the 3
// bytes of a fingerprint, the set of low nibbles and of high nibbles (bit
// n: nibble n). A fingerprint shorter than 3 bytes accepts any byte where
// it has none.
type accepted struct{ lo, hi [3]uint16 }

// acceptedOf is what the tables of fingerprint f alone accept.
func acceptedOf(f []byte) (a accepted) {
	for k := range 3 {
		if k >= len(f) {
			a.lo[k], a.hi[k] = 0xffff, 0xffff
			continue
		}
		a.lo[k], a.hi[k] = 1<<(f[k]&15), 1<<(f[k]>>4)
	}
	return a
}

// or is what the tables of a and b merged in one bucket accept.
func (a accepted) or(b accepted) accepted {
	for k := range 3 {
		a.lo[k] |= b.lo[k]
		a.hi[k] |= b.hi[k]
	}
	return a
}

// cost is how often the tables accept a 3-byte string of text: the sum,
// over the strings they accept, of the product of their bytes'
// frequencies (textFreq).
func (a accepted) cost() float64 {
	c := 1.0
	for k := range 3 {
		w := 0.0
		for h := range 16 {
			if a.hi[k]&(1<<h) == 0 {
				continue
			}
			for n := range 16 {
				if a.lo[k]&(1<<n) != 0 {
					w += textFreq[h<<4|n]
				}
			}
		}
		c *= w
	}
	return c
}

// textFreq is how often each byte occurs in text, roughly (per 1000 bytes
// of English words, spaces, digits and punctuation): New merges buckets
// by it, so that the false candidates a merge adds are strings text
// rarely holds ("Zkq"), not ones it is full of ("eti", "d d"). Merging
// by the number of strings accepted alone, as before, put "eta" and "evi"
// in one bucket, whose "eti" was a third of a generated KCM log's kernel
// returns.
var textFreq = func() (f [256]float64) {
	for i := range f {
		f[i] = 0.01 // control bytes, UTF-8's high bytes
	}
	// English letter frequencies, per 1000 letters
	letters := "etaoinshrdlcumwfgypbvkjxqz"
	per := []float64{127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40, 28, 28, 24, 24, 22, 20, 20, 19, 15, 10, 8, 2, 2, 1, 1}
	for i, c := range []byte(letters) {
		f[c] = per[i] * 0.8            // letters are ~80% of text's non-space bytes
		f[c-'a'+'A'] = per[i]*0.08 + 1 // capitals: sentence starts, CamelCase, acronyms
	}
	for c := '0'; c <= '9'; c++ {
		f[c] = 25 // timestamps, ids, sizes
	}
	f[' '] = 150
	for _, c := range []byte(".,:;/\"'=-_()[]{}<>") {
		f[c] = 8
	}
	f['\n'], f['\t'] = 10, 2
	return f
}()
