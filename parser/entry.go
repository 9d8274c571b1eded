package parser

import (
	"bytes"
	"time"
)

// This file owns the entry being assembled: the payload formats an entry can
// have, opening one, attaching continuation lines, and closing it (counting
// it and turning a relevant one into events).

// entryKind is the payload format of an entry.
type entryKind uint8

const (
	fmtKlog = iota
	fmtJSON
	fmtDescribe
	fmtGetEvents
	fmtText
	numFormats
)

var formatNames = [numFormats]string{fmtKlog: "klog-text", fmtJSON: "klog-json", fmtDescribe: "describe", fmtGetEvents: "get-events", fmtText: "text"}

var entryFormat = [...]int{entKlog: fmtKlog, entJSON: fmtJSON, entRow: fmtDescribe, entOther: fmtText}

// entry is the log entry being assembled: its first physical line and the
// header-less lines that follow it.
type entry struct {
	kind     entryKind
	line     int // first physical line
	nlines   int
	buf      []byte // payload text, lines joined with "\n"
	full     bool   // buf reached maxEntryBytes; later lines are counted only
	relevant bool
	w        wall
	yoff     int
	hasWall  bool
	badTime  bool
	wk       wrapKind
	wts      []byte // wrapper timestamp text (copied)
	abs      time.Time
	rows     []tableRowParse
	spec     *spec      // klogEmit's result computed ahead for this entry, if any
	res      emitResult // the entry's result when not decoded ahead (result)
	role     string     // the envelope record's component (source_envelope.go), "" for lines
	node     string     // the envelope record's node, "" for lines
}

// open starts a new entry with its first logical line.
func (sc *scanner) open(k entryKind, p []byte, u unwrapped, line, nlines int) {
	e := &sc.ent
	e.kind, e.line, e.nlines = k, line, nlines
	e.buf = append(e.buf[:0], p[:min(len(p), maxEntryBytes)]...)
	e.full = len(p) > maxEntryBytes
	e.w, e.yoff, e.hasWall, e.badTime = wall{}, sc.yoff, false, false
	e.wk = u.kind
	e.wts = append(e.wts[:0], u.ts...)
	e.abs = time.Time{}
	e.rows = nil
	e.spec = nil
	e.role, e.node = "", ""
	if (k == entKlog || k == entJSON) && sc.lineOff >= 0 {
		for sc.specAt < len(sc.specs) && sc.specs[sc.specAt].off < sc.lineOff {
			sc.specAt++
		}
		if sc.specAt < len(sc.specs) && sc.specs[sc.specAt].off == sc.lineOff && sc.specs[sc.specAt].json == (k == entJSON) {
			e.spec = &sc.specs[sc.specAt]
			sc.specAt++ // used at most once
		}
	}
	switch s := e.spec; {
	case sc.opt.noPrefilter:
		e.relevant = true
	case s != nil && len(p) == s.len0 && bytes.Equal(p, s.buf[:s.len0]):
		e.relevant = s.rel0 // the spec's first line is this line
	default:
		e.relevant = mayMatter(p)
	}
	sc.entries++
}

// cont attaches a header-less line to the open entry. k is the wrapper the
// line came in: inside a k9s box a row's message is soft-wrapped at the box
// edge with the blank at the start of the next row, and a newline of the
// message starts its row with no blank (real-logs/063), the reverse of a
// terminal's hard wrap of a plain paste.
func (sc *scanner) cont(p []byte, nlines int, k wrapKind) {
	e := &sc.ent
	e.nlines += nlines
	if !e.relevant && mayMatter(p) {
		e.relevant = true
	}
	if e.full || len(e.buf)+len(p)+1 > maxEntryBytes {
		e.full = true
		return
	}
	e.buf = append(e.buf, '\n')
	e.buf = append(e.buf, p...)
	if e.kind == entRow && len(e.rows) > 0 {
		r := &e.rows[len(e.rows)-1]
		if !r.wrapped {
			r.more = append(r.more[:0], r.row.Message...)
			r.wrapped = true
		}
		blank := len(p) > 0 && (p[0] == ' ' || p[0] == '\t')
		switch {
		case k == wrapK9s && blank:
			// soft-wrapped at the box edge: glue, keeping the blank
		case k == wrapK9s:
			r.more = append(r.more, '\n')
		case !blank:
			// a terminal hard-wrapped the row inside a token (real-logs/019): glue
		default:
			r.more = append(r.more, '\n')
		}
		r.more = append(r.more, bytes.TrimRight(p, " \t")...)
		r.more = bytes.TrimRight(r.more, " \t")
	}
}

// close finishes the open entry: counts it and, when relevant, turns it into
// records and events.
func (sc *scanner) close() {
	e := &sc.ent
	if e.kind == entNone {
		return
	}
	st := sc.st
	kind := e.kind
	e.kind = entNone
	if kind == entRow {
		if e.rows[0].layout == tableGetEvents {
			st.formatVotes[fmtGetEvents]++
		} else {
			st.formatVotes[fmtDescribe]++
		}
	} else {
		st.formatVotes[entryFormat[kind]]++
	}
	if e.relevant && (kind == entKlog || kind == entJSON) && e.plumbing(kind == entJSON) {
		e.relevant = false
	}
	// wrapper clock evidence from the first entries and from every relevant one
	if e.hasWall && len(e.wts) > 0 && (sc.entries <= evidenceEntries || e.relevant) {
		sc.wrapperEvidence(e)
	}
	if !e.relevant {
		st.in.Irrelevant += e.nlines
		return
	}
	st.in.Relevant++
	produced := 0
	switch kind {
	case entRow:
		for i := range e.rows {
			if sc.emitRow(e, &e.rows[i]) {
				produced++
			}
		}
	case entKlog:
		if sc.emitKlog(e) {
			produced++
		}
	case entJSON:
		if sc.emitJSON(e) {
			produced++
		}
	default:
		if sc.emit(e, kind) {
			produced++
		}
	}
	if produced > 0 {
		st.in.EventLines += e.nlines
	} else {
		st.in.Irrelevant += e.nlines
	}
}

// evidenceEntries is how many entries from the start of an input compare
// their wrapper clock with the klog clock even when irrelevant.
const evidenceEntries = 16

// wrapperEvidence compares the klog header clock with the wrapper's clock.
func (sc *scanner) wrapperEvidence(e *entry) {
	wt, ok := parseWrapTime(e.wk, e.wts)
	if !ok {
		return
	}
	switch {
	case !wt.abs.IsZero():
		if y, off, ok := matchWall(e.w, wt.abs); ok {
			sc.st.addEvidence(evidence{from: FromWrapper, year: y - e.yoff, off: off, hasOff: true, hasYear: true})
		}
	case wt.year != 0:
		sc.st.addEvidence(evidence{from: FromWrapper, year: wt.year - e.yoff, hasYear: true})
	}
}

const (
	entNone  entryKind = iota
	entKlog            // klog/glog text header + message, continuation lines attached
	entJSON            // one --logging-format=json object
	entRow             // describe / get-events row(s), wrapped continuation lines attached
	entOther           // logrus "time=… level=… msg=…" or other text carried by a dated wrapper
)
