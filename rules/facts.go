package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file holds the small readers rules share over timeline facts. A few
// derive something the timeline does not (yet) state directly; each says so,
// so that the timeline can take it over.

// maxSeries is how many lines of one repeated series (a storm's failures, a
// mount's retries) a finding quotes: the first, a few spread evenly, the last.
const maxSeries = 5

// evidence turns an event into an evidence line.
func evidence(e parser.Event, note string) Evidence {
	return Evidence{Path: e.Source.Path(), Line: int(e.Source.Line), Time: e.Time.UTC(), text: e.Text, Note: note}
}

// series quotes a repeated series: the first line, up to maxSeries-2 lines
// spread evenly, and the last, noting how many were left out.
func series(evs []parser.Event, what string) []Evidence {
	n := len(evs)
	if n == 0 {
		return nil
	}
	if n == 1 {
		return []Evidence{evidence(evs[0], what)}
	}
	idx := []int{0}
	if n <= maxSeries {
		for i := 1; i < n; i++ {
			idx = append(idx, i)
		}
	} else {
		for k := 1; k < maxSeries-1; k++ {
			idx = append(idx, k*(n-1)/(maxSeries-1))
		}
		idx = append(idx, n-1)
		idx = slices.Compact(idx)
	}
	out := make([]Evidence, 0, len(idx))
	for j, i := range idx {
		note := fmt.Sprintf("%s (%d of %d)", what, i+1, n)
		if j == 0 {
			note = fmt.Sprintf("%s (first of %d)", what, n)
		}
		if j == len(idx)-1 {
			note = fmt.Sprintf("%s (last of %d)", what, n)
			if left := n - len(idx); left > 0 {
				note += fmt.Sprintf("; …and %d more not shown", left)
			}
		}
		out = append(out, evidence(evs[i], note))
	}
	return out
}

// weight is how many occurrences an event stands for: a describe row's
// "(x35 over 77m)" count, else 1.
func weight(e parser.Event) int {
	if e.Count > 1 {
		return int(e.Count)
	}
	return 1
}

// withoutSecondReports drops CSI plugin/driver error lines when the
// operation's own lines are there: "kubernetes.io/csi: attacher.MountDevice
// failed: …" and the nestedpendingoperations line after it are one failure.
// CSI lines count only when nothing else reports the failure.
func withoutSecondReports(direct []parser.Event) []parser.Event {
	for _, e := range direct {
		if e.Kind != parser.CSIError {
			return slices.DeleteFunc(slices.Clone(direct), func(e parser.Event) bool { return e.Kind == parser.CSIError })
		}
	}
	return direct
}

// apiCount returns the largest count a describe row or echoed Event reports
// among evs (0 when none): the API's own tally, shown next to the counted
// log lines.
func apiCount(evs []parser.Event) (n int, span time.Duration) {
	for _, e := range evs {
		if e.Origin != 0 && int(e.Count) > n {
			n, span = int(e.Count), e.Span
		}
	}
	return n, span
}

// total sums the weights of evs.
func total(evs []parser.Event) int {
	n := 0
	for _, e := range evs {
		n += weight(e)
	}
	return n
}

// firstSeen is when an event's occurrences began: a describe row covers
// Span before its (last-seen) time.
func firstSeen(e parser.Event) time.Time {
	if e.Span > 0 && !e.Time.IsZero() {
		return e.Time.Add(-e.Span).UTC()
	}
	return e.Time.UTC()
}

// spanOf returns the first and last time a set of events covers.
func spanOf(evs []parser.Event) (first, last time.Time) {
	for _, e := range evs {
		if e.Time.IsZero() {
			continue
		}
		f := firstSeen(e)
		if first.IsZero() || f.Before(first) {
			first = f
		}
		if e.Time.UTC().After(last) {
			last = e.Time.UTC()
		}
	}
	return first, last
}

