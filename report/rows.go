package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// row is one line of a volume's event list: a run of events of one kind on
// one node with one error class, collapsed ("attach-failed ZoneNotMatch ×40").
type row struct {
	First, Last *parser.Event // in the events folded (never nil)
	Time, Until time.Time
	Count       int // events in the run, describe counts included
	Kind        parser.Kind
	Node        string
	Code        string
	Pods        []string
}

// sameRun reports whether two rows are of one run: kind, node and error
// class.
func (r *row) sameRun(o *row) bool { return r.Kind == o.Kind && r.Node == o.Node && r.Code == o.Code }

// collapse groups events into rows. An event joins one of the two most
// recent rows on its node when kind and error class match, so a retry storm
// (attach started, attach failed, started, failed, …) on one node stays two
// rows while other nodes move on, and a different step on the node ends the
// run.
func collapse(evs []parser.Event) []row { return fold(evs, false) }

// fold is collapse; with loop set, an event also joins an older row of its
// node when every row of that node since is part of the same retry loop
// (failures, timeouts): "MountDevice failed ×35" stays one row although
// mount timeouts interleave, while a success on the node ends the run.
func fold(evs []parser.Event, loop bool) []row {
	// (most volumes fold into a few rows: one array of them)
	rows := make([]row, 0, min(len(evs), 16))
	recent := map[string][]int{} // node → indices of its rows, newest last
	for i := range evs {
		e := &evs[i]
		n := int(e.Count)
		if n < 1 {
			n = 1
		}
		r := row{First: e, Last: e, Time: e.Time.UTC(), Until: e.Time.UTC(), Count: n, Kind: e.Kind, Node: e.Node, Code: e.Code}
		if e.Span > 0 && !e.Time.IsZero() {
			r.Until = e.Time.Add(e.Span).UTC()
			if e.Origin == parser.OriginDescribe {
				// describe rows carry the last time; the span reaches back.
				r.Time = e.Time.Add(-e.Span).UTC()
				r.Until = e.Time.UTC()
			}
		}
		if e.Pod != "" {
			r.Pods = []string{e.Pod}
		}
		merged := false
		rc := recent[e.Node]
		for j := len(rc) - 1; j >= 0; j-- {
			i := rc[j]
			if !loop && j < len(rc)-2 {
				break
			}
			if !rows[i].sameRun(&r) {
				if loop && !loopKind(rows[i].Kind) {
					break
				}
				continue
			}
			merged = true
			p := &rows[i]
			p.Count += n
			p.Last = e
			if r.Until.After(p.Until) {
				p.Until = r.Until
			}
			if e.Pod != "" && !contains(p.Pods, e.Pod) {
				p.Pods = append(p.Pods, e.Pod)
			}
			break
		}
		if merged {
			continue
		}
		rows = append(rows, r)
		recent[e.Node] = append(recent[e.Node], len(rows)-1)
	}
	return rows
}

// loopKind is an event kind a retry loop repeats without changing state.
func loopKind(k parser.Kind) bool {
	switch k {
	case parser.AttachFailed, parser.DetachFailed, parser.MountDeviceFailed, parser.SetupFailed,
		parser.WaitForAttachFailed, parser.VerifyAttachedFailed, parser.MountTimeout, parser.MultiAttach,
		parser.CSIError, parser.TeardownFailed, parser.UnmountDeviceFailed, parser.DetachBlockedMounted,
		parser.AttachStartFailed, parser.DetachStartFailed:
		return true
	}
	return false
}

// maxKeyRows caps an incident's key-event timeline; `kcmtrace timeline`
// shows everything.
const maxKeyRows = 30

// noiseKinds never make a post-mortem timeline: bookkeeping and the steps
// every retry repeats.
var noiseKinds = map[parser.Kind]bool{
	parser.Bookkeeping: true, parser.RetryScheduled: true, parser.DetachRequested: true,
	parser.MountStarted: true, parser.UnmountStarted: true, parser.VerifyAttachedStarted: true,
	parser.DetachVerifiedSafe: true, parser.Unknown: true,
}

