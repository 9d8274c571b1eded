package classifier

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// This file keeps the first, plain versions of the classification helpers
// that were later rewritten for speed, and checks that the fast versions
// give the same answers.

// volumeRelatedReference is volumeRelated as first written.
func volumeRelatedReference(s string) bool {
	for _, tok := range [...]string{"UniqueName", "attacherDetacher", "AttachVolume", "DetachVolume",
		"MountVolume", "UnmountVolume", "UnmountDevice", "MountDevice", "nestedpendingoperations",
		"Multi-Attach", "VolumeAttachment", "kubernetes.io/csi", "VolumesInUse", "volumesAttached"} {
		if strings.Contains(s, tok) {
			return true
		}
	}
	l := strings.ToLower(s)
	if !strings.Contains(l, "volume") {
		return false
	}
	return strings.Contains(l, "attach") || strings.Contains(l, "detach") || strings.Contains(l, "mount")
}

// opKindReference is opKind as first written: every rule in order, not
// only those starting with the op's first byte.
func opKindReference(op string) (Kind, Component, bool) {
	for _, r := range opRules {
		if r.matches(op) {
			return r.kind, r.comp, true
		}
	}
	return 0, 0, false
}

// refCorpus is text to compare the fast helpers with their references on,
// without duplicates: the messages of the catalog examples, the real logs
// and generated logs of the text eras, plus hand-written edge cases; with
// more, also every message's first line, clause op and the tails of its
// first line after each blank.
func refCorpus(t testing.TB, more bool) []string {
	t.Helper()
	out := []string{
		"", "v", "volume", "VOLUME ATTACH", "VoLuMe is MOUNTed", "volume attac", "olume attach",
		"the Volume was detached", "mount then volume", "volumes", "\xffvolume\xfe attach",
		"ſtarting attach detach controller", "Kvolume mount", "İvolume", "volum\u0130 attach",
		"UniqueName", "UniqueNam", "xUnmountDevicex", "nestedpendingoperations.go", "kubernetes.io/cs",
		"kubernetes.io/csi", "attacherDetacher", "attacherdetacher", "MountDevice", "mountDevice",
		"Multi-Attach", "multi-attach", "VolumesInUse", "volumesinuse", "AttachVolume", "volumesAttached",
		"Volume detached", "Volume detached--skipping", "UnmountDevice", "UnmountDevice failed",
		"MountVolume.SetUp succeeded", "MountVolume.foo", "MountVolume.foo failed", "DetachVolume",
		"attacherDetacher.AttachVolume started", "Starting attacherDetacher.DetachVolume",
	}
	files := []string{filepath.Join("..", "..", "testdata", "catalog", "examples.log")}
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real-logs", "*.log"))
	for _, p := range append(files, real...) {
		for _, r := range testRecords(t, testReadFile(t, p)) {
			out = append(out, r.rec.Rest, r.rec.Msg)
			if r.rec.Table != nil {
				out = append(out, r.rec.Table.Message)
			}
		}
	}
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		for _, r := range testRecords(t, genCandidateLines(t, era, 1<<20)) {
			rest := r.rec.Rest
			out = append(out, rest)
			if m, _, ok := parseStructured(rest); ok {
				out = append(out, m)
			}
		}
	}
	n := len(out)
	for _, s := range out[:n] {
		if !more {
			break
		}
		first := firstLine(s)
		out = append(out, first)
		if c, ok := parseClause(s); ok {
			out = append(out, c.op)
		}
		for i := 0; i < len(first); i++ {
			if first[i] == ' ' {
				out = append(out, first[i+1:])
			}
		}
	}
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, s := range out {
		if !seen[s] {
			seen[s] = true
			uniq = append(uniq, s)
		}
	}
	return uniq
}

func TestVolumeRelatedMatchesReference(t *testing.T) {
	for _, s := range refCorpus(t, true) {
		if got, want := volumeRelated(s), volumeRelatedReference(s); got != want {
			t.Errorf("volumeRelated(%q) = %v, reference %v", s, got, want)
		}
	}
}

func TestOpKindMatchesReference(t *testing.T) {
	corpus := refCorpus(t, true)
	for _, r := range opRules {
		corpus = append(corpus, r.prefix, r.prefix+" failed", r.prefix+"x", r.prefix[:len(r.prefix)-1])
	}
	for _, s := range corpus {
		k, c, ok := opKind(s)
		wk, wc, wok := opKindReference(s)
		if k != wk || c != wc || ok != wok {
			t.Errorf("opKind(%q) = %q, %q, %v; reference %q, %q, %v", s, k, c, ok, wk, wc, wok)
		}
	}
}

