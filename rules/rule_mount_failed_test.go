package rules

import (
	"strings"
	"testing"
)

// TestMountReasonFixesAct: each class's fix step says what to change, not
// again what the confirm step already asks to read (the generic class's
// fix repeated "Read the full mount output").
func TestMountReasonFixesAct(t *testing.T) {
	for code, r := range mountReason {
		if r.what == "" || r.fix == "" {
			t.Errorf("%s: what %q, fix %q: want both", code, r.what, r.fix)
		}
		if strings.HasPrefix(r.fix, "Read the full mount output") {
			t.Errorf("%s: the fix step repeats the confirm step: %q", code, r.fix)
		}
	}
}
