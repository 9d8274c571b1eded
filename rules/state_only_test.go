package rules

import (
	"strings"
	"testing"
)

// TestErrorHeadline: a summary quotes a VolumeAttachment's error when it
// is short, and points to the evidence for one that would swamp it (Azure's
// and AWS's attach errors run to hundreds of characters).
func TestErrorHeadline(t *testing.T) {
	short := "rpc error: code = Internal desc = ControllerUnpublishVolume failed for pvc-9: 404 Not Found"
	long := "rpc error: code = Internal desc = Attach volume /subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/disks/pvc-41 to instance aks-nodepool1-0 failed with Retriable: false, RetryAfter: 0s, HTTPStatusCode: 409"
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"short, quoted", short, `has status.detachError "` + short + `"`},
		{"long, in the evidence", long, "has a long status.detachError, quoted in the evidence"},
		{"at the limit, quoted", strings.Repeat("x", headlineError), `has status.detachError "` + strings.Repeat("x", headlineError) + `"`},
	} {
		if got := errorHeadline("detachError", tc.msg); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
