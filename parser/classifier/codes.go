package classifier

import (
	"math/bits"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/swar"
)

// ClassifyCode is the error class (a Code* constant, or "") of an error
// text read outside a log line: a VolumeAttachment's status.attachError,
// say. It classifies as the parser does the errors it reads.
func ClassifyCode(errText string) string { return classifyCode(errText) }

// classifyCode maps an error text to one of the Code* constants, or "" when
// nothing is recognised. It matches error codes and fixed phrases written by
// Kubernetes, cloud SDKs and drivers — never the free-form, service-provided
// Message of a cloud SDK error (it may be in Chinese and may mention anything):
// `[TencentCloudSDKError] Code=…, Message=…, RequestId=…` keeps only its Code.
// The first of codeRules that the text (in lower case) satisfies decides.
func classifyCode(errText string) string {
	if errText == "" {
		return ""
	}
	var buf [sdkStripBuf]byte
	have := codePhrasesIn(withoutSDKMessages(errText, buf[:0]))
	for _, r := range codeRules {
		if have.meets(r.unless) {
			continue
		}
		for _, m := range r.masks {
			if have.covers(m) {
				return r.code
			}
		}
	}
	return ""
}

// codeRuleText lists the classes classifyCode tells, in the order it tries
// them, each with the phrases that make it: a rule applies to a text whose
// lower-case form contains every phrase of one of its clauses and none of
// its unless phrases. Order matters: the most specific classes come first
// (a CBS serial error is wrapped in `code = Internal`; a ZoneNotMatch
// message may say "not found"; a volume limit may be a PermissionDenied).
var codeRuleText = [...]struct {
	code    string
	clauses [][]string
	unless  []string
}{
	// The node's volume limit: AWS (EC2 AttachmentLimitExceeded "You may
	// attach up to N devices", the EBS driver's "Attachment limit exceeded
	// for volume"; an ENI's AttachmentLimitExceeded "Interface count N
	// exceeds the limit" is not a volume's), Azure, GCE, OpenStack nova,
	// QingCloud, the scheduler's volume-limit filter, and CSI
	// ResourceExhausted (what ControllerPublishVolume returns at the limit).
	{CodeAttachLimit, [][]string{{"attachmentlimitexceeded", "volume"}, {"attachment limit exceeded"},
		{"maximum number of data disks"}, {"maximum_persistent_disks"}, {"number of disk devices"},
		{"exceed max volume count"}, {"volumes to one instance"}, {"code = resourceexhausted"}},
		[]string{"interface count"}},
	{CodeNotInUse, [][]string{{"has not been added to the list of volumesinuse"},
		{"has not yet been added to the list of volumesinuse"}, {"volume not marked in-use"}}, nil},
	{CodeNotAttached, [][]string{{"not attached according to node status"},
		{"not yet attached according to node status"}}, nil},
	{CodeNotAttachable, [][]string{{"findattachablepluginbyspec"}}, nil},
	{CodeDriverNotRegistered, [][]string{{"not found in the list of registered csi drivers"},
		{"does not contain driver"}}, nil},
	{CodeSerialNotFound, [][]string{{"can not find diskid"}, {"cannot find diskid"},
		{"volumedevicenotfound"}, {"could not find device path"}, {"cbs block path", "not found"},
		{"not attached to node"}, {"failed to find device path"}, {"no device found"},
		{"device not found with serial"}, {"/dev/disk/by-id/", "does not exist"},
		{"failed to find device for the volumeid"}}, nil},
	{CodeMultiAttach, [][]string{{"multi-attach"}, {"already exclusively attached"}, {"waiting for detach"}}, nil},
	{CodeZoneNotMatch, [][]string{{"zonenotmatch"}, {"zonemismatch"}, {"zone mismatch"},
		{"not in the same zone"}, {"node affinity conflict"}, {"availability zone", "match"}}, nil},
	{CodeVolumeBusy, [][]string{{"actual=busy"}}, nil},
	{CodeStillMounted, [][]string{{"still in use by node"}, {"still mounted by other references"}}, nil},
	// mount(8), fsck and mkfs failures of a device that is present, as
	// mount-utils reports them.
	{CodeMountOptionRejected, [][]string{{"unrecognized mount option"}, {"unknown mount option"},
		{"invalid mount option"}}, nil},
	{CodeWrongFSType, [][]string{{"wrong fs type"}, {"unknown filesystem type"}, {"can't read superblock"},
		{"bad superblock"}}, nil},
	{CodeFsckFailed, [][]string{{"found errors on device"}, {"fsck", "could not correct"}}, nil},
	{CodeDeviceBusy, [][]string{{"already mounted or mount point busy"}, {"resource busy"},
		{"target is busy"}}, nil},
	{CodeVolumeInUse, [][]string{{"volumeinuse"}, {"already attached to an instance"},
		{"is attach to another instance"}, {"attached to another"}, {"already attached to a different"},
		{"already attached to node"}, {"already used by pod"}}, nil},
	// CSI Aborted for an operation in flight: "An operation with the given
	// Volume ID … already exists" (the drivers' per-volume lock), Longhorn's
	// "The volume … is attaching"; not the CBS driver's Aborted wrapper
	// around any attach error ("attachVolume … failed, err: […]").
	{CodeOperationPending, [][]string{{"operation with the given volume id"}, {"code = aborted", "is attaching"},
		{"code = aborted", "is detaching"}, {"code = aborted", "is attached"}, {"code = aborted", "already exists"},
		{"code = aborted", "in progress"}}, nil},
	{CodeAlreadyExecuting, [][]string{{"already executing"}, {"alreadyexists desc = operation"}}, nil},
	{CodePermission, [][]string{{"permissiondenied"}, {"permission denied"}, {"unauthorizedoperation"},
		{"authfailure"}, {"operation not permitted"}}, nil},
	{CodeFormatFailed, [][]string{{"format of disk", "failed"}, {"failed to format"}}, nil},
	{CodeMountFailed, [][]string{{"mount failed: exit status"}, {"failed to mount volume"}}, nil},
	// The cloud API's rate limit (not a volume limit: the AttachLimit rule
	// comes first, and its phrases name volumes, disks or devices).
	{CodeThrottled, [][]string{{"requestlimitexceeded"}, {"request limit exceeded"}, {"ratelimitexceeded"},
		{"rate limit exceeded"}, {"rate exceeded"}, {"toomanyrequests"}, {"too many requests"}, {"throttl"}}, nil},
	{CodeNotFound, [][]string{{"notfound"}, {"not found"}, {"does not exist"}}, nil},
	{CodeDeadlineExceeded, [][]string{{"deadlineexceeded"}, {"deadline exceeded"}, {"timed out"}, {"timeout"}}, nil},
	{CodeInternal, [][]string{{"code = internal"}}, nil},
}

