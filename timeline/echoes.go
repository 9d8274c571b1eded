package timeline

import (
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// dropDescribeEchoes removes from ord the describe / get-events rows that an
// Event object of the snapshot's Event lists also records: same kind,
// reason, volume and error, the same node and pod where both name one, and
// the row's time (its relative age, anchored) within the object's
// first..last seen, give or take the age's rounding; a row whose age could
// not be anchored (no log to anchor it to) is matched on the rest. The
// object carries exact times, so it is kept; the row is counted in *dupes,
// not as a second occurrence. ord is in time order and stays so.
func dropDescribeEchoes(evs []parser.Event, in []int32, ord []int32, inputs []parser.Input, snap *state.Snapshot, dupes *int) []int32 {
	exact := map[int32]bool{} // inputs that are Event lists
	for i := range inputs {
		if f := snap.File(inputs[i].Path); f != nil && f.Role == state.RoleEvents {
			exact[int32(i)] = true
		}
	}
	if len(exact) == 0 {
		return ord
	}
	type key struct {
		kind               parser.Kind
		reason, vol, error string
	}
	keyOf := func(ev *parser.Event) key {
		return key{ev.Kind, ev.Reason, volumeRef(ev), ev.Error}
	}
	objects := map[key][]int32{}
	for _, k := range ord {
		if exact[in[k]] && !evs[k].Time.IsZero() {
			kk := keyOf(&evs[k])
			objects[kk] = append(objects[kk], k)
		}
	}
	if len(objects) == 0 {
		return ord
	}
	out := ord[:0]
	for _, k := range ord {
		ev := &evs[k]
		if !exact[in[k]] && ev.Origin == parser.OriginDescribe && echoes(ev, evs, objects[keyOf(ev)]) {
			*dupes++
			continue
		}
		out = append(out, k)
	}
	return out
}

// echoes reports whether the describe row ev falls within one of the
// Event objects' first..last seen (widened by the rounding of its age), or
// names the same pod and node as one when its age is not anchored.
func echoes(ev *parser.Event, evs []parser.Event, objects []int32) bool {
	tol := ageRounding(ev.Age) + describeAnchorSlack
	for _, o := range objects {
		x := &evs[o]
		if ev.Pod != "" && x.Pod != "" && ev.Pod != x.Pod || ev.Node != "" && x.Node != "" && ev.Node != x.Node {
			continue
		}
		if ev.Time.IsZero() || ev.Relative {
			return true
		}
		first, last := x.Time.Add(-x.Span), x.Time
		if !ev.Time.Before(first.Add(-tol)) && !ev.Time.After(last.Add(tol)) {
			return true
		}
	}
	return false
}

// describeAnchorSlack is how far an anchored describe row may sit from when
// it was last seen beyond its age's rounding (the anchor is the median gap
// to matching log lines).
const describeAnchorSlack = time.Minute

// ageRounding is how much kubectl's age (duration.HumanDuration) rounds
// away: "45s" and "5m30s" are exact to the second, "78m" and "5h30m" to the
// minute, "30h" to the hour, "3d4h" to the hour, "10d" to the day.
func ageRounding(age time.Duration) time.Duration {
	switch {
	case age < 10*time.Minute:
		return time.Second
	case age < 8*time.Hour:
		return time.Minute
	case age < 8*24*time.Hour:
		return time.Hour
	}
	return 24 * time.Hour
}
