package classifier

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// classifyCode maps an error text to one of the Code* constants, or "" when
// nothing is recognised. It matches error codes and fixed phrases written by
// Kubernetes, cloud SDKs and drivers — never the free-form, service-provided
// Message of a cloud SDK error (it may be in Chinese and may mention anything):
// `[TencentCloudSDKError] Code=…, Message=…, RequestId=…` keeps only its Code.
// The first of codeRules that the text (in lower case) satisfies decides.
func classifyCode(errText string) string {
	if errText == "" {
		return ""
	}
	have := codePhrasesIn(stripSDKMessages(errText))
	for _, r := range codeRules {
		for _, m := range r.masks {
			if have&m == m {
				return r.code
			}
		}
	}
	return ""
}

// codeRuleText lists the classes classifyCode tells, in the order it tries
// them, each with the phrases that make it: a rule applies to a text whose
// lower-case form contains every phrase of one of its clauses. Order
// matters: the most specific classes come first (a CBS serial error is
// wrapped in `code = Internal`; a ZoneNotMatch message may say "not found").
var codeRuleText = [...]struct {
	code    string
	clauses [][]string
}{
	{CodeNotInUse, [][]string{{"has not been added to the list of volumesinuse"},
		{"has not yet been added to the list of volumesinuse"}, {"volume not marked in-use"}}},
	{CodeNotAttached, [][]string{{"not attached according to node status"},
		{"not yet attached according to node status"}}},
	{CodeSerialNotFound, [][]string{{"can not find diskid"}, {"cannot find diskid"},
		{"volumedevicenotfound"}, {"could not find device path"}, {"cbs block path", "not found"},
		{"not attached to node"}, {"failed to find device path"}, {"no device found"}}},
	{CodeMultiAttach, [][]string{{"multi-attach"}, {"already exclusively attached"}, {"waiting for detach"}}},
	{CodeZoneNotMatch, [][]string{{"zonenotmatch"}, {"zonemismatch"}, {"zone mismatch"},
		{"not in the same zone"}, {"node affinity conflict"}, {"availability zone", "match"}}},
	{CodeStillMounted, [][]string{{"still in use by node"}, {"still mounted by other references"}}},
	{CodeVolumeInUse, [][]string{{"volumeinuse"}, {"already attached to an instance"},
		{"is attach to another instance"}, {"attached to another"}, {"already attached to a different"},
		{"already attached to node"}, {"already used by pod"}}},
	{CodeAlreadyExecuting, [][]string{{"already executing"}, {"alreadyexists desc = operation"}}},
	{CodePermission, [][]string{{"permissiondenied"}, {"permission denied"}, {"unauthorizedoperation"},
		{"authfailure"}}},
	{CodeNotFound, [][]string{{"notfound"}, {"not found"}, {"does not exist"}}},
	{CodeDeadlineExceeded, [][]string{{"deadlineexceeded"}, {"deadline exceeded"}, {"timed out"}, {"timeout"}}},
	{CodeInternal, [][]string{{"code = internal"}}},
}

// codePhrases are the distinct phrases of codeRuleText (fewer than 64), and
// codeRules its rules with each clause as the set of its phrases (bit k for
// codePhrases[k]).
var codePhrases, codeRules = func() (phrases []string, rules []codeRule) {
	index := map[string]int{}
	for _, r := range codeRuleText {
		cr := codeRule{code: r.code}
		for _, c := range r.clauses {
			var m uint64
			for _, p := range c {
				k, ok := index[p]
				if !ok {
					k = len(phrases)
					index[p] = k
					phrases = append(phrases, p)
				}
				m |= 1 << k
			}
			cr.masks = append(cr.masks, m)
		}
		rules = append(rules, cr)
	}
	if len(phrases) > 64 {
		panic("codeRuleText: more than 64 phrases")
	}
	return phrases, rules
}()

// codeRule is a rule of codeRuleText: its code and clauses as phrase sets.
type codeRule struct {
	code  string
	masks []uint64
}

// codeGate holds, for each byte and j < 4, the set of codePhrases whose
// byte j it is in either letter case: a phrase can only start at s[i] if it
// is in codeGate[j][s[i+j]] for each j.
var codeGate = func() (t [4][256]uint64) {
	for k, p := range codePhrases {
		for j := range t {
			c := p[j]
			t[j][c] |= 1 << k
			if 'a' <= c && c <= 'z' {
				t[j][c-'a'+'A'] |= 1 << k
			}
		}
	}
	return t
}()

// codePhrasesIn returns the set of codePhrases that strings.ToLower(s)
// contains. For an ASCII s (where ToLower only lowers A-Z) it reads s once,
// checking at each byte the phrases its first four bytes may start (each
// phrase has more), among those not found yet; a text with other bytes is
// lowered and searched for each phrase.
func codePhrasesIn(s string) (have uint64) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return codePhrasesInLower(strings.ToLower(s))
		}
		if i+3 >= len(s) {
			continue
		}
		m := codeGate[0][c] & codeGate[1][s[i+1]] & codeGate[2][s[i+2]] & codeGate[3][s[i+3]] &^ have
		for ; m != 0; m &= m - 1 {
			k := bits.TrailingZeros64(m)
			if hasPrefixLower(s[i:], codePhrases[k]) {
				have |= 1 << k
			}
		}
	}
	return have
}

// codePhrasesInLower returns the set of codePhrases that l contains.
func codePhrasesInLower(l string) (have uint64) {
	for k, p := range codePhrases {
		if strings.Contains(l, p) {
			have |= 1 << k
		}
	}
	return have
}

// hasPrefixLower reports whether s starts with p once its ASCII capitals are
// lowered (p has no capital).
func hasPrefixLower(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[j] {
			return false
		}
	}
	return true
}

// stripSDKMessages removes the service-provided `Message=…` part of cloud SDK
// errors (`Code=X, Message=…, RequestId=…`) so that only codes are matched.
func stripSDKMessages(s string) string {
	if !strings.Contains(s, "Message=") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "Message=")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len("Message="):]
		j := strings.Index(rest, "RequestId=")
		if j < 0 {
			return b.String()
		}
		s = rest[j:]
	}
}