// codePhrases are the distinct phrases of codeRuleText (at most
// maxCodePhrases), and codeRules its rules with each clause and the unless
// list as sets of its phrases (phrase k is bit k of the set).
var codePhrases, codeRules = func() (phrases []string, rules []codeRule) {
	index := map[string]int{}
	set := func(ps []string) (m phraseSet) {
		for _, p := range ps {
			k, ok := index[p]
			if !ok {
				k = len(phrases)
				index[p] = k
				phrases = append(phrases, p)
			}
			m.add(k)
		}
		return m
	}
	for _, r := range codeRuleText {
		cr := codeRule{code: r.code}
		for _, c := range r.clauses {
			cr.masks = append(cr.masks, set(c))
		}
		cr.unless = set(r.unless)
		rules = append(rules, cr)
	}
	if len(phrases) > maxCodePhrases {
		panic("codeRuleText: more than maxCodePhrases phrases")
	}
	return phrases, rules
}()

// maxCodePhrases is how many distinct phrases a phraseSet holds.
const maxCodePhrases = 64 * len(phraseSet{})

// phraseSet is a set of codePhrases: bit k%64 of word k/64 for phrase k.
type phraseSet [2]uint64

func (s *phraseSet) add(k int) { s[k>>6] |= 1 << (k & 63) }

// covers reports whether s holds every phrase of m.
func (s phraseSet) covers(m phraseSet) bool { return s[0]&m[0] == m[0] && s[1]&m[1] == m[1] }

// meets reports whether s and m share a phrase.
func (s phraseSet) meets(m phraseSet) bool { return s[0]&m[0] != 0 || s[1]&m[1] != 0 }

// codeRule is a rule of codeRuleText: its code, its clauses and its unless
// phrases as phrase sets.
type codeRule struct {
	code   string
	masks  []phraseSet
	unless phraseSet
}

// codeGate holds, for each byte and j < 4, the set of codePhrases whose
// byte j it is in either letter case: a phrase can only start at s[i] if it
// is in codeGate[j][s[i+j]] for each j.
var codeGate = func() (t [4][256]phraseSet) {
	for k, p := range codePhrases {
		for j := range t {
			c := p[j]
			t[j][c].add(k)
			if 'a' <= c && c <= 'z' {
				t[j][c-'a'+'A'].add(k)
			}
		}
	}
	return t
}()

