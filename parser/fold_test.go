package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// stormLine is one nestedpendingoperations attach failure at second s.
func stormLine(s int, node string) string {
	return fmt.Sprintf(`E0812 11:%02d:%02d.734377       1 nestedpendingoperations.go:301] Operation for "{volumeName:kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz podName: nodeName:}" failed. No retries permitted until 2024-08-12 11:10:02.234363573 +0800 CST m=+259202.234363573 (durationBeforeRetry 2m2s). Error: "AttachVolume.Attach failed for volume \"pvc-5d6c\" (UniqueName: \"kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz\") from node \"%s\" : rpc error: code = Internal desc = Code=ResourceUnavailable.ZoneNotMatch, RequestId=%d"`+"\n", s/60%60, s%60, node, s)
}

// A flood of one failure keeps memory to the distinct facts: the first
// foldKeep events verbatim, the rest folded into one with their count and
// span; another node's failures, or any other event of the volume, start a
// new run.
func TestFoldRepeatedFailures(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := range n {
		b.WriteString(stormLine(i, "10.0.3.15"))
	}
	b.WriteString(stormLine(n, "10.0.3.16")) // another node: a run of its own
	r := ParseReader(strings.NewReader(b.String()), "storm.log", Options{})
	if got, want := len(r.Events), foldKeep+2; got != want {
		t.Fatalf("%d events, want %d (%d verbatim, one folded, one of another node)", got, want, foldKeep)
	}
	total := 0
	for _, ev := range r.Events {
		if ev.Node == "10.0.3.15" {
			total += max(ev.Count, 1)
		}
	}
	if total != n {
		t.Errorf("counts add up to %d, want %d", total, n)
	}
	folded := r.Events[foldKeep]
	if folded.Count != n-foldKeep {
		t.Errorf("folded event counts %d, want %d", folded.Count, n-foldKeep)
	}
	if want := time.Duration(n-1-foldKeep) * time.Second; folded.Span != want {
		t.Errorf("folded span %v, want %v", folded.Span, want)
	}
	if folded.Source.Line != n || !strings.Contains(folded.Text, fmt.Sprintf("RequestId=%d", n-1)) {
		t.Errorf("folded event quotes line %d, want the last repeat (%d)", folded.Source.Line, n)
	}
	if r.Input.Folded != n-foldKeep-1 || r.Input.EventLines != n+1 {
		t.Errorf("Folded %d, EventLines %d; want %d, %d", r.Input.Folded, r.Input.EventLines, n-foldKeep-1, n+1)
	}
	said := false
	for _, p := range r.Input.Problems {
		said = said || strings.Contains(p.Message, "folded")
	}
	if !said {
		t.Errorf("the input's problems do not say lines were folded: %v", r.Input.Problems)
	}
}
