package classifier

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/internal/swar"
)

// This file checks the helpers rewritten for speed in a second pass
// (classifyCode, findVolumeWord, readQuoted's escape search, volumeRelated's
// three-byte gate, isInformerPlumbing) against their references, and the
// necessary condition limitMayMatch against the reference classifyCode.

// speedCorpus is refCorpus with the error texts its records classify to,
// and every phrase of codeRuleText alone, in capitals, among other text,
// next to a non-ASCII rune, cut by an SDK message and with letters replaced
// by non-ASCII runes that fold to them (or do not).
func speedCorpus(t testing.TB) []string {
	t.Helper()
	out := refCorpus(t, true)
	n := len(out)
	for _, s := range out[:n] {
		if ev, ok := Classify(&record{Rest: s}); ok && ev.Error != "" {
			out = append(out, ev.Error)
		}
		if ev, ok := classifyMessage("", s, nil, nil); ok && ev.Error != "" {
			out = append(out, ev.Error)
		}
	}
	for _, p := range codePhrases {
		up := strings.ToUpper(p)
		out = append(out, p, up, p[1:], p[:len(p)-1], "x "+p+" y", "é"+p, "K"+p+"\u212a",
			p[:len(p)/2]+"Message=zzz, RequestId="+p[len(p)/2:],
			p[:len(p)/2]+"\r"+p[len(p)/2:], strings.ReplaceAll(p, " ", "\x00"),
			strings.ReplaceAll(p, "-", "\r"), strings.ReplaceAll(p, "i", "\u0130"),
			strings.ReplaceAll(p, "k", "\u212a"), strings.ReplaceAll(strings.ToUpper(p), "S", "\u017f"))
	}
	for f := range informerPlumbing {
		out = append(out, f, f[1:], "x"+f)
	}
	return out
}

// checkSpeedHelpers compares the rewritten helpers with their references on s.
func checkSpeedHelpers(t *testing.T, s string) {
	t.Helper()
	if got, want := classifyCode(s), classifyCodeReference(s); got != want {
		t.Fatalf("classifyCode(%q) = %q, reference %q", s, got, want)
	}
	if got, want := swar.IsASCII(s), !strings.ContainsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }); got != want {
		t.Fatalf("swar.IsASCII(%q) = %v, want %v", s, got, want)
	}
	if !limitMayMatch(s) && classifyCodeReference(s) == CodeAttachLimit {
		t.Fatalf("limitMayMatch(%q) is false, but the text is %s", s, CodeAttachLimit)
	}
	if got, want := findVolumeWord(s), findVolumeWordReference(s); got != want {
		t.Fatalf("findVolumeWord(%q) = %d, reference %d", s, got, want)
	}
	if got, want := volumeRelated(s), volumeRelatedReference(s); got != want {
		t.Fatalf("volumeRelated(%q) = %v, reference %v", s, got, want)
	}
	if got, want := IsInformerPlumbing(s), informerPlumbing[s]; got != want {
		t.Fatalf("IsInformerPlumbing(%q) = %v, want %v", s, got, want)
	}
	for _, q := range [...]string{s, `"` + s, strconv.Quote(s) + s} {
		got, n, ok := readQuoted(q)
		want, wn, wok := readQuotedReference(q)
		if got != want || n != wn || ok != wok {
			t.Fatalf("readQuoted(%q) = %q, %d, %v; reference %q, %d, %v", q, got, n, ok, want, wn, wok)
		}
	}
}

func TestClassifySpeedMatchesReference(t *testing.T) {
	for _, s := range speedCorpus(t) {
		checkSpeedHelpers(t, s)
	}
}

// FuzzClassifySpeed compares the helpers rewritten for speed with their
// references (checkSpeedHelpers).
func FuzzClassifySpeed(f *testing.F) {
	for _, s := range speedCorpus(f) {
		f.Add(s)
	}
	f.Fuzz(checkSpeedHelpers)
}
