package parser

import "bytes"

// prefilterTokens is the one list of byte strings that make a line worth
// parsing. A line (header line or continuation line of an entry) that contains
// none of them is counted as irrelevant without any further decoding; an entry
// is relevant when any of its lines matches. The list is deliberately short
// and made of fragments so that one token covers a whole family:
//
//	"olume"         Volume/volume: AttachVolume, DetachVolume, MountVolume, for volume,
//	                volumeName=, VolumeAttachment=, VolumesInUse, VolumeDeviceNotFound,
//	                Unable to attach or mount volumes, NodeStageVolume, CSI RPC names
//	"ttach"         attach/Attach/detach/Detach/Multi-Attach, attach_detach_controller,
//	                Started "attachdetach", csi-attacher "Attaching"/"Detached"
//	"Mount" "mount" MountDevice, Unmount, unmount, FailedMount (describe rows)
//	"No retries"    nestedpendingoperations / goroutinemap backoff lines
//	"acquired lease" leader election ("successfully acquired lease …")
//	"serial"        CBS "can not find diskId … by serial" driver lines
//	"diskId"        CBS driver errors without any other token
//	"ZoneNotMatch"  CBS zone errors quoted alone
//	"evice"         device not found / could not find device path
//
// Every line that the message side (classify) can turn into an event must
// contain one of these; TestPrefilterPassesClassified checks that on every
// test input by parsing once with and once without the prefilter.
var prefilterTokens = [][]byte{
	[]byte("olume"),
	[]byte("ttach"),
	[]byte("Mount"),
	[]byte("mount"),
	[]byte("No retries"),
	[]byte("acquired lease"),
	[]byte("serial"),
	[]byte("diskId"),
	[]byte("ZoneNotMatch"),
	[]byte("evice"),
}

// mayMatter reports whether line contains one of the prefilter tokens. It is
// the only work done on most lines of a large log.
func mayMatter(line []byte) bool {
	for _, t := range prefilterTokens {
		if bytes.Contains(line, t) {
			return true
		}
	}
	return false
}
