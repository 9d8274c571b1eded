package envelope

import (
	"bytes"
	"encoding/binary"
	"encoding/json"

	"github.com/kcmtrace/kcmtrace/internal/swar"
	"github.com/kcmtrace/kcmtrace/internal/teddy"
)

// Prefilter finds a caller's tokens in the raw bytes of a JSON string (as
// written, escapes and all), so a record whose message holds none of them
// can be passed on without decoding it (Options.Skim).
//
// A token is found in the decoded text exactly when it, or its escaped
// form, is in the raw text, as long as the raw text has no \u or \/
// escape: the other escapes (\" \\ \b \f \n \r \t) each stand for one
// byte a token without that byte cannot span. So the raw search looks for
// every token and, for a token holding '"', '\\' or a control byte, its
// escaped form too; a message with \u or \/ is decoded and searched as
// text. (A raw hit that the decoded text does not have, such as "n…"
// after a "\", only costs a full decode.)
type Prefilter struct {
	raw    *teddy.Set // the tokens and their escaped forms
	tokens *teddy.Set
}

// NewPrefilter prepares the tokens (with the offsets of the bytes the SIMD
// kernel keys on, as teddy.Literal says).
func NewPrefilter(tokens []teddy.Literal) *Prefilter {
	lits := append([]teddy.Literal(nil), tokens...)
	for _, t := range tokens {
		esc, fp := escapeToken(t)
		if !bytes.Equal(esc.Lit, t.Lit) {
			lits = append(lits, teddy.Literal{Lit: esc.Lit, FP: fp})
		}
	}
	return &Prefilter{raw: teddy.New(lits), tokens: teddy.New(tokens)}
}

// escapeToken is t as encoding/json writes it inside a string (without
// the HTML escapes, which are \u forms), with its fingerprint offset
// moved along.
func escapeToken(t teddy.Literal) (teddy.Literal, int) {
	var out []byte
	fp := t.FP
	for i, c := range t.Lit {
		if i == t.FP {
			fp = len(out)
		}
		switch {
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		case c < 0x20:
			e, _ := json.Marshal(string([]byte{c}))
			out = append(out, e[1:len(e)-1]...)
		default:
			out = append(out, c)
		}
	}
	return teddy.Literal{Lit: out, FP: fp}, fp
}

// clear reports whether the JSON string whose raw contents (between the
// quotes) are s holds none of the tokens.
func (p *Prefilter) clear(s []byte, esc bool) bool {
	if !esc {
		return p.tokens.Index(s) < 0
	}
	for i := 0; ; i += 2 {
		j := bytes.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if c := s[i+1]; c == 'u' || c == '/' {
			return p.tokens.Index([]byte(unquote(s))) < 0
		}
	}
	return p.raw.Index(s) < 0
}

// skimHeadMax is the most of a message's start a skimmed record carries.
const skimHeadMax = 128

// headOf is the start of the raw string contents s that is the decoded text
// too: up to skimHeadMax ASCII bytes before the first escape.
func headOf(s []byte) []byte {
	h := s[:min(len(s), skimHeadMax)]
	if i := bytes.IndexByte(h, '\\'); i >= 0 {
		h = h[:i]
	}
	i := 0
	for ; i+8 <= len(h); i += 8 { // eight ASCII bytes at a time
		if swar.NonASCII(binary.LittleEndian.Uint64(h[i:])) != 0 {
			break
		}
	}
	for ; i < len(h); i++ {
		if h[i] >= 0x80 {
			return h[:i]
		}
	}
	return h
}
