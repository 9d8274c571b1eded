package parser

import (
	"fmt"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/cpubudget"
)

// TestInheritLinearInInputs: 40 000 inputs (a must-gather), half of them
// journald logs with their host's zone and year, half plain logs of the
// same hosts, inherit within a second of processor time (each input used to
// scan every other for donors, twice: 3.2 G calls), each from its own host's
// donor; an input with no host inherits nothing from donors that disagree.
func TestInheritLinearInInputs(t *testing.T) {
	const hosts = 20000
	w := wall{mon: 8, day: 12, hour: 3}
	var states []*inputState
	for i := range hosts {
		d := newInputState(fmt.Sprintf("node-%05d/journal.log", i), len(states))
		d.host, d.haveWall, d.lastW = fmt.Sprintf("node-%05d", i), true, w
		d.year, d.off, d.hasOff = 2020+i%5, time.Duration(i%24)*time.Hour, true
		d.in.YearFrom, d.in.ZoneFrom, d.in.Zone = FromWrapper, FromWrapper, zoneName(d.off)
		r := newInputState(fmt.Sprintf("node-%05d/kubelet.log", i), len(states)+1)
		r.host, r.haveWall, r.lastW = d.host, true, w
		states = append(states, d, r)
	}
	orphan := newInputState("kcm.log", len(states))
	orphan.haveWall, orphan.lastW = true, w
	states = append(states, orphan)
	cpubudget.Within(t, time.Second, "inherit over 40 000 inputs", func() { inherit(states) })
	for i := 1; i < len(states)-1; i += 2 {
		d, r := states[i-1], states[i]
		if r.in.ZoneFrom != FromOtherInput || r.off != d.off || r.in.YearFrom != FromOtherInput || r.year != d.year {
			t.Fatalf("%s: zone %s (%s) year %d (%s); want its host's %s, %d", r.in.Path, r.in.Zone, r.in.ZoneFrom, r.year, r.in.YearFrom, d.in.Zone, d.year)
		}
	}
	if orphan.in.ZoneFrom != "" || orphan.in.YearFrom != "" {
		t.Errorf("an input without a host inherited %s/%s from donors that disagree", orphan.in.ZoneFrom, orphan.in.YearFrom)
	}
}
