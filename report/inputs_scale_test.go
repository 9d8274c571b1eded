package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/cpubudget"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestCoverageLinearInInputs: the coverage block of 20 000 describe inputs
// re-anchored (a skew each) beside 20 000 kubelet skews renders within two
// seconds of processor time (each describe input's clock line used to
// search every skew: 800 M comparisons), and each input's line reports its
// own anchoring.
func TestCoverageLinearInInputs(t *testing.T) {
	const n = 20000
	tl := &timeline.Timeline{}
	for i := range n {
		d, k := fmt.Sprintf("node-%05d/describe.txt", i), fmt.Sprintf("node-%05d/kubelet.log", i)
		tl.Inputs = append(tl.Inputs, parser.Input{Path: d, Format: "describe"})
		tl.Skews = append(tl.Skews, timeline.Skew{Path: k, From: "none"}, timeline.Skew{Path: d, Offset: time.Duration(i) * time.Millisecond, Pairs: 1 + i%7, From: "matched-events"})
	}
	var out bytes.Buffer
	cpubudget.Within(t, 2*time.Second, "coverage of 20 000 describe inputs", func() {
		if err := Text(&out, &Analysis{Timeline: tl}, Options{}); err != nil {
			t.Error(err)
		}
	})
	text := out.String()
	for _, i := range []int{0, 1, 4321, n - 1} {
		want := fmt.Sprintf("node-%05d/describe.txt  unknown  describe  0 events · 0 unknown\n      no timestamps · ages anchored by %s with the logs (+%s) · 0 lines", i, plural(1+i%7, "matching event"), time.Duration(i)*time.Millisecond)
		if !strings.Contains(text, want) {
			at := strings.Index(text, fmt.Sprintf("node-%05d/describe.txt", i))
			t.Fatalf("want %q in the coverage; it has %q", want, text[at:min(len(text), at+200)])
		}
	}
}
