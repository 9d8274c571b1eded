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
//	"Started \""   controllermanager.go starting its controllers after a leader change
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
	[]byte(`Started "`),
	[]byte("serial"),
	[]byte("diskId"),
	[]byte("ZoneNotMatch"),
	[]byte("evice"),
}

// The matcher: every token is at least 4 bytes long; its first 4 bytes,
// hashed, set a bit in prefilterBits. mayMatter slides over the line reading
// 4 bytes at a time and only compares whole tokens where the bit is set, so
// one pass over the line tests all tokens at once.
const prefilterHashBits = 12

var (
	prefilterBits    [1 << prefilterHashBits / 64]uint64
	prefilterBuckets = map[uint32][][]byte{}
)

func init() {
	for _, t := range prefilterTokens {
		if len(t) < 4 {
			panic("prefilter token shorter than 4 bytes: " + string(t))
		}
		k := le32(t, 0)
		h := prefilterHash(k)
		prefilterBits[h/64] |= 1 << (h % 64)
		prefilterBuckets[k] = append(prefilterBuckets[k], t)
	}
}

func le32(b []byte, i int) uint32 {
	_ = b[i+3]
	return uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
}

func prefilterHash(k uint32) uint32 { return (k * 0x9E3779B1) >> (32 - prefilterHashBits) }

// mayMatter reports whether line contains one of the prefilter tokens. It is
// the only work done on most lines of a large log.
func mayMatter(line []byte) bool {
	for i := 0; i+4 <= len(line); i++ {
		k := le32(line, i)
		h := prefilterHash(k)
		if prefilterBits[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, t := range prefilterBuckets[k] {
			if bytes.HasPrefix(line[i:], t) {
				return true
			}
		}
	}
	return false
}

// mayMatterSlow is the reference implementation of mayMatter.
func mayMatterSlow(line []byte) bool {
	for _, t := range prefilterTokens {
		if bytes.Contains(line, t) {
			return true
		}
	}
	return false
}