// TestVolumeWordsFoldASCII checks what volumeRelated relies on to fold
// letter case byte by byte: strings.ToLower turns no rune other than the
// ASCII letters into a letter of "volume", "attach", "detach" or "mount".
func TestVolumeWordsFoldASCII(t *testing.T) {
	const letters = "volumeattachdetachmount"
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if l := unicode.ToLower(r); l < utf8.RuneSelf && strings.ContainsRune(letters, l) {
			t.Errorf("strings.ToLower turns %U into %q", r, l)
		}
	}
}

// TestSpecialStemsCoverCases reads specialCases' source and checks that
// every case of its switch compares the first line with a literal (a prefix,
// an exact text or a case-insensitive text) that specialMayMatch admits
// with all its extensions, so that classifySpecial's early return skips no
// case.
func TestSpecialStemsCoverCases(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "classify.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sw *ast.SwitchStmt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "specialCases" {
			for _, st := range fd.Body.List {
				if s, ok := st.(*ast.SwitchStmt); ok && s.Tag == nil {
					sw = s
				}
			}
		}
	}
	if sw == nil {
		t.Fatal("specialCases: no tagless switch found")
	}
	cases := 0
	for _, st := range sw.Body.List {
		cc := st.(*ast.CaseClause)
		for _, e := range cc.List {
			for _, d := range splitOp(e, token.LOR) {
				cases++
				if !disjunctGated(t, d) {
					t.Errorf("%s: case %s does not require a first-line literal specialMayMatch admits",
						fset.Position(d.Pos()), literals(d))
				}
			}
		}
	}
	if cases < 40 {
		t.Errorf("only %d case conditions found", cases)
	}
}

// splitOp splits e on the binary operator op (|| or &&), parentheses removed.
func splitOp(e ast.Expr, op token.Token) []ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			break
		}
		e = p.X
	}
	if b, ok := e.(*ast.BinaryExpr); ok && b.Op == op {
		return append(splitOp(b.X, op), splitOp(b.Y, op)...)
	}
	return []ast.Expr{e}
}

// disjunctGated reports whether one of the conjuncts of d is
// strings.HasPrefix(first, lit), strings.EqualFold(first, lit) or
// first == lit with a literal whose every extension (and, for EqualFold,
// every text equal to it ignoring case) specialMayMatch admits.
func disjunctGated(t *testing.T, d ast.Expr) bool {
	for _, c := range splitOp(d, token.LAND) {
		var lit ast.Expr
		fold := false
		switch x := c.(type) {
		case *ast.CallExpr:
			sel, ok := x.Fun.(*ast.SelectorExpr)
			if !ok || len(x.Args) != 2 || !isIdent(x.Args[0], "first") || !isIdent(sel.X, "strings") {
				continue
			}
			switch sel.Sel.Name {
			case "HasPrefix":
			case "EqualFold":
				fold = true
			default:
				continue
			}
			lit = x.Args[1]
		case *ast.BinaryExpr:
			if x.Op != token.EQL || !isIdent(x.X, "first") {
				continue
			}
			lit = x.Y
		default:
			continue
		}
		bl, ok := lit.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			continue
		}
		s, err := strconv.Unquote(bl.Value)
		if err != nil || s == "" {
			t.Fatalf("bad literal %s", bl.Value)
		}
		// specialMayMatch only compares prefixes with stems, so admitting
		// s admits every extension of s
		if !fold && specialMayMatch(s) {
			return true
		}
		// a text equal to s ignoring case starts with two runes that
		// fold to its first two: each such pair must be admitted
		if fold && foldPrefixesAdmitted(s) {
			return true
		}
	}
	return false
}

// foldPrefixesAdmitted reports whether specialMayMatch admits every text
// whose first two runes are those of s up to simple case folding: every
// text strings.EqualFold finds equal to s starts so (EqualFold compares
// rune by rune, each within its unicode.SimpleFold orbit).
func foldPrefixesAdmitted(s string) bool {
	r0, n := utf8.DecodeRuneInString(s)
	r1, _ := utf8.DecodeRuneInString(s[n:])
	for _, a := range foldOrbit(r0) {
		for _, b := range foldOrbit(r1) {
			if !specialMayMatch(string(a) + string(b)) {
				return false
			}
		}
	}
	return true
}

