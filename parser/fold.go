package parser

import "strings"

// This file owns the folding of repeats: a failure logged over and over
// for one volume (a retry storm of days, a flood of one line) keeps its
// first foldKeep events verbatim and then becomes one event whose Count
// and Span say how many more there were and over how long, the way a
// describe row's "(x35 over 77m)" does. Memory then grows with the
// distinct facts of an input, not with its size.

// foldKeep is how many events of one run are kept verbatim before the
// rest are folded (a variable so that tests can shrink it). Storms in
// real logs are far shorter; cadence and evidence read the verbatim ones.
var foldKeep = 100

// foldKinds are the kinds a run of which is folded: failures and retries,
// the lines a component repeats while nothing changes.
var foldKinds = map[Kind]bool{
	AttachFailed: true, DetachFailed: true, VerifyAttachedFailed: true, WaitForAttachFailed: true,
	MountDeviceFailed: true, SetupFailed: true, TeardownFailed: true, UnmountDeviceFailed: true,
	MountTimeout: true, CSIError: true, MultiAttach: true, RetryScheduled: true,
	DetachBlockedMounted: true, AttachStartFailed: true, DetachStartFailed: true,
}

// foldKey is what makes two events repeats of each other.
type foldKey struct {
	kind            Kind
	node, pod, code string
	component       Component
}

// foldRun is the current run of one volume: its key, how many events it
// has had, and once folding has begun, the event (and metadata) it folds
// into, with the metadata of the first folded occurrence.
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

// fold folds ev into its volume's run when it repeats it past foldKeep,
// and reports whether it did (the caller stores ev otherwise). Any other
// event of the volume ends its run.
func (st *inputState) fold(ev *Event, m evMeta, text string) bool {
	vol := volumeOf(ev)
	if vol == "" {
		return false
	}
	if !foldKinds[ev.Kind] || ev.Origin != 0 || ev.Count > 1 {
		delete(st.folds, vol)
		return false
	}
	k := foldKey{ev.Kind, ev.Node, ev.Pod, ev.Code, ev.Component}
	r := st.folds[vol]
	if r == nil || r.key != k {
		if st.folds == nil {
			st.folds = map[string]*foldRun{}
		}
		st.folds[vol] = &foldRun{key: k, n: 1}
		return false
	}
	r.n++
	if r.n <= foldKeep || r.into == nil {
		return false // verbatim, or the event to fold into (set by stored)
	}
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
	return true
}

// stored is told where addEvent put an event that fold did not take: the
// event after foldKeep verbatim ones of a run is the one the rest fold into.
func (st *inputState) stored(ev *Event, m *evMeta, index int) {
	r := st.folds[volumeOf(ev)]
	if r == nil || r.n != foldKeep+1 || r.into != nil {
		return
	}
	r.into, r.meta, r.index = ev, m, index
	st.foldSpans = append(st.foldSpans, foldSpan{index: index, first: *m})
}

// unfold forgets where runs fold into (reserve moves the events).
func (st *inputState) unfold() {
	for vol, r := range st.folds {
		if r.into != nil {
			delete(st.folds, vol) // a new run starts; the folded event stays as it is
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
