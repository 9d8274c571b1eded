package parser

import (
	"bytes"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// This file owns the envelope side of informer plumbing
// (classifier.IsInformerPlumbing): finding the caller file of a klog or JSON
// log line cheaply, so that the block analysis can leave such lines in a
// plain run whatever tokens they have.

// fromInformerPlumbing reports a klog entry (payload p) written by one of
// the informerPlumbing files: such an entry is never relevant, whatever
// tokens it has, so the block analysis can leave it in a plain run.
func fromInformerPlumbing(p []byte) bool {
	h, ok := parseKlogHeader(p)
	return ok && classifier.IsInformerPlumbing(string(h.file))
}

// jsonFromInformerPlumbing is fromInformerPlumbing for a JSON log line p in
// the JSON logger's layout: {"ts":<decimal>,"caller":"<file>", with no
// other "caller" key after it, naming one of the informerPlumbing files as
// decodeJSONLog reads it.
func jsonFromInformerPlumbing(p []byte) bool {
	v, at, ok := loggerCaller(p)
	if !ok {
		return false
	}
	f, ok := callerFile(v)
	// the line's only "caller" (it cannot overlap itself): looked for
	// last, on the few lines from plumbing files
	return ok && classifier.IsInformerPlumbing(string(f)) && bytes.Index(p[at+2:], []byte(`"caller"`)) < 0
}

// loggerCaller returns the "caller" value of a JSON log line in the JSON
// logger's layout, {"ts":<decimal>,"caller":"…, after its opening quote,
// and where the comma before "caller" is (at).
func loggerCaller(p []byte) (v []byte, at int, ok bool) {
	const key = `,"caller":"`
	num, other, found := jsonTSNumber(p)
	if !found || other || !isDecimal(num) {
		return nil, 0, false
	}
	at = len(`{"ts":`) + len(num)
	if !bytes.HasPrefix(p, []byte(`{"ts":`)) || !bytes.HasPrefix(p[at:], []byte(key)) {
		return nil, 0, false
	}
	return p[at+len(key):], at, true
}

// callerFile returns the file basename of v, a JSON "caller" value after
// its opening quote ("dir/file.go:123"…), when it has no escape.
func callerFile(v []byte) (f []byte, ok bool) {
	end := bytes.IndexByte(v, '"')
	if end < 0 || bytes.IndexByte(v[:end], '\\') >= 0 {
		return nil, false
	}
	return fileBase(v[:end]), true
}

// isDecimal reports whether b is digits, with a fraction or not ("12",
// "12.5"): a JSON number.
func isDecimal(b []byte) bool {
	i := 0
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	if i == 0 {
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := i + 1
		for j < len(b) && isDigit(b[j]) {
			j++
		}
		if j == i+1 {
			return false
		}
		i = j
	}
	return i == len(b)
}