// foldOrbit returns r and every rune that simple case folding makes equal
// to it.
func foldOrbit(r rune) []rune {
	out := []rune{r}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		out = append(out, f)
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// literals lists the literals of an expression, for messages.
func literals(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if bl, ok := n.(*ast.BasicLit); ok {
			b.WriteString(bl.Value + " ")
		}
		return true
	})
	return b.String()
}

// FuzzClassifyHelpers compares the fast helpers with their references:
// volumeRelated, opKind and readQuoted, and classifySpecial with its early
// return against the same switch run on a text that passes it.
func FuzzClassifyHelpers(f *testing.F) {
	for _, s := range refCorpus(f, false) {
		f.Add(s)
	}
	// SDK errors: one message, two, one without its RequestId, one at the end
	for _, s := range []string{
		"Code=RequestLimitExceeded, Message=Your current request times exceeds the frequency limit., RequestId=e6ad8eed-2c9a-4bc9-bb38-ac63cac2c610",
		"a Code=X, Message=m1, RequestId=r1; b Code=Y, Message=m2 not found, RequestId=r2 tail",
		"Code=X, Message=no id follows: timeout",
		"Message=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := volumeRelated(s), volumeRelatedReference(s); got != want {
			t.Fatalf("volumeRelated(%q) = %v, reference %v", s, got, want)
		}
		k, c, ok := opKind(s)
		wk, wc, wok := opKindReference(s)
		if k != wk || c != wc || ok != wok {
			t.Fatalf("opKind(%q) = %q, %q, %v; reference %q, %q, %v", s, k, c, ok, wk, wc, wok)
		}
		want := stripSDKMessagesReference(s)
		var small [8]byte
		for _, buf := range [][]byte{nil, small[:0], make([]byte, 0, sdkStripBuf)} {
			if got := withoutSDKMessages(s, buf); got != want {
				t.Fatalf("withoutSDKMessages(%q, cap %d) = %q, reference %q", s, cap(buf), got, want)
			}
		}
		q := strconv.Quote(s)
		if v, n, ok := readQuoted(q + " x"); !ok || n != len(q) || v != s {
			t.Fatalf("readQuoted(%q) = %q, %d, %v", q, v, n, ok)
		}
		// classifySpecial returns early only where no case matches
		var ev Draft
		if first := firstLine(s); !specialMayMatch(first) {
			for _, file := range []string{"", "controllermanager.go"} {
				if specialCases(&ev, file, first, s, nil) || ev != (Draft{}) {
					t.Fatalf("specialCases(%q) understood a text classifySpecial skips", s)
				}
			}
		}
	})
}

// stripSDKMessagesReference is withoutSDKMessages as first written, a new
// string built each time.
func stripSDKMessagesReference(s string) string {
	if !strings.Contains(s, "Message=") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "Message=")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len("Message="):]
		j := strings.Index(rest, "RequestId=")
		if j < 0 {
			return b.String()
		}
		s = rest[j:]
	}
}

