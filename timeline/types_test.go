package timeline

import (
	"reflect"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// An interval's own times (NewInterval, SetTimes) are its Start and End,
// a copy given new ones leaves the original alone, and reflect.DeepEqual
// tells intervals of different times apart; an interval Build makes reads
// its volume's events, two of them included.
func TestIntervalTimes(t *testing.T) {
	iv := NewInterval(nodeA, Attached, at(1), at(2), 0, 1)
	if !iv.Start().Equal(at(1)) || !iv.End().Equal(at(2)) {
		t.Fatalf("NewInterval: %v → %v, want %v → %v", iv.Start(), iv.End(), at(1), at(2))
	}
	c := iv
	c.SetTimes(at(3), time.Time{})
	if !c.Start().Equal(at(3)) || !c.End().IsZero() || !iv.Start().Equal(at(1)) {
		t.Errorf("SetTimes on a copy: copy %v → %v, original from %v", c.Start(), c.End(), iv.Start())
	}
	if reflect.DeepEqual(iv, NewInterval(nodeA, Attached, at(1), at(5), 0, 1)) {
		t.Error("DeepEqual does not tell intervals of other times apart")
	}
	if !reflect.DeepEqual(iv, NewInterval(nodeA, Attached, at(1), at(2), 0, 1)) {
		t.Error("DeepEqual tells intervals of the same times apart")
	}
	v := &Volume{Events: []parser.Event{{Time: at(7)}, {Time: at(8)}}}
	built := Interval{Node: nodeA, State: Attached, From: 0, To: 1, evs: &v.Events}
	if !built.Start().Equal(at(7)) || !built.End().Equal(at(8)) {
		t.Errorf("built on two events: %v → %v, want %v → %v", built.Start(), built.End(), at(7), at(8))
	}
	if open := (Interval{From: 1, To: -1, evs: &v.Events}); !open.End().IsZero() || !open.Start().Equal(at(8)) {
		t.Errorf("open: %v → %v", open.Start(), open.End())
	}
	var zero Interval
	if !zero.Start().IsZero() || !zero.End().IsZero() {
		t.Error("the zero Interval has times")
	}
}
