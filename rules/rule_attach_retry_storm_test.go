package rules

import (
	"runtime"
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