// classifyCodeReference is classifyCode as first written: the text lowered
// with strings.ToLower, then strings.Contains for each phrase of each case
// in turn.
func classifyCodeReference(errText string) string {
	if errText == "" {
		return ""
	}
	s := stripSDKMessagesReference(errText)
	l := strings.ToLower(s)
	has := func(p string) bool { return strings.Contains(l, p) }
	switch {
	case !has("interface count") && (has("attachmentlimitexceeded") && has("volume") || has("attachment limit exceeded") ||
		has("maximum number of data disks") || has("maximum_persistent_disks") || has("number of disk devices") ||
		has("exceed max volume count") || has("volumes to one instance") || has("code = resourceexhausted")):
		return CodeAttachLimit
	case strings.Contains(l, "has not been added to the list of volumesinuse"),
		strings.Contains(l, "has not yet been added to the list of volumesinuse"),
		strings.Contains(l, "volume not marked in-use"):
		return CodeNotInUse
	case strings.Contains(l, "not attached according to node status"),
		strings.Contains(l, "not yet attached according to node status"):
		return CodeNotAttached
	case has("findattachablepluginbyspec"):
		return CodeNotAttachable
	case strings.Contains(l, "not found in the list of registered csi drivers"),
		strings.Contains(l, "does not contain driver"):
		return CodeDriverNotRegistered
	case strings.Contains(l, "can not find diskid"), strings.Contains(l, "cannot find diskid"),
		strings.Contains(l, "volumedevicenotfound"),
		strings.Contains(l, "could not find device path"),
		strings.Contains(l, "cbs block path") && strings.Contains(l, "not found"),
		strings.Contains(l, "not attached to node"),
		strings.Contains(l, "failed to find device path"),
		strings.Contains(l, "no device found"),
		strings.Contains(l, "device not found with serial"),
		strings.Contains(l, "/dev/disk/by-id/") && strings.Contains(l, "does not exist"),
		strings.Contains(l, "failed to find device for the volumeid"):
		return CodeSerialNotFound
	case strings.Contains(l, "multi-attach"), strings.Contains(l, "already exclusively attached"),
		strings.Contains(l, "waiting for detach"):
		return CodeMultiAttach
	case strings.Contains(l, "zonenotmatch"), strings.Contains(l, "zonemismatch"),
		strings.Contains(l, "zone mismatch"), strings.Contains(l, "not in the same zone"),
		strings.Contains(l, "node affinity conflict"),
		strings.Contains(l, "availability zone") && strings.Contains(l, "match"):
		return CodeZoneNotMatch
	case has("actual=busy"):
		return CodeVolumeBusy
	case strings.Contains(l, "still in use by node"), strings.Contains(l, "still mounted by other references"):
		return CodeStillMounted
	case strings.Contains(l, "unrecognized mount option"), strings.Contains(l, "unknown mount option"),
		strings.Contains(l, "invalid mount option"):
		return CodeMountOptionRejected
	case strings.Contains(l, "wrong fs type"), strings.Contains(l, "unknown filesystem type"),
		strings.Contains(l, "can't read superblock"), strings.Contains(l, "bad superblock"):
		return CodeWrongFSType
	case strings.Contains(l, "found errors on device"),
		strings.Contains(l, "fsck") && strings.Contains(l, "could not correct"):
		return CodeFsckFailed
	case strings.Contains(l, "already mounted or mount point busy"), strings.Contains(l, "resource busy"),
		strings.Contains(l, "target is busy"):
		return CodeDeviceBusy
	case strings.Contains(l, "volumeinuse"), strings.Contains(l, "already attached to an instance"),
		strings.Contains(l, "is attach to another instance"), strings.Contains(l, "attached to another"),
		strings.Contains(l, "already attached to a different"), strings.Contains(l, "already attached to node"),
		strings.Contains(l, "already used by pod"):
		return CodeVolumeInUse
	case has("operation with the given volume id"),
		has("code = aborted") && (has("is attaching") || has("is detaching") || has("is attached") || has("already exists") || has("in progress")):
		return CodeOperationPending
	case strings.Contains(l, "already executing"), strings.Contains(l, "alreadyexists desc = operation"):
		return CodeAlreadyExecuting
	case strings.Contains(l, "permissiondenied"), strings.Contains(l, "permission denied"),
		strings.Contains(l, "unauthorizedoperation"), strings.Contains(l, "authfailure"),
		strings.Contains(l, "operation not permitted"):
		return CodePermission
	case strings.Contains(l, "format of disk") && strings.Contains(l, "failed"),
		strings.Contains(l, "failed to format"):
		return CodeFormatFailed
	case strings.Contains(l, "mount failed: exit status"), strings.Contains(l, "failed to mount volume"):
		return CodeMountFailed
	case has("requestlimitexceeded") || has("request limit exceeded") || has("ratelimitexceeded") ||
		has("rate limit exceeded") || has("rate exceeded") || has("toomanyrequests") || has("too many requests") || has("throttl"):
		return CodeThrottled
	case strings.Contains(l, "notfound"), strings.Contains(l, "not found"), strings.Contains(l, "does not exist"):
		return CodeNotFound
	case strings.Contains(l, "deadlineexceeded"), strings.Contains(l, "deadline exceeded"),
		strings.Contains(l, "timed out"), strings.Contains(l, "timeout"):
		return CodeDeadlineExceeded
	case strings.Contains(l, "code = internal"):
		return CodeInternal
	}
	return ""
}

// findVolumeWordReference is findVolumeWord as first written: a search for
// `olume "`, stopping at each 'o'.
func findVolumeWordReference(s string) int {
	k := 0
	for {
		m := strings.Index(s[k:], `olume "`)
		if m < 0 {
			return -1
		}
		m += k
		if m >= 1 && (s[m-1] == 'v' || s[m-1] == 'V') && (m == 1 || s[m-2] == ' ' || s[m-2] == '\n') {
			return m - 1
		}
		k = m + 1
	}
}