// byTime sorts events by time, then input, then line.
func byTime(evs []parser.Event) {
	sort.SliceStable(evs, func(i, j int) bool {
		a, b := evs[i], evs[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.Source.Input != b.Source.Input {
			return a.Source.Input < b.Source.Input
		}
		return a.Source.Line < b.Source.Line
	})
}

// filter returns v's events that satisfy keep, in timeline order.
func filter(v *timeline.Volume, keep func(*parser.Event) bool) []parser.Event {
	var out []parser.Event
	for i := range v.Events {
		if keep(&v.Events[i]) {
			out = append(out, v.Events[i])
		}
	}
	return out
}

// push appends x to s, doubling s's array when it is full: append grows a
// large slice by a quarter at a time, a copy each time, five times the
// final size allocated in all where doubling allocates twice (on the churn
// shape's 1 GiB, newMountSide's lists were 5.4 MB of the rules' 12).
func push[T any](s []T, x T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 64))
	}
	return append(s, x)
}

func kindIn(k parser.Kind, kinds ...parser.Kind) bool { return slices.Contains(kinds, k) }

// isDetach reports a controller-side detach operation (started, forced or
// completed) or the CSI sidecar's view of one.
func isDetach(k parser.Kind) bool {
	return kindIn(k, parser.DetachStarted, parser.ForceDetach, parser.DetachVerifiedSafe,
		parser.DetachSucceeded, parser.CSIDetaching, parser.CSIDetached)
}

// stateAt returns the controller's state for (v, node) at t, read from the
// timeline's intervals (Start ≤ t < End; an open interval runs to the end).
// Fallback, for timelines built without intervals: the state implied by the
// last controller event on that node at or before t.
func stateAt(v *timeline.Volume, node string, t time.Time) (timeline.State, bool) {
	if len(v.Intervals) > 0 {
		var st timeline.State
		found := false
		for _, iv := range v.Intervals {
			if iv.Node != node || iv.Start().After(t) {
				continue
			}
			if iv.End().IsZero() || t.Before(iv.End()) {
				st, found = iv.State, true
			}
		}
		return st, found
	}
	var st timeline.State
	found := false
	for i := range v.Events {
		e := &v.Events[i]
		if e.Node != node || e.Time.UTC().After(t) || e.Origin != 0 {
			continue
		}
		if s, ok := controllerState(e.Kind); ok {
			st, found = s, true
		}
	}
	return st, found
}

// controllerState maps a controller event to the state it leaves (v, node) in.
func controllerState(k parser.Kind) (timeline.State, bool) {
	switch k {
	case parser.AttachStarted:
		return timeline.Attaching, true
	case parser.AttachSucceeded:
		return timeline.Attached, true
	case parser.AttachFailed:
		return timeline.Uncertain, true
	case parser.DetachStarted, parser.ForceDetach:
		return timeline.Detaching, true
	case parser.DetachSucceeded, parser.MarkedDetached:
		return timeline.Detached, true
	}
	return 0, false
}

// holds reports whether a controller state means the volume may be on the node.
func holds(s timeline.State) bool {
	return s == timeline.Attached || s == timeline.Attaching || s == timeline.Uncertain
}

// podsOf returns the pods named by evs.
func podsOf(evs []parser.Event) []string {
	var out []string
	for i := range evs {
		// a run's events mostly name the pod of the one before: a
		// repeat is left out here rather than by uniqSorted (a storm's
		// run of hundreds of attempts made as many strings to sort)
		if p := evs[i].Pod; p != "" && (len(out) == 0 || out[len(out)-1] != p) {
			out = append(out, p)
		}
	}
	return uniqSorted(out)
}

// end is when the logs end: the timeline's End, else the last event seen.
func end(tl *timeline.Timeline) time.Time {
	if !tl.End.IsZero() {
		return tl.End
	}
	var t time.Time
	for _, v := range tl.Volumes {
		for i := range v.Events {
			if e := &v.Events[i]; e.Time.UTC().After(t) {
				t = e.Time.UTC()
			}
		}
		if v.Last().After(t) {
			t = v.Last()
		}
	}
	for i := range tl.Other {
		if e := &tl.Other[i]; e.Time.UTC().After(t) {
			t = e.Time.UTC()
		}
	}
	return t
}

// name is how a finding names a volume: its PV when known, else its key.
func name(v *timeline.Volume) string {
	if v.PV != "" {
		return v.PV
	}
	return key(v)
}

