package parser

import (
	"bytes"
	"math/bits"
)

// This file owns the SIMD side of the prefilter: a Teddy searcher (the
// packed multi-literal algorithm of Hyperscan and of Rust's aho-corasick
// crate, which ripgrep runs) for the few byte strings that make a line worth
// decoding. The kernel (teddy_amd64.s, AVX2) examines 32 positions at once:
// position p is a candidate when the bytes p, p+1 and p+2 can start a
// literal of one of eight buckets, each byte tested with two 16-entry nibble
// tables (VPSHUFB). Candidates are then verified here, in Go. The scalar
// searchers stay the reference and the fallback on other CPUs.

// teddyMasks is the kernel's table: for k = 0, 1, 2 the low- and
// high-nibble bucket tables of the (k+1)th byte, each 16 entries repeated in
// both 128-bit lanes, then 32 bytes of 0x0F.
type teddyMasks [7][32]byte

// teddySet is one set of literals prepared for the kernel. A literal of one
// byte or two matches whatever follows it: its bucket accepts every byte in
// the positions it does not have.
type teddySet struct {
	masks teddyMasks
	// byFirst lists, per first byte, the literals that start with it
	byFirst [256][][]byte
	// first marks the bytes that start a literal, for the scalar tail
	first [256]bool
}

// newTeddySet spreads lits over the eight buckets, merging the literals
// whose merged nibble tables accept the fewest extra 3-byte strings.
func newTeddySet(lits [][]byte) *teddySet {
	type group struct{ lits [][]byte }
	groups := make([]group, 0, len(lits))
	for _, l := range lits {
		if len(l) == 0 {
			panic("teddy: empty literal")
		}
		groups = append(groups, group{lits: [][]byte{l}})
	}
	// cost: the number of 3-byte strings the group's nibble tables accept
	cost := func(ls [][]byte) int {
		c := 1
		for k := 0; k < 3; k++ {
			var lo, hi [16]bool
			nlo, nhi := 0, 0
			for _, l := range ls {
				if k >= len(l) {
					nlo, nhi = 16, 16
					break
				}
				if b := l[k]; !lo[b&15] {
					lo[b&15] = true
					nlo++
				}
				if b := l[k]; !hi[b>>4] {
					hi[b>>4] = true
					nhi++
				}
			}
			c *= nlo * nhi
		}
		return c
	}
	for len(groups) > 8 {
		bi, bj, best := 0, 1, -1
		for i := range groups {
			for j := i + 1; j < len(groups); j++ {
				merged := append(append([][]byte{}, groups[i].lits...), groups[j].lits...)
				extra := cost(merged) - cost(groups[i].lits) - cost(groups[j].lits)
				if best < 0 || extra < best {
					bi, bj, best = i, j, extra
				}
			}
		}
		groups[bi].lits = append(groups[bi].lits, groups[bj].lits...)
		groups = append(groups[:bj], groups[bj+1:]...)
	}
	s := &teddySet{}
	for bucket, g := range groups {
		bit := byte(1) << bucket
		for _, l := range g.lits {
			for k := 0; k < 3; k++ {
				if k >= len(l) {
					for n := 0; n < 16; n++ {
						s.setNibbles(k, n, n, bit)
					}
					continue
				}
				s.setNibbles(k, int(l[k]&15), int(l[k]>>4), bit)
			}
		}
	}
	for i := range s.masks[6] {
		s.masks[6][i] = 0x0f
	}
	for _, l := range lits {
		s.byFirst[l[0]] = append(s.byFirst[l[0]], l)
		s.first[l[0]] = true
	}
	return s
}

// setNibbles lets bucket bit accept low nibble lo and high nibble hi as
// byte k of a literal. A bucket accepts every (lo, hi) pair of its literals,
// which is where false candidates come from.
func (s *teddySet) setNibbles(k, lo, hi int, bit byte) {
	s.masks[2*k][lo] |= bit
	s.masks[2*k][16+lo] |= bit
	s.masks[2*k+1][hi] |= bit
	s.masks[2*k+1][16+hi] |= bit
}

// verify reports whether a literal of s starts at b[p].
func (s *teddySet) verify(b []byte, p int) bool {
	for _, l := range s.byFirst[b[p]] {
		if bytes.HasPrefix(b[p:], l) {
			return true
		}
	}
	return false
}

// index returns the smallest p at which a literal of s starts in b, or -1.
// Without the kernel (useTeddy false) it is a byte-at-a-time scan.
func (s *teddySet) index(b []byte) int {
	off := 0
	for useTeddy {
		i, m := teddyScan(b[off:], &s.masks)
		base := off + i
		if m == 0 {
			// the kernel stops short of the positions whose 3-byte window
			// passes the end of b
			off = base
			break
		}
		for ; m != 0; m &= m - 1 {
			if p := base + bits.TrailingZeros32(m); s.verify(b, p) {
				return p
			}
		}
		off = base + 32
	}
	for p := off; p < len(b); p++ {
		if s.first[b[p]] && s.verify(b, p) {
			return p
		}
	}
	return -1
}
