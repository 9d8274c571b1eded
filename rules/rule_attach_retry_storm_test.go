package rules

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// A storm of n failures on one (volume, node) is read in place: the rule
// copies the storm's events once, for the finding, not four or five times.
func TestAttachRetryStormCopiesOnce(t *testing.T) {
	const n = 20000
	t0 := time.Date(2024, 8, 12, 3, 0, 0, 0, time.UTC)
	evs := make([]parser.Event, n)
	for i := range evs {
		evs[i] = parser.Draft{
			Time: parser.StampOf(t0.Add(time.Duration(i) * time.Second)), Kind: parser.AttachFailed,
			Volume: "kubernetes.io/csi/cbs^disk-1", PV: "pvc-1", Node: "10.0.3.15", Code: parser.CodeZoneNotMatch,
			Component: parser.ComponentKCM, Retry: &parser.Retry{Backoff: 2 * time.Minute},
			Source: parser.Source{File: parser.InternPath("kcm.log"), Line: parser.Int32(i + 1)},
		}.Event()
	}
	tl := timeline.Build([]parser.Result{{Input: parser.Input{Path: "kcm.log"}, Events: evs}}, timeline.Options{})
	ctx := NewContext(tl, ruleAttachRetryStorm, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fs := checkAttachRetryStorm(ctx)
	runtime.ReadMemStats(&after)
	if len(fs) != 1 || fs[0].Count != n {
		t.Fatalf("findings %d, want one storm of %d", len(fs), n)
	}
	// Besides the one copy, the rule's index lists and the pods it gathers
	// cost about 300 bytes an event, whatever an Event's size: two copies
	// and those are within the bound, a third is past it, and the four or
	// five copies of old well past it.
	slice := uint64(n) * uint64(unsafe.Sizeof(parser.Event{}))
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*slice+n*320 {
		t.Errorf("allocated %d MB for a %d MB storm: the events were copied %.1f times", got>>20, slice>>20, float64(got)/float64(slice))
	}
}

// An outage of the cloud's API, as its SDK reports it, is a Throttled
// storm: the finding says the rate limit refused the calls (not the disk)
// and how to confirm it, for an attach retried until it succeeds and for a
// detach that failed (the external-attacher's ControllerUnpublishVolume).
func TestThrottledStorm(t *testing.T) {
	var b strings.Builder
	const unique = "kubernetes.io/csi/ebs.csi.aws.com^vol-0766d9cc3c1966b86"
	for i := range 6 {
		fmt.Fprintf(&b, "E0812 03:%02d:10.000000       1 nestedpendingoperations.go:348] Operation for \"{volumeName:%s podName: nodeName:}\" failed. No retries permitted until 2024-08-12 03:%02d:40.000000000 +0000 UTC m=+%d.0 (durationBeforeRetry 30s). Error: AttachVolume.Attach failed for volume \"pvc-1\" (UniqueName: \"%s\") from node \"i-0eb51d1f90e270d91\" : rpc error: code = Internal desc = could not attach volume: RequestLimitExceeded: Request limit exceeded.\n", i, unique, i, 100+60*i, unique)
	}
	fmt.Fprintf(&b, "I0812 03:07:10.000000       1 operation_generator.go:298] AttachVolume.Attach succeeded for volume \"pvc-1\" (UniqueName: \"%s\") from node \"i-0eb51d1f90e270d91\" \n", unique)
	fmt.Fprintf(&b, "I0812 04:05:15.324406       1 connection.go:184] GRPC error: rpc error: code = Internal desc = Could not detach volume \"vol-0766d9cc3c1966b86\" from node \"i-0eb51d1f90e270d91\": RequestLimitExceeded: Request limit exceeded.\n")
	r := parser.ParseReader(strings.NewReader(b.String()), "kcm.log", parser.Options{})
	tl := timeline.Build([]parser.Result{r}, timeline.Options{})
	res, err := Run(tl, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range res.Findings {
		if f.Code != parser.CodeThrottled {
			continue
		}
		got[f.Rule] = true
		text := f.Explanation + " " + f.Next
		for _, s := range f.Steps {
			text += " " + s.Text
		}
		if !strings.Contains(text, "request rate limit") || !strings.Contains(text, "RequestLimitExceeded") {
			t.Errorf("%s: the finding does not say the rate limit refused the calls, nor how to confirm it: %s", f.Rule, text)
		}
	}
	if !got["attach-retry-storm"] || !got["detach-failed"] {
		t.Errorf("Throttled findings %v, want attach-retry-storm and detach-failed (all: %+v)", got, res.Findings)
	}
}
