package livesource

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// The line filters sent to each store, generated from the parser's own
// prefilter token list (classifier.PrefilterTokens) so they cannot drift
// from what the parser keeps. Every token is a case-sensitive substring; a
// line is kept when it holds any of them. Contains adds substrings that
// must all be present (AND).

// pushdownTokens returns the prefilter tokens as strings.
func pushdownTokens() []string {
	toks := classifier.PrefilterTokens()
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = string(t)
	}
	return out
}

// logsqlSubstring writes one LogsQL substring filter: *tok*, quoted when tok
// is not a bare word.
func logsqlSubstring(tok string) string {
	if isWord(tok) {
		return "*" + tok + "*"
	}
	return "*" + strconv.Quote(tok) + "*"
}

// LogsQLFilter is the VictoriaLogs line filter: (*a* OR *b* …) followed by
// one *c* per extra substring.
func LogsQLFilter(contains []string) string {
	toks := pushdownTokens()
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = logsqlSubstring(t)
	}
	out := "(" + strings.Join(parts, " OR ") + ")"
	for _, c := range contains {
		out += " " + logsqlSubstring(c)
	}
	return out
}

// LogQLFilter is the Loki line filter: |= "a" or "b" … (Loki 2.9+), then
// one |= "c" per extra substring.
func LogQLFilter(contains []string) string {
	toks := pushdownTokens()
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = strconv.Quote(t)
	}
	return `|= ` + strings.Join(parts, " or ") + logqlContains(contains)
}

// LogQLRegexpFilter is the fallback for Loki releases without "or" in line
// filters: |~ "a|b|…" (RE2, case-sensitive, unanchored — the same lines).
func LogQLRegexpFilter(contains []string) string {
	toks := pushdownTokens()
	parts := make([]string, len(toks))
	for i, t := range toks {
		parts[i] = regexp.QuoteMeta(t)
	}
	return `|~ ` + strconv.Quote(strings.Join(parts, "|")) + logqlContains(contains)
}

func logqlContains(contains []string) string {
	var b strings.Builder
	for _, c := range contains {
		b.WriteString(` |= ` + strconv.Quote(c))
	}
	return b.String()
}

// ESQueryString is the Elasticsearch/OpenSearch query_string over the
// analysed message field. Analysed text is lower-cased and split into
// terms, so no case-sensitive substring exists there: each token becomes
// lower-case wildcard terms that every line holding the token matches (a
// superset, filtered exactly by the parser). A token's word gets a leading
// (trailing) * unless the token itself puts a space or quote, which always
// ends a term, before (after) it: olume → *olume*, `Started "` → *started,
// "No retries" → (*no AND retries*).
func ESQueryString(contains []string) string {
	toks := pushdownTokens()
	var parts []string
	seen := map[string]bool{}
	for _, t := range toks {
		q := esTerms(t)
		if q == "" || seen[q] {
			continue // Mount and mount are one term
		}
		seen[q] = true
		parts = append(parts, q)
	}
	out := "(" + strings.Join(parts, " OR ") + ")"
	for _, c := range contains {
		if q := esTerms(c); q != "" {
			out += " AND " + q
		}
	}
	return out
}

// esTerms turns one substring into wildcard terms joined by AND.
func esTerms(tok string) string {
	low := strings.ToLower(tok)
	var terms []string
	for i := 0; i < len(low); {
		if !isWordByte(low[i]) {
			i++
			continue
		}
		j := i
		for j < len(low) && isWordByte(low[j]) {
			j++
		}
		term := low[i:j]
		if i == 0 || !termBreak(low[i-1]) {
			term = "*" + term
		}
		if j == len(low) || !termBreak(low[j]) {
			term += "*"
		}
		terms = append(terms, term)
		i = j
	}
	switch len(terms) {
	case 0:
		return ""
	case 1:
		return terms[0]
	}
	return "(" + strings.Join(terms, " AND ") + ")"
}

// termBreak reports bytes that always end a term of the standard analyser.
func termBreak(c byte) bool { return c == ' ' || c == '\t' || c == '"' }

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}
