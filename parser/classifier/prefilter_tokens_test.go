package classifier

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrefilterPassesClassifiedLines: every record that Classify turns into
// an event (examples and real logs) has at least one physical line with a
// prefilter token (PrefilterTokens, which the parser's byte prefilter looks
// for; its tests hold mayMatter to hasPrefilterToken) — otherwise the event
// would be lost before classification.
func TestPrefilterPassesClassifiedLines(t *testing.T) {
	files := []string{filepath.Join("..", "..", "testdata", "catalog", "examples.log")}
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real-logs", "*.log"))
	files = append(files, real...)
	for _, f := range files {
		for _, r := range testRecords(t, testReadFile(t, f)) {
			ev, ok := Classify(r.rec)
			if !ok {
				continue
			}
			text := r.text
			if r.rec.Rest != "" {
				text += "\n" + r.rec.Rest
			}
			pass := false
			for _, line := range strings.Split(text, "\n") {
				if hasPrefilterToken([]byte(line)) {
					pass = true
					break
				}
			}
			if !pass {
				t.Errorf("%s:%d: %s event dropped by the prefilter: %s", filepath.Base(f), r.line, ev.Kind, clip(r.text, 120))
			}
		}
	}
}

// hasPrefilterToken reports whether line contains one of PrefilterTokens.
func hasPrefilterToken(line []byte) bool {
	for _, tok := range PrefilterTokens() {
		if bytes.Contains(line, tok) {
			return true
		}
	}
	return false
}
