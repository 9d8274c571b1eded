package parser

import (
	"bytes"
	"encoding/binary"

	"github.com/kcmtrace/kcmtrace/internal/teddy"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// prefilterTokens are the byte strings that make a line worth parsing; the
// list and why each is on it live in classifier (tokens.go).
var prefilterTokens = classifier.PrefilterTokens()

// prefilterHashBits sizes the gram table of indexToken.
const prefilterHashBits = 12

func le32(b []byte, i int) uint32 {
	_ = b[i+3]
	return uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
}

func prefilterHash(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - prefilterHashBits) }

// mayMatter reports whether line contains one of the prefilter tokens.
func mayMatter(line []byte) bool { return indexToken(line) >= 0 }

var (
	// tokenTeddy finds the prefilter tokens with the SIMD kernel.
	tokenTeddy = teddy.New(fingerprinted(prefilterTokens))
	// hitLiterals are the prefilter tokens, the NUL byte and the no-break
	// space: whatever keeps a line out of a plain run (analyzeBlock).
	hitLiterals = append([][]byte{{0}, nbsp}, prefilterTokens...)
	// hitTeddy finds hitLiterals.
	hitTeddy = teddy.New(fingerprinted(hitLiterals))
)

// tokenFingerprints gives, for the prefilter tokens whose first 3 bytes are
// common in logs, the offset of the 3 bytes the Teddy kernel looks for
// instead. Chosen by counting each 3-byte part of each token (outside the
// token) in 64 MiB of every era of generated KCM log, in the real logs of
// testdata and in 20 MB of English documentation: with the first bytes,
// "ser", "dis" and "Sta" (and "sta", which the bucket of "Sta" accepted)
// made 9 of 10 kernel candidates, each a return to Go for nothing.
var tokenFingerprints = map[string]int{
	`Started "`: 6, // `d "`: none in generated logs; "Sta" 21.7k per 64 MiB (Status, State, Starting)
	"serial":    2, // "ria": none in logs; "ser" 72k (server, service, user, observed)
	"diskId":    3, // "kId": 72; "dis" 48.6k (display, discovery, disabled)
	"etach":     1, // "tac": 24-29k wasted candidates per 256 MiB of each era, mostly in "attach" (the same kernel return as its "tta"); "eta" 109-147k (metadata, beta)
}

// fingerprinted pairs each literal with its fingerprint offset
// (tokenFingerprints; 0, its first bytes, for the others).
func fingerprinted(lits [][]byte) []teddy.Literal {
	out := teddy.Prefix(lits)
	for i := range out {
		out[i].FP = tokenFingerprints[string(out[i].Lit)]
	}
	return out
}

// useTeddy reports whether the SIMD kernel runs here.
var useTeddy = teddy.Available

// indexToken returns the index of the first prefilter token in b, or -1.
func indexToken(b []byte) int {
	if useTeddy {
		return tokenTeddy.Index(b)
	}
	return indexTokenScalar(b)
}

// indexHit returns the index of the first prefilter token, NUL byte or
// no-break space in b, or -1.
func indexHit(b []byte) int {
	if useTeddy {
		return hitTeddy.Index(b)
	}
	best := indexTokenScalar(b)
	if i := bytes.IndexByte(b, 0); i >= 0 && (best < 0 || i < best) {
		best = i
	}
	if i := bytes.Index(b, nbsp); i >= 0 && (best < 0 || i < best) {
		best = i
	}
	return best
}

// mayMatterSlow is the reference implementation of mayMatter.
func mayMatterSlow(line []byte) bool {
	for _, t := range prefilterTokens {
		if bytes.Contains(line, t) {
			return true
		}
	}
	return false
}

// indexTokenScalar returns the index of the first prefilter token in b, or
// -1, without SIMD. It runs over whole blocks of the input, so the work per
// byte is what counts: it reads the 4 bytes at every even offset only. Every token is at
// least 5 bytes long, so an occurrence at p has its first 4 bytes at p or
// its bytes 1..4 at p+1, one of them even; tokenGrams holds both 4-byte
// grams of every token (hashed into tokenHit), and only a sampled gram whose
// bit is set is compared with the tokens it may start or continue.
func indexTokenScalar(b []byte) int {
	i := 0
	// six grams (offsets i, i+2, …, i+10) per two 8-byte loads; one branch
	// for all of them
	for ; i+14 <= len(b); i += 12 {
		x := binary.LittleEndian.Uint64(b[i:])
		y := binary.LittleEndian.Uint64(b[i+6:])
		if tokenHit[prefilterHash(uint32(x))]|tokenHit[prefilterHash(uint32(x>>16))]|
			tokenHit[prefilterHash(uint32(x>>32))]|tokenHit[prefilterHash(uint32(y))]|
			tokenHit[prefilterHash(uint32(y>>16))]|tokenHit[prefilterHash(uint32(y>>32))] == 0 {
			continue
		}
		for j := i; j < i+12; j += 2 {
			k := le32(b, j)
			h := prefilterHash(k)
			if tokenHit[h] == 0 {
				continue
			}
			if p := tokenAt(b, j, k, h); p >= 0 {
				return p
			}
		}
	}
	for ; i+4 <= len(b); i += 2 {
		k := le32(b, i)
		h := prefilterHash(k)
		if tokenHit[h] == 0 {
			continue
		}
		if p := tokenAt(b, i, k, h); p >= 0 {
			return p
		}
	}
	return -1
}

// tokenAt checks the tokens whose gram k may sit at b[i:]; it returns the
// smallest start of a token found, or -1.
func tokenAt(b []byte, i int, k, h uint32) int {
	best := -1
	for _, g := range tokenGrams[h] {
		if g.k != k {
			continue
		}
		p := i - g.off
		if p < 0 || (best >= 0 && p >= best) {
			continue
		}
		if bytes.HasPrefix(b[p:], g.tok) {
			best = p
		}
	}
	return best
}

// tokenGram is a 4-byte gram of a token at offset off (0 or 1).
type tokenGram struct {
	k   uint32
	off int
	tok []byte
}

var (
	tokenHit   [1 << prefilterHashBits]uint8
	tokenGrams [1 << prefilterHashBits][]tokenGram
)

func init() {
	for _, t := range prefilterTokens {
		if len(t) < 5 {
			panic("prefilter token shorter than 5 bytes: " + string(t))
		}
		for off := 0; off < 2; off++ {
			k := le32(t, off)
			h := prefilterHash(k)
			tokenHit[h] = 1
			tokenGrams[h] = append(tokenGrams[h], tokenGram{k: k, off: off, tok: t})
		}
	}
}

// nbsp is the UTF-8 no-break space that physical normalises.
var nbsp = []byte("\u00a0")
