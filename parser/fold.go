package parser

import "strings"

// This file owns the folding of repeats: a failure logged over and over
// for one volume (a retry storm of days, a flood of one line) keeps its
// first foldKeep events verbatim and then becomes one event whose Count
// and Span say how many more there were and over how long, the way a
// describe row's "(x35 over 77m)" does. Memory then grows with the
// distinct facts of an input, not with its size.
//
// A retry is a cycle of lines, not one: the attach/detach controller's
// "AttachVolume started", the CSI attacher's error, nestedpendingoperations'
// backoff and the FailedAttachVolume Event echoed into the log, once an
// attempt (the kubelet's likewise). Each of them is a run of its own,
// kept by its key within its volume, so that the lines of one attempt do
// not end each other's runs; what ends a volume's runs is any other event
// of it (an attach that succeeded, a detach): the storm is over. (When a
// run was only ended by a line of another kind, an outage of days — 720
// attempts a day per volume, four lines each — kept every line.)

// foldKeep is how many events of one run are kept verbatim before the
// rest are folded (a variable so that tests can shrink it). Storms in
// real logs are far shorter; cadence and evidence read the verbatim ones.
var foldKeep = 100

// attemptStarts are the lines that start an attempt of a retried
// operation: they fold with a storm once the volume has a run, but never
// start its first (a healthy attach starts, then succeeds: no run is kept
// for it). (Indexed by Kind, a byte: read for every event.)
var attemptStarts = kindTable(AttachStarted, DetachStarted, VerifyAttachedStarted, MountStarted, UnmountStarted)

// foldKinds are the kinds a run of which is folded: failures and retries,
// the lines a component repeats while nothing changes, and attemptStarts.
var foldKinds = func() [256]bool {
	t := kindTable(AttachFailed, DetachFailed, VerifyAttachedFailed, WaitForAttachFailed,
		MountDeviceFailed, SetupFailed, TeardownFailed, UnmountDeviceFailed,
		MountTimeout, CSIError, MultiAttach, RetryScheduled,
		DetachBlockedMounted, AttachStartFailed, DetachStartFailed)
	for k, start := range attemptStarts {
		t[k] = t[k] || start
	}
	return t
}()

// kindTable is a table of kinds, true for each of ks.
func kindTable(ks ...Kind) (t [256]bool) {
	for _, k := range ks {
		t[k] = true
	}
	return t
}

// maxVolumeRuns is how many runs a volume keeps at once: the lines of a
// retry's cycle, on a node or two.
const maxVolumeRuns = 8

// foldKey is what makes two events repeats of each other.
type foldKey struct {
	kind            Kind
	origin          Origin // a log line, or the Kubernetes Event it echoes
	node, pod, code string
	component       Component
}

// foldRun is a run of one volume: its key, how many events it has had,
// and once folding has begun, the event (and metadata) it folds into, with
// the metadata of the first folded occurrence.
type foldRun struct {
	key   foldKey
	n     int
	into  *Event
	meta  *evMeta
	index int // of into among the input's events
}

// foldSpan records, for a folded event, the clock reading of its first
// occurrence: convert turns it into the event's Span.
type foldSpan struct {
	index int
	first evMeta
}

// volumeOf is the identity runs are kept by ("" when the event names none).
func volumeOf(ev *Event) string {
	switch {
	case ev.Volume != "":
		return ev.Volume
	case ev.PV != "":
		return ev.PV
	}
	return ev.Handle
}

// foldKeyOf is the key of ev's run.
func foldKeyOf(ev *Event) foldKey {
	return foldKey{ev.Kind, ev.Origin, ev.Node, ev.Pod, ev.Code, ev.Component}
}

// foldable reports whether ev may repeat a run (otherwise it ends its
// volume's runs).
func foldable(ev *Event) bool {
	return foldKinds[ev.Kind] && ev.Origin != OriginDescribe && ev.Count <= 1
}