// codePairs has bit b0<<8|b1 set when some codePhrase starts with b0
// and b1 in either letter case: codeGate[0][b0] and codeGate[1][b1]
// share a phrase. Most pairs of a text start none, and one test of this
// 8 KiB table, which stays in the first-level cache, skips them.
var codePairs = func() (t [1 << 16 / 64]uint64) {
	for c0 := range 256 {
		for c1 := range 256 {
			g0, g1 := codeGate[0][c0], codeGate[1][c1]
			if g0[0]&g1[0] != 0 || g0[1]&g1[1] != 0 {
				i := c0<<8 | c1
				t[i>>6] |= 1 << (i & 63)
			}
		}
	}
	return t
}()

// codePhrasesIn returns the set of codePhrases that strings.ToLower(s)
// contains. For an ASCII s (where ToLower only lowers A-Z) it reads s once,
// checking at each byte the phrases its first four bytes may start (each
// phrase has more), among those not found yet — where its first two may
// start one at all (codePairs: the texts of an error storm, classified
// once a line, were 4.5% of its CPU) —; a text with other bytes is
// lowered and searched for each phrase.
func codePhrasesIn(s string) (have phraseSet) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return codePhrasesInLower(strings.ToLower(s))
		}
		if i+3 >= len(s) {
			continue
		}
		if p := uint(c)<<8 | uint(s[i+1]); codePairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for w := range have {
			m := codeGate[0][c][w] & codeGate[1][s[i+1]][w] & codeGate[2][s[i+2]][w] & codeGate[3][s[i+3]][w] &^ have[w]
			for ; m != 0; m &= m - 1 {
				k := w<<6 + bits.TrailingZeros64(m)
				if hasPrefixLower(s[i:], codePhrases[k]) {
					have.add(k)
				}
			}
		}
	}
	return have
}

// codePhrasesInLower returns the set of codePhrases that l contains.
func codePhrasesInLower(l string) (have phraseSet) {
	for k, p := range codePhrases {
		if strings.Contains(l, p) {
			have.add(k)
		}
	}
	return have
}

// hasPrefixLower reports whether s starts with p once its ASCII capitals are
// lowered (p has no capital).
func hasPrefixLower(s, p string) bool {
	if len(s) < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		c := s[j]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[j] {
			return false
		}
	}
	return true
}

// sdkStripBuf is the room classifyCode and limitMayMatch give
// withoutSDKMessages on their stack: an error of a cloud SDK is a line or
// two (a longer one takes memory of its own).
const sdkStripBuf = 512

// withoutSDKMessages removes the service-provided `Message=…` part of cloud
// SDK errors (`Code=X, Message=…, RequestId=…`) so that only codes are
// matched, the text it builds appended to buf: s itself when it has no
// `Message=`. An error storm's texts each
// have one (a throttled API's `Code=RequestLimitExceeded, Message=…,
// RequestId=<a new id>`), and building a new string for each took 30 MB of
// a GiB of such a log's 160 MB of garbage.
func withoutSDKMessages(s string, buf []byte) string {
	i := strings.Index(s, "Message=")
	if i < 0 {
		return s
	}
	b := buf[:0]
	for {
		b = append(b, s[:i]...)
		rest := s[i+len("Message="):]
		j := strings.Index(rest, "RequestId=")
		if j < 0 {
			break
		}
		s = rest[j:]
		if i = strings.Index(s, "Message="); i < 0 {
			b = append(b, s...)
			break
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// limitMayMatch reports whether classifyCode(s) may be CodeAttachLimit:
// false only when it is not. The AttachLimit rule is the first of
// codeRules, so classifyCode returns its code only when the text it reads
// (t, s without SDK messages) holds, in lower case, every phrase of one of
// the rule's clauses, so the first phrase of that clause (limitWords). For
// an ASCII t (strings.ToLower lowers only A-Z) that is what limitMayMatch
// looks for, reading three bytes at every multiple of three (limitGrams);
// any other t may match.
func limitMayMatch(s string) bool {
	var buf [sdkStripBuf]byte
	t := withoutSDKMessages(s, buf[:0])
	for i := 0; i+2 < len(t); i += 3 {
		m := limitGrams[0][t[i]] & limitGrams[1][t[i+1]] & limitGrams[2][t[i+2]]
		for ; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			if p := i - b%3; p >= 0 && hasPrefixLower(t[p:], limitWords[b/3]) {
				return true
			}
		}
	}
	return !swar.IsASCII(t)
}

// limitWords are the first phrases of the clauses of the AttachLimit rule,
// and limitGrams their three-byte pieces in either letter case.
var (
	limitWords = func() (w []string) {
		if codeRuleText[0].code != CodeAttachLimit {
			panic("codeRuleText: the AttachLimit rule is not the first")
		}
		for _, c := range codeRuleText[0].clauses {
			w = append(w, c[0])
		}
		return w
	}()
	limitGrams = wordGrams(limitWords, func(int) bool { return true })
)
