package livesource

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
	"github.com/kcmtrace/kcmtrace/parser"
)

// multiLineEntry is a structured KCM entry with a "key=<" block whose
// lines a collector shipped as separate records, a millisecond apart; the
// block's second line holds a prefilter token ("olume"), the others none.
var multiLineEntry = []string{
	`I0812 14:05:00.000000       1 reconciler.go:304] "attacherDetacher.AttachVolume started" volumeName="kubernetes.io/csi/disk.csi.azure.com^disk-ml" nodeName="node-ml" scheduledPods=<`,
	"\tdefault/pod-a",
	"\tdefault/volume-b",
	" >",
	`I0812 14:05:00.400000       1 garbagecollector.go:501] "Processing item" item="uid-ml"`,
	`I0812 14:05:00.500000       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "disk-ml" node="node-ml"`,
}

var multiLineRuns atomic.Int64

// TestVictoriaLogsJoinsContinuationLines: against the real server, a
// multi-line entry stored as one record a line comes back under the line
// filter as one record holding the whole entry (the filter alone keeps
// the header and the one block line with a token); the block's lines are
// not written again on their own, and the lines after the block are left
// alone.
func TestVictoriaLogsJoinsContinuationLines(t *testing.T) {
	base := needVictoriaLogs(t)
	at := time.Date(2024, 8, 12, 6, 5, 0, 0, time.UTC)
	var recs []vlogstest.Record
	for i, m := range multiLineEntry {
		recs = append(recs, vlogstest.Record{Role: "kcm", Time: at.Add(time.Duration(i) * time.Millisecond * 100), Msg: m})
	}
	// A container of its own on each run: the server outlives -count runs.
	container := fmt.Sprintf("kcm-multiline-%d", multiLineRuns.Add(1))
	body := strings.ReplaceAll(string(vlogstest.JSONLines(recs)), `"kube-controller-manager"`, `"`+container+`"`)
	if err := vlServer.Ingest("container,namespace,pod", []byte(body)); err != nil {
		t.Fatal(err)
	}
	src, _ := Parse("vlogs+" + base)
	var notes []string
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: at.Add(-time.Minute), Until: at.Add(time.Minute),
		Selectors: map[string]string{"kcm": `container:="` + container + `"`},
		Logf:      func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fetchedMessages(t, streams[0])
	want := []string{strings.Join(multiLineEntry[:4], "\n"), multiLineEntry[5]}
	diffLines(t, "joined", got, want)
	if s := streams[0]; s.Joined != 3 || s.Records != 2 {
		t.Errorf("joined %d lines into %d records, want 3 into 2", s.Joined, s.Records)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "continuation lines") {
		t.Errorf("notes %q", notes)
	}
	// The parser reads the block: the attach's pods are the block's
	// lines, not the "<" the header record alone would give.
	rc, err := streams[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	res := parser.ParseReader(rc, streams[0].Path, parser.Options{Format: streams[0].Envelope})
	if len(res.Events) != 2 || !strings.HasPrefix(res.Events[0].Pod, "default/pod-a") || res.Input.Lines != 2 {
		t.Errorf("parsed %d events (first's pod %q), %d lines; want the attach with the block's pods, and 2 lines", len(res.Events), res.Events[0].Pod, res.Input.Lines)
	}
}