// fold folds ev into its run when it repeats it past foldKeep, and
// reports whether it did (the caller stores ev otherwise, and tells
// stored where). An event that is not foldable ends the runs of every
// volume it names (its UniqueName, PV and handle: the CSI attacher's
// errors name only the handle).
func (st *inputState) fold(ev *Event, m evMeta, text string) bool {
	st.next = nil
	vol := volumeOf(ev)
	if vol == "" {
		return false
	}
	if !foldable(ev) {
		if len(st.folds) > 0 {
			for _, name := range [...]string{ev.Volume, ev.PV, ev.Handle} {
				if name != "" {
					delete(st.folds, name)
				}
			}
		}
		return false
	}
	runs := st.folds[vol]
	if len(runs) == 0 && attemptStarts[ev.Kind] {
		return false
	}
	k := foldKeyOf(ev)
	r := runOf(runs, k)
	if r == nil {
		if st.folds == nil {
			st.folds = map[string][]*foldRun{}
		}
		if len(runs) == maxVolumeRuns {
			// the oldest goes: its repeats, should they come back, start
			// a run again (pods recreated over and over each had one)
			runs = append(runs[:0], runs[1:]...)
		}
		st.folds[vol] = append(runs, &foldRun{key: k, n: 1})
		return false
	}
	r.n++
	if r.n <= foldKeep || r.into == nil {
		if r.n == foldKeep+1 {
			st.next = r // stored makes the event it is told of the one to fold into
		}
		return false // verbatim, or the event to fold into
	}
	st.foldInto(r, ev, m, text)
	return true
}

// foldRepeat is fold for an event past the run's budget: it folds ev into
// its run when that run is folding already (the repeat is counted, taking
// no room), and otherwise changes nothing and reports false (ev is
// dropped).
func (st *inputState) foldRepeat(ev *Event, m evMeta, text string) bool {
	st.next = nil
	if !foldable(ev) {
		return false
	}
	if r := runOf(st.folds[volumeOf(ev)], foldKeyOf(ev)); r != nil && r.into != nil {
		r.n++
		st.foldInto(r, ev, m, text)
		return true
	}
	return false
}

// runOf returns the run of key k among runs, or nil.
func runOf(runs []*foldRun, k foldKey) *foldRun {
	for _, r := range runs {
		if r.key == k {
			return r
		}
	}
	return nil
}

// foldInto makes ev, a repeat of run r past foldKeep, the event r folds
// into: the last occurrence, with the run's count and largest backoff.
func (st *inputState) foldInto(r *foldRun, ev *Event, m evMeta, text string) {
	into := r.into
	rep := *ev.Repeat
	if ev.Retry == nil || (into.Retry != nil && into.Retry.Backoff > ev.Retry.Backoff) {
		rep.Retry = into.Retry // the largest backoff seen
	}
	rep.Count = max(into.Count, 1) + 1
	ev.SetRepeat(rep)
	// the text of the last occurrence, a string of its own: a run's
	// texts, all but one overwritten, are not kept in the store
	ev.Text = TextOf(strings.Clone(text))
	*into, *r.meta = *ev, m // the last occurrence, with the run's count
	st.in.Folded++
}

// stored is told where addEvent put an event that fold did not take: the
// event after foldKeep verbatim ones of a run is the one the rest fold into.
func (st *inputState) stored(ev *Event, m *evMeta, index int) {
	r := st.next
	if r == nil {
		return
	}
	st.next = nil
	r.into, r.meta, r.index = ev, m, index
	st.foldSpans = append(st.foldSpans, foldSpan{index: index, first: *m})
}

// refold points the runs that fold into an event at where the event is
// once the events moved (reserve): its index among the input's events
// stays, and the run goes on as it would have. (The run of next, about to
// be told where its event goes, has none yet.)
func (st *inputState) refold() {
	for _, runs := range st.folds {
		for _, r := range runs {
			if r.into != nil {
				r.into, r.meta = &st.events[r.index], &st.metas[r.index]
			}
		}
	}
}

// setFoldSpans sets the Span of folded events from their first
// occurrence, once times are known (convert).
func (st *inputState) setFoldSpans() {
	for _, fs := range st.foldSpans {
		ev := &st.events[fs.index]
		first := st.timeOf(fs.first)
		if !first.IsZero() && ev.Time.UTC().After(first) {
			rep := *ev.Repeat
			rep.Span = ev.Time.UTC().Sub(first)
			ev.SetRepeat(rep)
		}
	}
	if st.in.Folded > 0 {
		st.problem(0, "%d repeated failure lines folded into %d events (each keeps the count and span of its repeats)", st.in.Folded, len(st.foldSpans))
	}
	st.folds, st.foldSpans = nil, nil
}
