package report

import (
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Evidence lines as the terminal shows them.

// evidenceMessage is a log line as the terminal shows it under a path:line
// gutter (which already gives where and when): the message without its
// klog header (parser.Message: the parser's reading of the header, not a
// second one), a nestedpendingoperations wrapper reduced to its error and
// backoff, the UniqueName and UIDs (named in the incident header) dropped,
// long volume names elided in their middle. Nodes, pods and error texts stay whole.
func evidenceMessage(s string) string {
	s = strings.Join(strings.Fields(parser.Message(s)), " ")
	s = strings.ReplaceAll(s, `\"`, `"`)
	if m := reRetryWrap().FindStringSubmatch(s); m != nil {
		s = strings.TrimSuffix(strings.TrimPrefix(m[2], `"`), `"`) + " (retry in " + m[1] + ")"
	}
	s = reUniqueName().ReplaceAllString(s, "")
	s = reUID().ReplaceAllString(s, "")
	s = reCSIName().ReplaceAllString(s, "…^")
	s = reInTreeName().ReplaceAllString(s, "…/$1")
	s = reUUIDShort().ReplaceAllString(s, "${1}…")
	return strings.TrimSpace(s)
}

// sameMessage reduces an evidence message to what repeats across a retry
// loop: no numbers, no backoff.
func sameMessage(s string) string {
	s = reRetryIn().ReplaceAllString(s, "")
	return reDigits().ReplaceAllString(s, "#")
}

var (
	reRetryWrap  = lazyRegexp(`^Operation for "[^"]*" failed\. No retries permitted until [^(]*\(durationBeforeRetry ([^)]+)\)\.? ?[Ee]rror: (.*)$`)
	reRetryIn    = lazyRegexp(` \(retry in [^)]*\)`)
	reUID        = lazyRegexp(` \(UID: "[^"]*"\)`)
	reCSIName    = lazyRegexp(`kubernetes\.io/csi/[^"\s^}]+\^`)
	reInTreeName = lazyRegexp(`kubernetes\.io/[a-z0-9-]+/[^"\s}]*/([^/"\s}]+)`)
	reDigits     = lazyRegexp(`[0-9a-fA-F]*[0-9][0-9a-fA-F]*`)
	reUniqueName = lazyRegexp(` ?\(UniqueName: \\?"[^"\\]*\\?"\)`)
	reUUIDShort  = lazyRegexp(`(?i)\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
)
