package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Zero-width characters and ESC never reach a reader (issue 21 item 15):
// Sanitize drops the invisible ones, and JSON prose fields are sanitised
// like the text report's.
func TestSanitizeZeroWidthAndJSONProse(t *testing.T) {
	for _, zw := range []string{"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u180e", "\u00ad"} {
		if got := Sanitize("node" + zw + "-a"); got != "node-a" {
			t.Errorf("Sanitize kept %U: %q", []rune(zw)[0], got)
		}
	}
	hostile := "node-a\x1b[2J\u200b"
	f := rules.Finding{Rule: "attach-retry-storm", Severity: rules.Warning, Volume: "v", Nodes: []string{"node-a"},
		Summary: "attach to " + hostile + " failed", Explanation: "tried " + hostile, Next: "check " + hostile,
		Steps: []rules.Step{{Phase: rules.Confirm, Text: "look at " + hostile}}}
	res := rules.Result{Findings: []rules.Finding{f}}
	res.Incidents = rules.Incidents(res.Findings)
	a := &Analysis{Timeline: &timeline.Timeline{}, Result: res}
	var b bytes.Buffer
	if err := AnalysisFormats.For("json").Render(&b, a, Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{`\u001b`, "\x1b", "\u200b"} {
		if strings.Contains(out, bad) {
			i := strings.Index(out, bad)
			t.Errorf("JSON carries %q: %s", bad, out[max(0, i-60):min(len(out), i+20)])
		}
	}
}

// TestLazyRegexpsCompile compiles every expression the reports compile on
// first use, which start-up no longer does.
func TestLazyRegexpsCompile(t *testing.T) {
	for _, re := range []func() *regexp.Regexp{reRetryWrap, reRetryIn, reUID, reCSIName, reInTreeName, reDigits, reUniqueName,
		reUUIDShort, reIPv4, reIPHost, reReqID, reInstance, reDisk, reVA, reUUID, reAzureRG, reAzureDsk} {
		if re() != re() {
			t.Fatal("a lazy expression compiled twice")
		}
	}
}
