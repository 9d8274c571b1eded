package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/rules"
)

// TestEvidenceSameMessageNamesTheFirst: a line whose message repeats an
// earlier one (numbers aside) says where that one was shown, by its whole
// location, whether locations stand beside the messages or, too long for
// that, above them.
func TestEvidenceSameMessageNamesTheFirst(t *testing.T) {
	msg := `AttachVolume.Attach failed for volume "pvc-1" from node "n1" : rpc error: code = Internal desc = ZoneNotMatch (retry in 500ms)`
	again := strings.Replace(msg, "500ms", "1s", 1)
	for name, path := range map[string]string{
		"beside": "kcm.log",
		"above":  "/var/log/containers/kube-controller-manager-ip-10-0-3-15.ec2.internal_kube-system_kube-controller-manager-0123456789abcdef.log",
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			tw := newTextWriter(&b)
			writeEvidence(tw, newStyles(&b, Options{}), []rules.Evidence{
				{Path: path, Line: 10, Text: msg},
				{Path: path, Line: 20, Text: again},
			}, 100)
			if err := tw.w.Flush(); err != nil {
				t.Fatal(err)
			}
			first := evidenceLoc(rules.Evidence{Path: path, Line: 10})
			if !strings.Contains(b.String(), "same message as "+first+"\n") {
				t.Errorf("the repeat does not name %s:\n%s", first, b.String())
			}
		})
	}
}
