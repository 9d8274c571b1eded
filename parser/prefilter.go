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

// seg is a span of a block of whole lines: either a run of n "plain" lines

// (see analyzeBlock) or, when n is 0, lines the scanner reads one by one.

// trackTS folds the "ts" of the plain JSON line into the run's time range,

// as trackAbs(jsonTS(line)) would, without building a time for a decimal

// "ts" (the JSON logger's form).

// foldNS folds a plausible "ts" in nanoseconds into the run's range.

// loggerTS decodes the "ts" of a line as the JSON logger writes it —

// {"ts": then 13 digits of milliseconds, ".", one or more digits, and a

// byte that cannot continue a number — into nanoseconds, as the general

// path of trackTS would (jsonTSNumber, decimalMillis: the first six digits

// of the fraction; plausibleMillis). ok is false for any other shape, left

// to that path. The digits are checked and read eight at a time.

// eightDigits reads x, eight bytes in memory order, as eight ASCII digits

// (the first the most significant); ok is false when one is not a digit.

// trackAbs folds t into the run's time range exactly as

// inputState.trackAbs would.

// nbsp is the UTF-8 no-break space that physical normalises.

var nbsp = []byte("\u00a0")

// analyzeBlock splits a block of whole lines into segs. A line is plain

// when it has no prefilter token, no NUL byte, no no-break space, at most

// max bytes, and is either

//

//   - a klog header line with a valid clock (parseKlogHeader accepts it

//     without badTime): the scanner would open an irrelevant entry for it

//     and nothing else; or

//   - a JSON log line (plainJSON): the scanner would open an irrelevant

//     entry for it, track its "ts" and close the entry at once.

//

// A plain JSON line, and a plain klog line followed in the same block by

// another plain line or by a klog header line with a hit (which closes its

// entry just the same), go into a run; runs hold lines of one kind, and klog

// runs lines of one month. Nothing can be attached to the entries of a

// run, so the scanner only needs the run's line count and the clocks of

// its ends (klog) or the range of its "ts" values (JSON; computed here).

// Every other line stays in a span the scanner reads line by line. Tokens,

// NULs and no-break spaces are searched over the whole block, so the lines

// between hits cost one newline search and a header check each. With fast

// false, the block is one line-by-line span.

// bareRun is what bareKlogRun found: n lines, the start of the last (last)

// and of the one before it (prev; unset when n is 1), the end of the last

// line after its newline (end) and of its content (ce).

// bareKlogRun reads the lines of data from s, a line start, while each is

// a whole bare klog header line (plainKlog) of month mon, of at most max

// bytes, ending before hit. These are the lines analyzeBlock would add one

// by one to the open klog run of that month. ref is the start of such a

// line already taken: the kernel (bareKlogKernel, where there is one)

// takes the lines whose minute is the reference's; the others are read

// here, and each taken becomes the reference.

// bareKlogLine reports whether the line of data at s is one bareKlogRun

// takes, and where it ends (after its newline, e; its content, ce).

// fromPlumbing reports whether a plain klog line's payload p, or a plain

// JSON line p (json), is informer plumbing (fromInformerPlumbing,

// jsonFromInformerPlumbing): never relevant, so its tokens do not take it

// out of its run.

// onlyTokens reports whether line, whose first hit (indexHit) is at i, has

// no NUL byte and no no-break space: its hits are all tokens.

// plainJSON reports whether the scanner reads p (a whole physical line

// without its line end, starting with "{") as a --logging-format=json

// entry with nothing else to do: no registered wrapper claims it

// (claimedBy; a grep prefix cannot contain "{") and payload sees a JSON

// log line (looksJSONLog).

// wrappedLine is what plainWrapped finds in a wrapped klog line.

// plainWrapped reports whether physical reads p (a whole physical line

// without its line end) as one journald or CRI "F" record carrying a klog

// header line with a valid clock (plainKlog), whatever wrapper the

// unwrapper prefers at that point:

//

//   - no skip rule of physical applies: p starts with a letter or digit

//     (none of "#[$`-") and is no loose prompt (isPromptLoose);

//   - unwrap keeps p whole: it is not itself a klog line (looksKlog) and

//     has no grep prefix (cutGrepPrefix needs a prefix before the first

//     ":" without a blank, with "/" or a log extension; a journald line has

//     a blank before its first ":", a CRI line checked here has

//     "dddd-dd-ddTdd" there);

//   - no other wrapper of the registry claims it (claimedBy), so the

//     unwrapper's preference cannot change the outcome: the journald or

//     CRI decoder reads it whichever wrapper is tried first (the CRI

//     decoder is the kubectl --timestamps decoder alike).

//

// The scanner applies the rest (votes, journald host and process

// bookkeeping, the unwrapper's new preference) in wrappedRun.

// plainKlog is plainKlogWall for the month only, checking the fixed

// positions of the header 8 bytes at a time.

// leadingDigits is the number of ASCII digits at the start of b, found 8

// bytes at a time (plainKlog's fraction of a second).

// leadingSpaces is the number of blanks at the start of b, found 8 bytes at

// a time (the padding before klog's thread id).

// plainKlogWall is parseKlogHeader's decision without the file:line part:

// ok when parseKlogHeader(p) succeeds without badTime; w is the clock.

// maxSpecBytes caps the text of an entry decoded ahead; longer entries are

// left to the scanner.

// buildSpecs decodes ahead the relevant entries that lie inside the

// line-by-line spans of a block: klog entries (a klog header line and the

// blank-indented lines after it, up to the next line of another shape) and

// JSON log lines. It guesses the entry the scanner will assemble; the

// scanner uses a spec only when its text is exactly the entry's (emitKlog,

// emitJSON), so a wrong guess costs time only.

// build is buildSpecs into a (its arrays reused): the specs are found

// first, then decided (ahead.decide).