// keyEvents keeps the events a post-mortem timeline needs: no bookkeeping,
// no per-retry steps (an attach started that failed, a WaitForAttach
// succeeded before a MountDevice result), no Event echoes, CSI error lines
// or describe rows that repeat a direct log line of the same failure.
func keyEvents(evs []parser.Event) []parser.Event {
	direct := map[parser.Kind][]time.Time{} // kind → times of direct log lines (sorted: evs are)
	var failures []parser.Event             // direct failure lines, for csi-error matching
	for _, e := range evs {
		if e.Origin != 0 || e.Time.IsZero() {
			continue
		}
		direct[e.Kind] = append(direct[e.Kind], e.Time.UTC())
		if e.Kind != parser.CSIError && (loopKind(e.Kind) || e.Code != "") {
			failures = append(failures, e)
		}
	}
	near := func(ts []time.Time, from, to time.Time) bool {
		i, _ := slices.BinarySearchFunc(ts, from, func(a, b time.Time) int { return a.Compare(b) })
		return i < len(ts) && !ts[i].After(to)
	}
	var out []parser.Event
	for i, e := range evs {
		if noiseKinds[e.Kind] {
			continue
		}
		switch {
		case e.EchoOf != 0: // an Event echo linked to its log line
			continue
		case e.Origin == parser.OriginDescribe && !e.Time.IsZero():
			const slack = 2 * time.Minute // describe ages are rounded to the minute
			if near(direct[e.Kind], e.Time.Add(-e.Span-slack).UTC(), e.Time.Add(slack).UTC()) {
				continue
			}
		case e.Kind == parser.CSIError && e.Origin == 0:
			if repeatsFailure(failures, e) {
				continue
			}
		}
		if superseded(evs, i) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// repeatsFailure reports whether a CSI error line says the same as a direct
// failure line close to it (same error class, or none known).
func repeatsFailure(failures []parser.Event, e parser.Event) bool {
	i, _ := slices.BinarySearchFunc(failures, e.Time.Add(-timeline.EchoWindow), func(f parser.Event, t parser.Stamp) int { return f.Time.Compare(t) })
	for ; i < len(failures) && !failures[i].Time.After(e.Time.Add(timeline.EchoWindow)); i++ {
		if f := failures[i]; e.Code == "" || f.Code == e.Code {
			return true
		}
	}
	return false
}

// superseded reports whether evs[i] is a step whose outcome, later on the
// same node, tells more: an attach/detach start whose next result failed
// (the failure row carries the count), a WaitForAttach success followed by
// a MountDevice/SetUp result.
func superseded(evs []parser.Event, i int) bool {
	e := evs[i]
	var results []parser.Kind
	var failed parser.Kind
	switch e.Kind {
	case parser.AttachStarted:
		results, failed = []parser.Kind{parser.AttachSucceeded, parser.AttachFailed}, parser.AttachFailed
	case parser.DetachStarted:
		results, failed = []parser.Kind{parser.DetachSucceeded, parser.DetachFailed}, parser.DetachFailed
	case parser.WaitForAttachSucceeded:
		results = []parser.Kind{parser.MountDeviceSucceeded, parser.MountDeviceFailed, parser.SetupSucceeded, parser.SetupFailed}
	default:
		return false
	}
	for _, n := range evs[i+1:] {
		if n.Node != e.Node || n.Origin != 0 || !slices.Contains(results, n.Kind) {
			continue
		}
		return failed == 0 || n.Kind == failed
	}
	return false
}

// keyRows is the condensed timeline of an incident: key events, loops
// folded into one row each.
func keyRows(evs []parser.Event) []row { return fold(keyEvents(evs), true) }

// stepLabels are the words a post-mortem uses for event kinds.
var stepLabels = map[parser.Kind]string{
	parser.AttachStarted: "attach started", parser.AttachSucceeded: "attach succeeded", parser.AttachFailed: "attach failed",
	parser.DetachStarted: "detach started", parser.DetachSucceeded: "detach succeeded", parser.DetachFailed: "detach failed",
	parser.ForceDetach: "force detach", parser.MultiAttach: "Multi-Attach error", parser.MarkedDetached: "marked detached (verification)",
	parser.DetachBlockedMounted:    "detach blocked: still mounted",
	parser.VerifyAttachedSucceeded: "kubelet: controller attach confirmed", parser.VerifyAttachedFailed: "kubelet: not attached yet",
	parser.WaitForAttachSucceeded: "WaitForAttach succeeded", parser.WaitForAttachFailed: "WaitForAttach failed",
	parser.MountDeviceSucceeded: "MountDevice succeeded", parser.MountDeviceFailed: "MountDevice failed",
	parser.SetupSucceeded: "SetUp succeeded", parser.SetupFailed: "SetUp failed",
	parser.TeardownSucceeded: "TearDown succeeded", parser.TeardownFailed: "TearDown failed",
	parser.UnmountDeviceSucceeded: "UnmountDevice succeeded", parser.UnmountDeviceFailed: "UnmountDevice failed",
	parser.KubeletVolumeDetached: "kubelet: volume detached", parser.MountTimeout: "mount timed out",
	parser.CSIError: "CSI error", parser.ControllerStarted: "controller started",
}

// step describes a key row: "MountDevice failed ×35 SerialNotFound until
// 10:47:19 (55m58s)".
func (r row) step(z displayZone) string {
	var b strings.Builder
	label := stepLabels[r.Kind]
	if label == "" {
		label = r.Kind.String()
	}
	b.WriteString(label)
	if r.Count > 1 {
		fmt.Fprintf(&b, " ×%d", r.Count)
	}
	if r.Code != "" {
		b.WriteString(" " + oneLine(r.Code))
	}
	if r.Count > 1 && !r.Until.IsZero() && r.Until.Sub(r.Time) >= time.Second {
		fmt.Fprintf(&b, " until %s (%s)", z.clock(r.Until, !z.sameDay(r.Time, r.Until)), human(r.Until.Sub(r.Time)))
	}
	switch r.First.Origin {
	case parser.OriginDescribe:
		b.WriteString(" (kubectl describe)")
	case parser.OriginEvent:
		b.WriteString(" (Event)")
	}
	return b.String()
}

// when is a row's time for humans: the clock time, or for an unanchored
// describe row its age ("4m before capture"), or "—".
func (r row) when(z displayZone, withDate bool) string {
	if !r.Time.IsZero() {
		return z.clock(r.Time, withDate)
	}
	return ageText(*r.First)
}

// ageText is "4m before capture" for an unanchored describe row, else "—".
func ageText(e parser.Event) string {
	if e.Age > 0 {
		return human(e.Age) + " before capture"
	}
	return unknownTime
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// what describes a row: "attach-failed ZoneNotMatch ×40 until 17:51:08 (1h23m)".
func (r row) what(withPod bool) string {
	var b strings.Builder
	b.WriteString(r.Kind.String())
	if r.Code != "" {
		b.WriteString(" " + oneLine(r.Code))
	}
	if r.Count > 1 {
		fmt.Fprintf(&b, " ×%d", r.Count)
	}
	if r.Count > 1 && !r.Until.IsZero() && r.Until.Sub(r.Time) >= time.Second {
		fmt.Fprintf(&b, " over %s", human(r.Until.Sub(r.Time)))
	}
	if withPod && len(r.Pods) > 0 {
		b.WriteString(" " + oneLine(r.Pods[0]))
	}
	if r.Kind == parser.Unknown && r.First.Reason != "" {
		b.WriteString(" (" + oneLine(r.First.Reason) + ")")
	}
	return b.String()
}

// sourceLoc is "kcm.log:14", or "kcm.log:14…220" for a run.
func (r row) sourceLoc() string {
	p := oneLine(r.First.Source.Path())
	if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p) > 20 {
		p = p[i+1:]
	}
	s := fmt.Sprintf("%s:%d", p, r.First.Source.Line)
	if r.Last.Source.Path() == r.First.Source.Path() && r.Last.Source.Line != r.First.Source.Line {
		s += fmt.Sprintf("…%d", r.Last.Source.Line)
	}
	return s
}
