package timeline

import (
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
)

// TestSharedEvents: the events of one ParseAll call are taken as they lie
// (no copy); events from separate arrays, or out of order, are not.
func TestSharedEvents(t *testing.T) {
	paths := []string{"../testdata/incidents/seed-legacy/kcm.log", "../testdata/incidents/seed-legacy/kubelet.log"}
	res, errs := parser.ParseAll(paths, parser.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	bounds := []int{0, len(res[0].Events), len(res[0].Events) + len(res[1].Events)}
	if len(res[0].Events) == 0 || len(res[1].Events) == 0 {
		t.Fatal("fixture inputs without events")
	}
	shared := sharedEvents(res, bounds)
	if shared == nil || &shared[0] != &res[0].Events[0] || &shared[bounds[1]] != &res[1].Events[0] {
		t.Fatal("ParseAll's events were not taken as they lie")
	}
	swapped := []parser.Result{res[1], res[0]}
	if sharedEvents(swapped, []int{0, bounds[2] - bounds[1], bounds[2]}) != nil {
		t.Error("events in the wrong order taken as one array")
	}
	copied := []parser.Result{res[0], {Events: append([]parser.Event(nil), res[1].Events...)}}
	if sharedEvents(copied, bounds) != nil {
		t.Error("events of a separate array taken as one")
	}
}
