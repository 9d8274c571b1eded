package cpubudget

import (
	"fmt"
	"testing"
	"time"
)

// fatal records Fatalf and stops the caller, as testing.T does.
type fatal struct {
	testing.TB
	msg string
}

type stopped struct{}

func (f *fatal) Helper() {}
func (f *fatal) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func run(t *testing.T, budget time.Duration, f func()) (msg string) {
	if testing.Short() {
		t.Skip("Within skips under -short")
	}
	tb := &fatal{}
	defer func() {
		if r := recover(); r != nil && r != (stopped{}) {
			panic(r)
		}
		msg = tb.msg
	}()
	Within(tb, budget, "step", f)
	return ""
}

func TestWithinPassesCheapWork(t *testing.T) {
	if msg := run(t, time.Second, func() {}); msg != "" {
		t.Fatal(msg)
	}
}

// TestWithinStopsSpinningWork: a step that spins past its budget fails as
// soon as the budget is spent, not when the step ends.
func TestWithinStopsSpinningWork(t *testing.T) {
	quit := make(chan struct{})
	defer close(quit)
	start := used()
	msg := run(t, 50*time.Millisecond, func() {
		for {
			select {
			case <-quit:
				return
			default:
			}
		}
	})
	if msg == "" {
		t.Fatal("a step spinning for ever passed")
	}
	if d := used() - start; d > 5*time.Second {
		t.Fatalf("failed only after %s", d)
	}
}
