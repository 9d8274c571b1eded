// Package cpubudget holds the scale tests to a budget of processor time:
// a step that must stay near-linear in what the input controls is run at a
// size where a quadratic one would take many times the budget. Processor
// time, not wall time, so that a loaded machine does not fail the test.
package cpubudget

import (
	"testing"
	"time"
)

// Within runs f and fails t when the process spends more than budget of
// processor time before f returns. It fails as soon as the budget is spent
// (f, still running, is abandoned), so that a regression fails in budget
// time rather than in the minutes a quadratic step would take. Under -short
// (the race detector's run, many times slower) it skips.
func Within(t testing.TB, budget time.Duration, what string, f func()) {
	t.Helper()
	if testing.Short() {
		t.Skip("a processor-time budget: not under -short")
	}
	done := make(chan struct{})
	start := used()
	go func() {
		defer close(done)
		f()
	}()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			if d := used() - start; d > budget {
				t.Fatalf("%s took %s of processor time, over its budget of %s", what, d.Round(time.Millisecond), budget)
			}
			return
		case <-tick.C:
			if d := used() - start; d > budget {
				t.Fatalf("%s: still running after %s of processor time, over its budget of %s", what, d.Round(time.Millisecond), budget)
			}
		}
	}
}
