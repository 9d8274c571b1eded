package classifier

import (
	"bytes"
	"slices"
)

// This file is the one source of truth for what is volume-related: every
// list of words, tokens and caller files that decides whether a log line can
// be about an attach, detach or mount. The parser's prefilter
// (PrefilterTokens), the classifier (volumeRelated, specialMayMatch,
// IsInformerPlumbing) and the consumers outside the parser (a log store's
// query pushdown, the README's export commands) all read it from here, so a
// new token is added once. TestPrefilterPassesClassifiedLines (package
// parser) proves that every line Classify turns into an event has a
// prefilter token.

// PrefilterTokens returns the byte strings that make a line worth parsing
// (prefilterTokens), as fresh copies: a line with none of them is never an
// event. A log store can push them down as a query (any of them, as
// substrings, case-sensitive).
func PrefilterTokens() [][]byte {
	out := make([][]byte, len(prefilterTokens))
	for i, t := range prefilterTokens {
		out[i] = bytes.Clone(t)
	}
	return out
}

// InformerPlumbingFiles returns the caller files (basenames) whose lines are
// never relevant whatever tokens they have (informerPlumbing), sorted.
func InformerPlumbingFiles() []string {
	out := make([]string, 0, len(informerPlumbing))
	for f := range informerPlumbing {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// prefilterTokens is the one list of byte strings that make a line worth
// parsing. A line (header line or continuation line of an entry) that contains
// none of them is counted as irrelevant without any further decoding; an entry
// is relevant when any of its lines matches. The list is deliberately short
// and made of fragments so that one token covers a whole family:
//
//	"olume"         Volume/volume: AttachVolume, DetachVolume, MountVolume, for volume,
//	                volumeName=, VolumeAttachment=, VolumesInUse, VolumeDeviceNotFound,
//	                Unable to attach or mount volumes, NodeStageVolume, CSI RPC names
//	"ttach"         attach/Attach/Multi-Attach, attach_detach_controller,
//	                Started "attachdetach", csi-attacher "Attaching"/"Attached"
//	"etach"         detach/Detach: csi-attacher "Detaching"/"Detached" lines, which
//	                have no other token
//	"Mount" "mount" MountDevice, Unmount, unmount, FailedMount (describe rows)
//	"No retries"    nestedpendingoperations / goroutinemap backoff lines
//	"acquired lease" leader election ("successfully acquired lease …")
//	"Started \""   controllermanager.go starting its controllers after a leader change
//	"serial"        CBS "can not find diskId … by serial" driver lines
//	"diskId"        CBS driver errors without any other token
//	"ZoneNotMatch"  CBS zone errors quoted alone
//	"evice"         device not found / could not find device path
//	"GRPC error"    CSI drivers' "GRPC error: rpc error: …" lines (logrus or klog),
//	                which often name no volume
//
// Every line that Classify can turn into an event must
// contain one of these; TestPrefilterPassesClassified checks that on every
// test input by parsing once with and once without the prefilter.
var prefilterTokens = [][]byte{
	[]byte("olume"),
	[]byte("ttach"),
	[]byte("etach"),
	[]byte("Mount"),
	[]byte("mount"),
	[]byte("No retries"),
	[]byte("acquired lease"),
	[]byte(`Started "`),
	[]byte("serial"),
	[]byte("diskId"),
	[]byte("ZoneNotMatch"),
	[]byte("evice"),
	[]byte("GRPC error"),
}

// informerPlumbing lists files whose lines mention volumes but never an
// attach, detach or mount operation: client-go's informers, and the PV
// binding and protection controllers ("volume entered phase", "claim …
// bound"), which are another subsystem.
var informerPlumbing = map[string]bool{
	"reflector.go": true, "shared_informer.go": true,
	"pv_controller.go": true, "pv_controller_base.go": true,
	"pvc_protection_controller.go": true, "pv_protection_controller.go": true,
}

// IsInformerPlumbing reports informerPlumbing[file], looking the map up only
// for a name as long as one of its keys.
func IsInformerPlumbing(file string) bool {
	return (len(file) >= len(plumbingLens) || plumbingLens[len(file)]) && informerPlumbing[file]
}

// plumbingLens marks the lengths of the informerPlumbing keys (those
// shorter than its size).
var plumbingLens = func() (t [32]bool) {
	for f := range informerPlumbing {
		if len(f) < len(t) {
			t[len(f)] = true
		}
	}
	return t
}()

// specialStems are beginnings of the first lines specialCases understands:
// every text its cases compare the first line with (as a prefix, exactly or
// ignoring case) starts with one of them. The case-insensitive texts start
// with "St" or "Sh" in any letter case, whose four forms each are stems of
// their own; a first line starting with a non-ASCII byte may fold to them
// (U+017F ſ folds to s), so specialMayMatch admits those too. Most event
// messages start with an S ("Scaled up replica set", "Successfully
// assigned", "Saw completed job"): no stem is a single letter.
// TestSpecialStemsCoverCases checks the list against the cases.
var specialStems = [...]string{
	"St", "ST", "sT", "st", "Sh", "SH", "sH", "sh", "Set", "Successfully get device(", "successfully acquired lease ",
	"attacherDetacher.DetachVolume started: ", "Multi-Attach error: ", "Waiting for detach: ",
	"kubernetes.io/csi: ", "GRPC ", "Attachi", "Attache", "Attach ", "Detachi", "Detache",
	"Error processing", "Error detaching volumeID ", "Waiting for volume ", "can not find diskId ", "cbs block path ", "NodeStageVolume: ", "NodeUnstageVolume: volume ",
	"disk ", "detach", "RemoveVolumeFromReportAsAttached", "Report volume ",
	"error removing node ", "Failed to update statusUpdateNeeded", "Volume ",
	"Operation for volume ", "Unable to ", "unable to ", "timeout expired waiting",
}

// specialStemsBy holds specialStems by their first byte.
var specialStemsBy = func() (t [256][]string) {
	for _, s := range specialStems {
		t[s[0]] = append(t[s[0]], s)
	}
	return t
}()

// volumeTokens are the words that alone make a text volumeRelated. Other
// words naming a volume operation ("AttachVolume", "VolumeAttachment",
// "volumesAttached", "UnmountVolume" …) have both "volume" and an
// operation in them.
var volumeTokens = [...]string{"UniqueName", "UnmountDevice", "nestedpendingoperations",
	"kubernetes.io/csi", "attacherDetacher", "MountDevice", "Multi-Attach", "VolumesInUse"}

// volumeTokensBy holds volumeTokens by their first byte.
var volumeTokensBy = func() (t [256][]string) {
	for _, w := range volumeTokens {
		t[w[0]] = append(t[w[0]], w)
	}
	return t
}()

// volumeWords are the words volumeRelated looks for: volumeTokens as they
// are, then the words it matches in any letter case, in lower case. Each
// has five bytes or more.
var volumeWords = append(volumeTokens[:len(volumeTokens):len(volumeTokens)],
	"volume", "attach", "detach", "mount")

// volumeGrams tells the three-byte pieces of volumeWords (wordGrams), the
// words after volumeTokens in either letter case.
var volumeGrams = wordGrams(volumeWords, func(k int) bool { return k >= len(volumeTokens) })

// wordGrams tells the three-byte pieces of words (at most 21, each five
// bytes or more) at their offsets 0, 1 and 2: bit 3k+d of t[j][c] is set
// when byte d+j of the k-th word is c, or, for a word anyCase(k) accepts,
// the other case of that byte when it is a lower-case letter. Three bytes
// x, y, z are the piece at offset d of word k exactly when the bit is set
// in t[0][x], t[1][y] and t[2][z]. A scan that reads the three bytes at
// every multiple of three sees a piece of every occurrence of a word: one
// starting at p has its bytes i-p .. i-p+2 at the first multiple of three
// i ≥ p, with i-p ≤ 2 and i+2 ≤ p+4 inside the word.
func wordGrams(words []string, anyCase func(k int) bool) (t [3][256]uint64) {
	if len(words) > 64/3 {
		panic("wordGrams: more than 21 words")
	}
	for k, w := range words {
		if len(w) < 5 {
			panic("wordGrams: word shorter than 5 bytes: " + w)
		}
		for d := 0; d < 3; d++ {
			bit := uint64(1) << (3*k + d)
			for j := 0; j < 3; j++ {
				c := w[d+j]
				t[j][c] |= bit
				if anyCase(k) && 'a' <= c && c <= 'z' {
					t[j][c-'a'+'A'] |= bit
				}
			}
		}
	}
	return t
}