// key is the volume identity findings carry.
func key(v *timeline.Volume) string {
	if v.UniqueName != "" {
		return v.UniqueName
	}
	return v.Key()
}

// nodeOr names a node, or says it is unknown (events and describe rows
// often do not carry one).
func nodeOr(n string) string {
	if n == "" {
		return "an unnamed node"
	}
	return n
}

// nodeHere is n, or "the node" when the lines name none: for next steps,
// which say what to do there ("on the node run lsblk"), where nodeOr's
// "an unnamed node" reads as another node.
func nodeHere(n string) string {
	if n == "" {
		return "the node"
	}
	return n
}

// driverNote is " (driver d)", or "" when the driver is not known.
func driverNote(d string) string {
	if d == "" {
		return ""
	}
	return " (driver " + d + ")"
}

// deviceNotFoundMarkers are error texts meaning "the attached device is not
// on this node" (catalog §9.1 and kin). Matched case-insensitively.
var deviceNotFoundMarkers = []string{
	"by serial",
	"volumedevicenotfound",
	"could not find device path",
	"couldn't find device path",
	"failed to find device path",
	"unable to find device",
	"device not found",
	"no such device",
	"is not attached to node",
	"not attached to this node",
	"cbs block path",
	"failed to get device path",
}

// deviceKinds are the kinds of event isDeviceNotFound may accept;
// deviceNotFoundKinds is the same as a set.
var (
	deviceKinds         = []parser.Kind{parser.MountDeviceFailed, parser.WaitForAttachFailed, parser.SetupFailed, parser.CSIError}
	deviceNotFoundKinds = kindsOf(deviceKinds...)
)

// isDeviceNotFound reports a kubelet/CSI mount-side failure that says the
// device is missing on the node.
func isDeviceNotFound(e *parser.Event) bool {
	if !slices.Contains(deviceKinds, e.Kind) {
		return false
	}
	if e.Kind == parser.CSIError && e.Component == parser.ComponentKCM {
		return false
	}
	if e.Code == parser.CodeSerialNotFound {
		return true
	}
	if e.Code == parser.CodeNotAttached || e.Code == parser.CodeNotInUse {
		return false
	}
	t := strings.ToLower(e.Error)
	if t == "" {
		t = strings.ToLower(e.Text.String())
	}
	if strings.Contains(t, "according to node status") {
		return false
	}
	for _, m := range deviceNotFoundMarkers {
		if strings.Contains(t, m) {
			return true
		}
	}
	return false
}

// backoffs returns the largest durationBeforeRetry in evs (0 when none).
func maxBackoff(evs []parser.Event) time.Duration {
	var m time.Duration
	for _, e := range evs {
		if e.Retry != nil && e.Retry.Backoff > m {
			m = e.Retry.Backoff
		}
	}
	return m
}

// failingFor is how long an operation must already have been failing for
// nestedpendingoperations to set backoff d: the sum of the earlier steps of
// 500ms, 1s, 2s, … (catalog §4.1).
func failingFor(d time.Duration) time.Duration {
	var sum time.Duration
	for step := 500 * time.Millisecond; step < d && step <= 2*time.Minute; step *= 2 {
		sum += step
	}
	return sum
}

// cadence describes the observed spacing of a series of attempts.
func cadence(evs []parser.Event) string {
	var gaps []time.Duration
	for i := 1; i < len(evs); i++ {
		if g := evs[i].Time.Sub(evs[i-1].Time); g > 0 {
			gaps = append(gaps, g)
		}
	}
	mb := maxBackoff(evs)
	var parts []string
	if len(gaps) > 0 {
		slices.Sort(gaps)
		parts = append(parts, fmt.Sprintf("attempts every %s (median; shortest %s, longest %s)",
			dur(gaps[len(gaps)/2]), dur(gaps[0]), dur(gaps[len(gaps)-1])))
	}
	if mb > 0 {
		parts = append(parts, fmt.Sprintf("backoff reached %s", dur(mb)))
	}
	return strings.Join(parts, ", ")
}

