package parser

import (
	"bytes"
	"slices"
	"time"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// This file owns the step from a closed entry to an event: the result of
// decoding and classifying an entry's text (emitResult), guarded against
// panics, and the envelope fields every event gets.

// emitResult is everything emit derives from the text of one entry alone
// (decoding, classification, text cleanup, the retry deadline). It is a pure
// function of the entry's bytes (klogEmit, jsonEmit), so the analysis
// goroutines compute it ahead for entries that lie within their block
// (spec); the scanner uses it when the entry it closes has exactly those
// bytes.
type emitResult struct {
	ev Draft
	ok bool
	// plumbing: the entry is informer plumbing (fromInformerPlumbing,
	// jsonFromInformerPlumbing), found while decoding it
	plumbing bool
	err      error // the entry could not be decoded (JSON)
	panicV   any   // classify panicked with this value
	// text is the entry's text, a view of the entry's bytes when the
	// event's names may be windows of it (klog, JSON): addEvent copies
	// what the event keeps
	text    string
	until   time.Time // retry deadline, for year/zone evidence (klog)
	backoff time.Duration
	okU     bool
	// prep is prepareOwn(&ev, text), when prepared (decoded ahead: the
	// worker prepares what it keeps)
	prep     ownPrep
	prepared bool
}

// prepare prepares the result's event for filing (prepareOwn).
func (r *emitResult) prepare() {
	if r.ok {
		r.prep, r.prepared = prepareOwn(&r.ev, r.text), true
	}
}

// prepFor is the result's preparation for d, its event as filed, with the
// result's text: nil when there is none, or when d's names are not the
// ones prepared (finishEvent may set the node).
func (r *emitResult) prepFor(d *Draft) *ownPrep {
	if !r.prepared || d.Ident() != r.ev.Ident() || d.Place() != r.ev.Place() || d.Cause() != r.ev.Cause() ||
		d.Retry != r.ev.Retry {
		return nil
	}
	return &r.prep
}

// worthKeeping reports whether a result computed ahead must be kept: an
// event, a decoding error or a panic (each needs the scanner's attention).
func (r *emitResult) worthKeeping() bool { return r.ok || r.err != nil || r.panicV != nil }

// classifySafe runs classify, turning a panic into a problem.
func (sc *scanner) classifySafe(rec *record, line int) (Draft, bool) {
	ev, ok, panicV := classifyGuarded(rec)
	if panicV != nil {
		sc.st.problem(line, "internal error classifying entry: %v", panicV)
	}
	return ev, ok
}

// classifyGuarded runs classify; a panic comes back as panicV (and no event)
// so that one bad line cannot stop the input.
func classifyGuarded(rec *record) (ev Draft, ok bool, panicV any) {
	defer func() {
		if p := recover(); p != nil {
			ev, ok, panicV = Draft{}, false, p
		}
	}()
	if classifyFn != nil {
		ev, ok = classifyFn(*rec)
	} else {
		ev, ok = classifier.Classify(rec)
	}
	return ev, ok, nil
}

// classifyPairsGuarded is classifyGuarded for a record without Rest or
// Table whose pairs are kvs, not rec.KV (classifier.ClassifyPairs): kvs may
// lie on the caller's stack (jsonEmitIn).
func classifyPairsGuarded(rec *record, kvs []kv) (ev Draft, ok bool, panicV any) {
	defer func() {
		if p := recover(); p != nil {
			ev, ok, panicV = Draft{}, false, p
		}
	}()
	if classifyFn != nil {
		c := *rec
		c.KV = slices.Clone(kvs) // kvs itself must not escape
		ev, ok = classifyFn(c)
	} else {
		ev, ok = classifier.ClassifyPairs(rec.File, rec.Msg, kvs)
	}
	return ev, ok, nil
}

// classifyFn, when not nil, replaces classifier.Classify (tests of the
// envelope side swap in a fake). It takes the record by value, a pointer
// passed to a function variable escaping; classifier.Classify is called
// directly, its record on the caller's stack.
var classifyFn func(rec record) (Draft, bool)

// ownSpec returns the entry's spec when it was built from exactly this
// entry's bytes (its results then stand for the entry's), else nil.
func (e *entry) ownSpec() *spec {
	if s := e.spec; s != nil && !e.full && bytes.Equal(s.buf, e.buf) {
		return s
	}
	return nil
}

// plumbing is fromPlumbing(json, e.buf): taken from the entry's own spec
// (its header is then not parsed again), else found now.
func (e *entry) plumbing(json bool) bool {
	if s := e.ownSpec(); s != nil {
		return s.plumbing
	}
	return fromPlumbing(json, e.buf)
}

// result is the entry's emit result: the one decoded ahead, or emit's
// (held in the entry until the next). It points at it rather than copying
// it (a result is a few hundred bytes, and most results filed were decoded
// ahead).
func (e *entry) result(emit func([]byte) emitResult) (r *emitResult, event bool) {
	if s := e.ownSpec(); s != nil {
		if s.res == nil {
			return nil, false // decoded ahead: not an event
		}
		return s.res, true
	}
	e.res = emit(e.buf)
	return &e.res, true
}

// failed reports a result that is no event, recording why when the scanner
// must say so (a decoding error, a panic).
func (sc *scanner) failed(r *emitResult, line int) bool {
	switch {
	case r.err != nil:
		sc.st.problem(line, "bad JSON log line: %v", r.err)
	case r.panicV != nil:
		sc.st.problem(line, "internal error classifying entry: %v", r.panicV)
	}
	return r.err != nil || r.panicV != nil || !r.ok
}

// emit turns an other entry into at most one event.
func (sc *scanner) emit(e *entry, kind entryKind) bool {
	st := sc.st
	var rec record
	var m evMeta
	switch kind {
	case entOther:
		rec.Rest = sanitizeText(e.buf)
		if bytes.HasPrefix(e.buf, []byte(`time="`)) {
			rec.Level, rec.Msg = logrusFields(e.buf)
		}
		m.setAbs(e.abs)
		if !m.hasAbs && e.hasWall {
			// an envelope's time of unknown zone (source_envelope.go)
			m.setWall(e.w, e.yoff)
		} else if !m.hasAbs {
			if wt, ok := parseWrapTime(e.wk, e.wts); ok {
				if !wt.abs.IsZero() {
					m.setAbs(wt.abs)
				} else {
					m.setWall(wt.w, e.yoff)
				}
			}
		}
	}
	ev, ok := sc.classifySafe(&rec, e.line)
	if !ok {
		return false
	}
	if ev.Level == 0 {
		ev.Level = rec.Level
	}
	if ev.PID == 0 {
		ev.PID = Int32(rec.PID)
	}
	sc.finishEvent(&ev, e)
	st.addEvent(&ev, m, sanitizeText(e.buf))
	return true
}

// finishEvent fills the envelope fields of an event.
func (sc *scanner) finishEvent(ev *Draft, e *entry) {
	ev.Source = Source{File: sc.st.pathID(), Line: Int32(e.line), Input: Int32(sc.st.index)}
	// an envelope's labels (source_envelope.go) say who wrote the record
	// before its content does
	if e.role != "" && ev.Component == 0 {
		ev.Component = ComponentOf(e.role)
	}
	if e.node != "" && e.role == ComponentKubelet.String() {
		ev.Node = e.node
	}
}
