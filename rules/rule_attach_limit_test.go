package rules

import (
	"strings"
	"testing"
)

// TestLimitWording: each cloud's refusal is named with its limit, and the
// fix step is that cloud's or driver's, never another's (an Azure node
// was told to set the EBS driver's volumeAttachLimit).
func TestLimitWording(t *testing.T) {
	for name, tc := range map[string]struct {
		text, what, limit, fix, notFix string
	}{
		"azure": {
			text: `{"error": {"code": "OperationNotAllowed", "message": "The maximum number of data disks allowed to be attached to a VM of this size is 16.", "target": "dataDisks"}}`,
			what: "Azure OperationNotAllowed", limit: ", at most 16", fix: "VM size", notFix: "aws-ebs",
		},
		"aws": {
			text: `AttachmentLimitExceeded: You can only attach up to 28 volumes to this instance`,
			what: "AWS AttachmentLimitExceeded", limit: ", at most 28", fix: "volumeAttachLimit", notFix: "Azure",
		},
		"gce": {
			text: `googleapi: Error 400: Exceeded limit 'maximum_persistent_disks' on resource 'node-1'`,
			what: "GCE", fix: "machine type", notFix: "aws-ebs",
		},
		"openstack": {
			text: `Invalid input for field/attribute: maximum allowed number of disk devices (26) to attach to a single instance`,
			what: "OpenStack nova", limit: ", at most 26", fix: "max_disk_devices_to_attach", notFix: "aws-ebs",
		},
		"scheduler": {
			text: `0/3 nodes are available: 3 node(s) exceed max volume count.`,
			what: "exceed max volume count", fix: "Add nodes", notFix: "aws-ebs",
		},
		"other": {
			text: `rpc error: code = ResourceExhausted desc = too many volumes`,
			what: "ResourceExhausted", fix: "CSI driver's volume attach limit", notFix: "aws-ebs",
		},
	} {
		what, limit, fix := limitWording(tc.text)
		if !strings.Contains(what, tc.what) || limit != tc.limit {
			t.Errorf("%s: limitWording = %q, %q; want %q in it, %q", name, what, limit, tc.what, tc.limit)
		}
		if !strings.Contains(fix, tc.fix) || strings.Contains(fix, tc.notFix) {
			t.Errorf("%s: fix %q; want %q in it and not %q", name, fix, tc.fix, tc.notFix)
		}
	}
}
