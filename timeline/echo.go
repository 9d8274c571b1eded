package timeline

import (
	"slices"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// EchoWindow is how far apart in time a Kubernetes Event echoed into a
// component log and the operation line it repeats may be.
const EchoWindow = 5 * time.Second

// linkEchoes links each Event echoed into a log (Origin=OriginEvent) to
// the operation line it repeats, setting its EchoOf: a direct line of the
// same input, kind and volume (evs are one volume's, in time order, zero
// times last), on the same node and with the same error class where both
// name one, within EchoWindow; the nearest such line not linked already.
// An echo with no such line stays unlinked and counts as an occurrence of
// its own (Counted, Tally).
func linkEchoes(evs []parser.Event) {
	for i := range evs {
		if evs[i].EchoOf != 0 { // (mostly 0: a write would dirty every event)
			evs[i].EchoOf = 0
		}
	}
	var room [64]bool
	var taken []bool // direct lines already linked, by index
	for i := range evs {
		e := &evs[i]
		if e.Origin != parser.OriginEvent || e.Time.IsZero() {
			continue
		}
		from, to := e.Time.Add(-EchoWindow), e.Time.Add(EchoWindow)
		j, _ := slices.BinarySearchFunc(evs, from, func(d parser.Event, t parser.Stamp) int {
			if d.Time.IsZero() {
				return 1 // zero times sort last
			}
			return d.Time.Compare(t)
		})
		best, bestD := -1, time.Duration(0)
		for ; j < len(evs) && !evs[j].Time.IsZero() && !evs[j].Time.After(to); j++ {
			d := &evs[j]
			if d.Origin != 0 || d.Kind != e.Kind || d.Source.Input != e.Source.Input ||
				!agree(d.Node, e.Node) || !agree(d.Code, e.Code) || taken != nil && taken[j] {
				continue
			}
			if dist := d.Time.Sub(e.Time).Abs(); best < 0 || dist < bestD {
				best, bestD = j, dist
			}
		}
		if best < 0 {
			continue
		}
		if taken == nil {
			taken = room[:0]
			if len(evs) > len(room) {
				taken = make([]bool, 0, len(evs))
			}
			taken = taken[:len(evs)]
		}
		taken[best] = true
		e.EchoOf = int32(evs[best].Source.Line)
	}
}

// LinkEchoes links the volume's Event echoes to the log lines they repeat
// (Event.EchoOf), anew; Build does it for every volume it makes, this is
// for volumes assembled otherwise (v.Events in time order).
func (v *Volume) LinkEchoes() { linkEchoes(v.Events) }

// agree reports whether two values of a field can name the same thing:
// equal, or one of them unknown.
func agree(a, b string) bool { return a == "" || b == "" || a == b }

// Counted returns, of events that report the same occurrences several
// ways, the ones to count (catalog §7.4: count log lines, not events):
// a component's own log lines and the Event echoes linked to none of them
// (linkEchoes) — less the CSI plugin/driver error lines when an
// operation's own lines are there ("kubernetes.io/csi: attacher.MountDevice
// failed: …" and the nestedpendingoperations line after it are one
// failure). Failing those, the linked echoes (evs holds them without the
// lines they echo), and only when there are none, describe / get-events
// rows with their counts. Tally counts the same one event at a time.
func Counted(evs []parser.Event) []parser.Event {
	idx := make([]int, len(evs))
	for i := range idx {
		idx[i] = i
	}
	picked := CountedIdx(evs, idx)
	out := make([]parser.Event, len(picked))
	for j, k := range picked {
		out[j] = evs[k]
	}
	return out
}

// CountedIdx is Counted over the events evs[k] for k in idx, without
// copying them: the indices of the events to count, in idx's order.
func CountedIdx(evs []parser.Event, idx []int) []int {
	var logged, linked, table []int
	operation := false
	for _, k := range idx {
		e := &evs[k]
		switch {
		case e.Origin == 0 || e.Origin == parser.OriginEvent && e.EchoOf == 0:
			logged = append(logged, k)
			operation = operation || e.Kind != parser.CSIError
		case e.Origin == parser.OriginEvent:
			linked = append(linked, k)
		default:
			table = append(table, k)
		}
	}
	switch {
	case operation:
		return slices.DeleteFunc(logged, func(k int) bool { return evs[k].Kind == parser.CSIError })
	case len(logged) > 0:
		return logged
	case len(linked) > 0:
		return linked
	}
	return table
}

// Tally counts the occurrences of one class of events (one kind, or the
// mount failures) as Counted picks them, one event at a time: log lines
// and unlinked Event echoes, or, when the class has neither, describe rows
// with their counts. The zero Tally is empty.
type Tally struct {
	logged, table int
	seen          bool // a log line or an Event echo was added
}

// Add counts e.
func (t *Tally) Add(e *parser.Event) {
	n := max(int(e.Count), 1)
	switch e.Origin {
	case 0:
		t.logged += n
		t.seen = true
	case parser.OriginEvent:
		if e.EchoOf == 0 {
			t.logged += n
		}
		t.seen = true
	default:
		t.table += n
	}
}

// N is the count.
func (t Tally) N() int {
	if t.seen {
		return t.logged
	}
	return t.table
}

// FailureTally counts a volume's failed attaches, detaches and mounts
// (wait-for-attach, MountDevice and SetUp failures, mount timeouts), each
// class a Tally: the volumes table, the JSON's "failures" and Stats count
// with it. The zero FailureTally is empty.
type FailureTally struct{ attach, detach, mount Tally }

// Add counts e when it is a failure.
func (f *FailureTally) Add(e *parser.Event) {
	switch e.Kind {
	case parser.AttachFailed:
		f.attach.Add(e)
	case parser.DetachFailed:
		f.detach.Add(e)
	case parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed, parser.MountTimeout:
		f.mount.Add(e)
	}
}

// Counts are the failed attaches, detaches and mounts.
func (f *FailureTally) Counts() (attach, detach, mount int) {
	return f.attach.N(), f.detach.N(), f.mount.N()
}