// dur formats a duration compactly: 500ms, 7s, 2m2s, 1h23m.
func dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Hour:
		s := d.Round(time.Second).String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		return s
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}

// clock formats a time of day for summaries and stories ("03:45:13",
// UTC, see timemark.go); "time unknown" for an unanchored describe row.
func clock(t time.Time) string {
	if t.IsZero() {
		return "time unknown"
	}
	return mark(t, 'c')
}

// stamp prefixes a story step with its time of day, or nothing when unknown.
func stamp(t time.Time, s string) string {
	if t.IsZero() {
		return s
	}
	return clock(t) + " " + s
}

// attachRun is one stretch of attach attempts of a volume to one node: from
// the first attempt after the volume was last attached or detached there, to
// the success, an abandoning detach, or the end of the logs. The timeline's
// intervals split this into one attaching/uncertain stretch per attempt;
// slow-attach needs the whole run.
type attachRun struct {
	Node      string
	node      int32 // Node's index in the volume's facts
	first     int   // index in Volume.Events of the first attempt
	last      int   // index of the closing event; -1 when open
	Failures  int
	Start     time.Time
	End       time.Time // success or abandon time; zero when open
	Succeeded bool
	Abandoned bool // a detach ended it (the volume was no longer wanted there)
}

// events returns the run's attempts, failures and closing success, in
// timeline order: while a run is open every attempt on its node joins it.
func (r *attachRun) events(v *timeline.Volume, vf *volFacts) []parser.Event {
	to := r.last
	if to < 0 {
		to = len(v.Events) - 1
	}
	in := func(i int) bool {
		e := &v.Events[i]
		return vf.node[i] == r.node && e.Origin == 0 &&
			(e.Kind == parser.AttachStarted || e.Kind == parser.AttachFailed || (i == r.last && r.Succeeded))
	}
	// counted first, then copied into an array of that size: a storm's
	// run is hundreds of 80-byte events, which appending copied over
	// and over as the array grew
	n := 0
	for i := r.first; i <= to; i++ {
		if in(i) {
			n++
		}
	}
	out := make([]parser.Event, 0, n)
	for i := r.first; i <= to; i++ {
		if in(i) {
			out = append(out, v.Events[i])
		}
	}
	return out
}

// runKinds are the attempts that open an attach run.
var runKinds = kindsOf(parser.AttachStarted, parser.AttachFailed)

// attachRunner derives attach runs, reusing its space from one volume to
// the next.
type attachRunner struct {
	out  []attachRun
	open []attachRun // by node index; Node is "" when none is open
}

// runs derives v's attach runs from its controller events (direct log
// lines only), ordered by start. The result is valid until the next call.
func (a *attachRunner) runs(v *timeline.Volume, vf *volFacts) []attachRun {
	a.out = a.out[:0]
	if !vf.has(runKinds) {
		return a.out // no attempt
	}
	a.open = slices.Grow(a.open[:0], len(vf.nodes))[:len(vf.nodes)]
	clear(a.open)
	for i := range v.Events {
		e, n := &v.Events[i], vf.node[i]
		if e.Origin != 0 || n < 0 {
			continue
		}
		r := &a.open[n]
		switch {
		case e.Kind == parser.AttachStarted || e.Kind == parser.AttachFailed:
			if r.Node == "" {
				*r = attachRun{Node: vf.nodes[n], node: n, first: i, last: -1, Start: e.Time.UTC()}
			}
			if e.Kind == parser.AttachFailed {
				r.Failures++
			}
		case r.Node == "":
			// nothing open on this node: only attempts matter
		case e.Kind == parser.AttachSucceeded:
			r.last, r.End, r.Succeeded = i, e.Time.UTC(), true
			a.out = append(a.out, *r)
			r.Node = ""
		case isDetach(e.Kind) || e.Kind == parser.MarkedDetached:
			r.last, r.End, r.Abandoned = i, e.Time.UTC(), true
			a.out = append(a.out, *r)
			r.Node = ""
		}
	}
	for _, r := range a.open { // still open, by node name
		if r.Node != "" {
			a.out = append(a.out, r)
		}
	}
	slices.SortStableFunc(a.out, func(x, y attachRun) int { return x.Start.Compare(y.Start) })
	return a.out
}

