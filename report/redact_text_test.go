package report

import (
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
)

// TestRedactEventText: a redacted event's text is redacted (a copy of its
// own), and the event it was copied from keeps the text as read.
func TestRedactEventText(t *testing.T) {
	const node = "ip-10-0-3-27.ap-northeast-1.compute.internal"
	text := `I0812 03:14:15.619804       1 operation_generator.go:360] AttachVolume.Attach succeeded for volume "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f" from node "` + node + `"`
	ev := parser.Draft{Kind: parser.AttachSucceeded, PV: "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f", Node: node,
		Component: parser.ComponentKCM, Text: parser.TextOf(text)}.Event()
	evs := []parser.Event{ev}
	got := newRedactorFor(nil, evs).events(evs)[0]
	if s := got.Text.String(); strings.Contains(s, node) || strings.Contains(s, ev.PV) || s == "" {
		t.Errorf("redacted text %q still names the node or the PV", s)
	}
	if evs[0].Text.String() != text {
		t.Errorf("the original text changed: %q", evs[0].Text.String())
	}
}
