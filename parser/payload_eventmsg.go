package parser

import "bytes"

// This file owns event messages pasted without their table: only the
// message column of `kubectl describe` / `kubectl get events` ("MountVolume.
// MountDevice failed for volume …", "AttachVolume.Attach failed …",
// "Multi-Attach error …", "Unable to attach or mount volumes …"), one per
// line with no header, age or source (real-logs/042, 054, 061, 062). Such a
// line is read as an event table row whose reason is the one the kubelet
// or the attach/detach controller gives that message, with no time.
//
// Only a line at the start of an entry is one: after a klog line, a table
// row or any other entry a header-less line stays that entry's
// continuation, so klog's multi-line messages and wrapped rows are never
// cut (scanner.payload asks only when no entry is open or the open one is
// itself such a message).

// eventMessages are the message starts, with their event reason and type.
var eventMessages = []struct {
	prefix, reason, typ string
}{
	{"MountVolume.MountDevice failed for volume ", "FailedMount", "Warning"},
	{"MountVolume.SetUp failed for volume ", "FailedMount", "Warning"},
	{"MountVolume.WaitForAttach failed for volume ", "FailedMount", "Warning"},
	{"MountVolume.NewMounter initialization failed for volume ", "FailedMount", "Warning"},
	{"Unable to attach or mount volumes: ", "FailedMount", "Warning"},
	{"unable to attach or mount volumes: ", "FailedMount", "Warning"},
	{"Unable to mount volumes for pod ", "FailedMount", "Warning"},
	{"MapVolume.MapPodDevice failed for volume ", "FailedMapVolume", "Warning"},
	{"MapVolume.SetUpDevice failed for volume ", "FailedMapVolume", "Warning"},
	{"MapVolume.WaitForAttach failed for volume ", "FailedMapVolume", "Warning"},
	{"AttachVolume.Attach failed for volume ", "FailedAttachVolume", "Warning"},
	{"Multi-Attach error for volume ", "FailedAttachVolume", "Warning"},
	{"AttachVolume.Attach succeeded for volume ", "SuccessfulAttachVolume", "Normal"},
	{"MountVolume.SetUp succeeded for volume ", "SuccessfulMountVolume", "Normal"},
}

// eventMessageAt returns the index in eventMessages of the message p
// starts with, or -1.
func eventMessageAt(p []byte) int {
	if len(p) < 20 {
		return -1
	}
	switch p[0] {
	case 'M', 'U', 'u', 'A':
	default:
		return -1
	}
	for i, m := range eventMessages {
		if bytes.HasPrefix(p, []byte(m.prefix)) {
			return i
		}
	}
	return -1
}

// bareEventRow returns p as the row of an event table that has only its
// message column, when p is an event message.
func bareEventRow(p []byte) (tableRowParse, bool) {
	i := eventMessageAt(p)
	if i < 0 {
		return tableRowParse{}, false
	}
	m := eventMessages[i]
	return tableRowParse{layout: tableBare, row: tableRow{Type: m.typ, Reason: m.reason, Message: string(bytes.TrimSpace(p))}}, true
}