// restart is a point where the controller's memory was rebuilt, with the
// line that shows it when one exists.
type restart struct {
	Time   time.Time
	Reason string
	Event  *parser.Event
}

// restarts returns the timeline's restarts plus controller-start events the
// timeline did not turn into one, in time order, one per second at most.
// vols are the facts of tl's volumes.
func restarts(tl *timeline.Timeline, vols []volFacts) []restart {
	var out []restart
	for _, r := range tl.Restarts {
		out = append(out, restart{Time: r.Time, Reason: r.Reason, Event: findLine(tl, r.Source)})
	}
	add := func(e *parser.Event) {
		if e.Kind == parser.ControllerStarted && e.Origin == 0 {
			c := *e // a copy of its own, as before: only the few kept events are copied
			out = append(out, restart{Time: c.Time.UTC(), Reason: "controller-started", Event: &c})
		}
	}
	for i := range tl.Other {
		add(&tl.Other[i])
	}
	started := kindsOf(parser.ControllerStarted)
	for vi, v := range tl.Volumes {
		if !vols[vi].has(started) {
			continue
		}
		for i := range v.Events {
			add(&v.Events[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	var dedup []restart
	for _, r := range out {
		if n := len(dedup); n > 0 && r.Time.Sub(dedup[n-1].Time) < time.Second {
			if dedup[n-1].Event == nil {
				dedup[n-1].Event = r.Event
			}
			continue
		}
		dedup = append(dedup, r)
	}
	return dedup
}

// findLine returns the event read from src, if the timeline kept one.
func findLine(tl *timeline.Timeline, src parser.Source) *parser.Event {
	if src.Path() == "" {
		return nil
	}
	for i := range tl.Other {
		if tl.Other[i].Source == src {
			return &tl.Other[i]
		}
	}
	for _, v := range tl.Volumes {
		for i := range v.Events {
			if v.Events[i].Source == src {
				return &v.Events[i]
			}
		}
	}
	return nil
}

// driverOf returns the volume's driver or plugin name, reading the
// UniqueName when the timeline did not fill Driver.
func driverOf(v *timeline.Volume) string {
	if d := v.Driver(); d != "" {
		return d
	}
	u := v.UniqueName
	if rest, ok := strings.CutPrefix(u, "kubernetes.io/csi/"); ok {
		d, _, _ := strings.Cut(rest, "^")
		return d
	}
	if i := strings.Index(u, "/"); i >= 0 {
		if j := strings.Index(u[i+1:], "/"); j >= 0 {
			return u[:i+1+j]
		}
	}
	return ""
}

// isCBS reports a Tencent Cloud CBS volume (CSI or in-tree).
func isCBS(v *timeline.Volume) bool { return isCBSDriver(driverOf(v)) }

// isCBSDriver: driver d is Tencent Cloud's CBS (see isCBS).
func isCBSDriver(d string) bool {
	return strings.Contains(d, "tencent.cloud.csi.cbs") || strings.Contains(d, "qcloud-cbs")
}

// plural returns "1 thing" / "3 things".
func plural(n int, s string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", s)
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// groupByNode splits events by node, keeping the order in which nodes first
// appear. No events give no map (groups is read only): rules group the
// filtered events of every volume, mostly none, and a map each was 35k
// allocations a rule on the churn shape's 1 GiB.
func groupByNode(evs []parser.Event) (nodes []string, groups map[string][]parser.Event) {
	if len(evs) == 0 {
		return nil, nil
	}
	groups = map[string][]parser.Event{}
	for _, e := range evs {
		if groups[e.Node] == nil {
			nodes = append(nodes, e.Node)
		}
		groups[e.Node] = append(groups[e.Node], e)
	}
	return nodes, groups
}

// ownCode reports an event of error class code that is a component's own
// line or a describe/get-events row, not a Kubernetes Event echoed into a
// log (which repeats the line it echoes).
func ownCode(e *parser.Event, code string) bool {
	return e.Code == code && e.Origin != parser.OriginEvent
}
