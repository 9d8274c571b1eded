package classifier

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/golden"
)

// classifyDump renders the classification of every record in a file, one
// line per record: "<line> <kind> key=value …" with empty fields omitted.
// Records that classify ok=false are listed as "-" so that the golden file
// also pins what is ignored.
func classifyDump(t *testing.T, path string) (string, map[Kind]int, []testRec) {
	t.Helper()
	recs := testRecords(t, testReadFile(t, path))
	var b strings.Builder
	kinds := map[Kind]int{}
	for _, r := range recs {
		ev, ok := Classify(r.rec)
		if !ok {
			fmt.Fprintf(&b, "%d -\n", r.line)
			continue
		}
		kinds[ev.Kind]++
		fmt.Fprintf(&b, "%d %s%s\n", r.line, ev.Kind, eventFields(ev))
	}
	return b.String(), kinds, recs
}

// eventFields renders the message-side fields of ev for goldens and errors.
func eventFields(ev Draft) string {
	var b strings.Builder
	add := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	add("volume", ev.Volume)
	add("pv", ev.PV)
	add("handle", ev.Handle)
	add("attachment", ev.Attachment)
	add("node", ev.Node)
	add("pod", ev.Pod)
	add("uid", ev.PodUID)
	add("code", ev.Code)
	add("component", ev.Component.String())
	add("origin", ev.Origin.String())
	add("reason", ev.Reason)
	add("detail", ev.Detail)
	if ev.Count > 0 {
		add("count", fmt.Sprint(ev.Count))
	}
	if ev.Retry != nil {
		add("backoff", ev.Retry.Backoff.String())
		add("until", ev.Retry.Until)
		if ev.Retry.Mono != 0 {
			add("mono", fmt.Sprint(ev.Retry.Mono))
		}
	}
	add("error", clip(ev.Error, 140))
	return b.String()
}

// TestClassifyGolden pins the classification of every record of the catalog
// examples and of every real log (testdata/classify/*.golden; reviewed by hand,
// KCMTRACE_UPDATE=1 rewrites).
func TestClassifyGolden(t *testing.T) {
	files := []string{filepath.Join("..", "..", "testdata", "catalog", "examples.log")}
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real-logs", "*.log"))
	files = append(files, real...)
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".log")
		t.Run(name, func(t *testing.T) {
			got, _, _ := classifyDump(t, f)
			golden.Check(t, filepath.Join("testdata", "classify", name+".golden"), []byte(got))
		})
	}
}
