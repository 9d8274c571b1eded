package parser

import (
	"bufio"
	"io"
	"slices"
	"sync/atomic"
	"time"
)

// This file is the seam for document and JSON-lines envelopes: inputs that
// are not lines of log text but records wrapped in an export format (a JSON
// array or an object with "tables", "events", "hits" or "data.result",
// pretty-printed over many lines; cloud log exports; one JSON record per
// line; the text forms of some export tools). An envelope turns the input
// into records; each record's message text goes through the same payload
// parsers as a physical line (klog text with its header, klog JSON,
// describe rows, logrus), so nothing downstream knows the envelope.
//
// The envelopes themselves are package parser/envelope's, plugged in by
// source_envelopes.go; a registered envelope is
//
//	registerEnvelope(&envelope{
//		names:  []string{"gcp", …},                  // --input-format names it decodes
//		sniff:  func(head []byte) (string, string) { … }, // the name it claims, or a "looks like" hint
//		decode: func(name string, r io.Reader, skim func([]byte) bool, yield func(*envRecord) bool) (envStats, error) { … },
//	})
//
// The source stage (readWith) asks the registered envelopes, in
// registration order, about the first sniffBufSize bytes after
// decompression unless Options.Format forces a line format; the first that
// claims the input reads all of it (the block pipeline and the line
// wrappers are not used). An Options.Format that one of them names forces
// it. Sniffs must be exclusive: a klog JSON line ({"ts":…) or a docker
// record ({"log":…) is not an envelope.
//
// Time: a record's time gives the year and zone the klog header in its
// text lacks (evidence FromEnvelope, compared with the header clock like a
// wrapper's); the header stays the event's clock (it has µs where most
// exports have ms or s). A record whose text has no header clock is dated
// by the record's time. A time of unknown zone (YearOnly) gives the year
// only and dates a header-less record as a wall clock.
//
// Accounting: every physical line of the input is counted (Input.Lines is
// envStats.Lines). A record counts as the one line it starts on; records
// that start on a line an earlier record started on (a whole document on
// one line) count as none; every other line (document framing, the other
// lines of pretty-printed or multi-line records, lines of duplicate
// records, lines that are no record) is skipped as SkipEnvelope. So
// Lines == EventLines + Irrelevant + sum(Skipped) still holds.

// envRecord is one record an envelope yields.
type envRecord struct {
	Time     time.Time // the record's instant (with its zone); zero when none
	YearOnly bool      // Time is a wall clock of an unknown zone: good for the year only
	Text     string    // the message text; may still carry a klog header
	Level    byte      // 'I','W','E','F' or 0
	File     string    // caller basename when the envelope gives it apart from Text
	FileLine int       // the caller's line, with File
	Line     int       // the record's first line in the input (1-based), 0 when unknown
	Role     string    // kcm, kubelet, csi from the record's labels; "" when they do not say
	Node     string    // the node that wrote the record (its labels), "" when unknown
	// Skimmed: the envelope passed the record on without decoding its
	// message, which holds no prefilter token; Text is only its start,
	// which the skim function of decode accepted (a klog header).
	Skimmed bool
	// Host is the host name (journald _HOSTNAME): the input's host, for
	// sharing a clock with other inputs, but not its node: a kubelet's node
	// name need not be its host name (the seeds' kubelet on vm-3-27-centos
	// is node 10.0.3.27).
	Host string
	// Event is set when the record is a Kubernetes Event (Text is then
	// its message): it is read as an event table row.
	Event *envEvent
}

// envEvent is what a Kubernetes Event record says besides its message.
type envEvent struct {
	Reason, Type string
	Count        int
	Source       string // the reporting component (kubelet, attachdetach-controller)
	Pod          string // "ns/name" of the involved pod, "" when not a pod
}

// envStats is what an envelope says about the whole input once decoded.
type envStats struct {
	Lines      int       // physical lines read
	Records    int       // records yielded
	NoTime     int       // records yielded without a usable time
	Duplicates int       // records dropped as duplicates of earlier ones
	Problems   []Problem // with their lines
	Cut        bool      // the export ends inside a record (envelope.Stats.Cut)
}

// envelope is a registered family of document or line envelopes.
type envelope struct {
	names []string
	// sniff returns the name of the envelope the input that starts with
	// head is in, or "" and, when something partly fits, a hint for the
	// "looks like …" problem.
	sniff func(head []byte) (name, hint string)
	// decode reads the input. skim, when not nil, is asked about the start
	// of each record message that holds no prefilter token; a record it
	// accepts may come Skimmed.
	decode func(name string, r io.Reader, skim func(head []byte) bool, yield func(*envRecord) bool) (envStats, error)
}

// envelopeSkim lets envelopes pass token-free records on undecoded (tests
// turn it off to compare); skimmedRecords counts the records skimmed, for
// tests.
var (
	envelopeSkim   = true
	skimmedRecords atomic.Int64
)

// envelopes is the registry, in registration order.
var envelopes []*envelope

// registerEnvelope adds e to the registry (from an init function).
func registerEnvelope(e *envelope) { envelopes = append(envelopes, e) }

// forcedEnvelope returns the envelope Options.Format names, if any.
func forcedEnvelope(format string) *envelope {
	for _, e := range envelopes {
		if slices.Contains(e.names, format) {
			return e
		}
	}
	return nil
}

// sniffEnvelope returns the envelope that claims the input br starts, and
// the name it gives it; otherwise nil and the hints of those that partly
// fit.
func sniffEnvelope(br *bufio.Reader) (e *envelope, name, hint string) {
	if len(envelopes) == 0 {
		return nil, "", ""
	}
	head, _ := br.Peek(sniffBufSize)
	for _, e := range envelopes {
		n, h := e.sniff(head)
		if n != "" {
			return e, n, ""
		}
		if hint == "" {
			hint = h
		}
	}
	return nil, "", hint
}

// records reads the input r through the envelope e as the format name:
// each record is one logical line of the input, handed to payload as a
// line without wrapper; its time is clock evidence, its labels name the
// input's component and the node of kubelet events.
func (sc *scanner) records(e *envelope, name string, r io.Reader) {
	st := sc.st
	st.envelope = name
	cr := &countingReader{r: r, progress: func(n int64) { st.seen += n }}
	lastLine, started := 0, 0
	roles := map[string]int{}
	var skim func([]byte) bool
	var skimW wall
	skims := int64(0)
	defer func() { skimmedRecords.Add(skims) }()
	if envelopeSkim && !sc.opt.noPrefilter {
		// A record of one klog line without a token is irrelevant: all it
		// gives is its clock (and its labels, which every record gives),
		// once the first entries have voted on year and zone (envTime).
		skim = func(head []byte) bool {
			if sc.entries < evidenceEntries {
				return false
			}
			h, ok := parseKlogHeader(head)
			skimW = h.w
			return ok && !h.badTime
		}
	}
	stats, err := e.decode(name, cr, skim, func(rec *envRecord) bool {
		nlines := 0
		if rec.Line > lastLine {
			nlines, lastLine = 1, rec.Line
			started++
		}
		st.in.Lines = max(st.in.Lines, rec.Line)
		line := max(rec.Line, 1)
		if rec.Host != "" && st.host == "" {
			st.host = rec.Host
		}
		if rec.Role == "" {
			rec.Role = st.role // a fetched stream's role, when its labels name none
		}
		if rec.Role != "" {
			roles[rec.Role]++
		}
		if rec.Skimmed {
			sc.skimmed(skimW, nlines)
			skims++
			return true
		}
		sc.record(rec, line, nlines)
		return true
	})
	st.in.Lines = max(st.in.Lines, stats.Lines, lastLine)
	if n := st.in.Lines - started; n > 0 {
		st.in.Skipped[SkipEnvelope] += n
	}
	st.in.Bytes = st.seen
	st.in.Records, st.in.NoTime, st.in.Duplicates = stats.Records, stats.NoTime, stats.Duplicates
	st.envRole = majority(roles, "")
	for _, p := range stats.Problems {
		st.problem(p.Line, "%s", p.Message)
	}
	st.in.Truncated = st.in.Truncated || stats.Cut // read in part: exit 3
	if err != nil {
		st.in.Truncated = true
		st.problem(st.in.Lines, "%s: %v; the records read are kept", name, err)
	}
	if st.in.Lines == 0 && err == nil {
		st.problem(0, "empty input")
	}
}

// record handles one record: its text as a logical line of nlines physical
// lines (0 or 1) at line, dated by the record where its text is not.
func (sc *scanner) record(rec *envRecord, line, nlines int) {
	text := rec.Text
	if rec.Level != 0 && rec.File != "" && !rec.Time.IsZero() {
		if _, ok := parseKlogHeader([]byte(text)); !ok {
			// the envelope split the klog header off (GKE control plane):
			// put it back, in UTC, for the payload parser
			text = klogHeaderText(rec.Level, rec.Time.UTC(), rec.File, rec.FileLine) + text
		}
	}
	if ev := rec.Event; ev != nil {
		// a Kubernetes Event: a table row of its reason and message
		from := ev.Source
		if rec.Node != "" && from == "kubelet" {
			from += ", " + rec.Node
		}
		sc.close()
		sc.open(entRow, []byte(text), unwrapped{}, line, nlines)
		r := tableRowParse{layout: tableBare, row: tableRow{Type: ev.Type, Reason: ev.Reason, From: from, Message: text, Count: ev.Count}, node: rec.Node}
		if ev.Pod != "" {
			r.object = "pod/" + ev.Pod
		}
		sc.ent.rows = []tableRowParse{r}
	} else {
		sc.envText = true
		sc.payload([]byte(text), unwrapped{}, line, nlines)
		sc.envText = false
	}
	ent := &sc.ent
	if ent.kind != entNone {
		ent.role, ent.node = rec.Role, rec.Node
		if !rec.Time.IsZero() {
			sc.envTime(ent, rec)
		}
	}
	sc.close()
}

// skimmed accounts for a skimmed record whose klog header reads w, as
// record would for its whole text: a klog entry, irrelevant, whose clock
// is tracked.
func (sc *scanner) skimmed(w wall, nlines int) {
	sc.close()
	sc.entries++
	sc.trackWall(w)
	sc.st.formatVotes[fmtKlog]++
	sc.st.in.Irrelevant += nlines
}

// envTime gives the open entry the record's time: evidence of the year
// and zone for a header clock, else the entry's own time.
func (sc *scanner) envTime(ent *entry, rec *envRecord) {
	st := sc.st
	switch {
	case ent.hasWall:
		if sc.entries > evidenceEntries && !ent.relevant {
			return // as for wrapper clocks: the first entries and the relevant ones vote
		}
		if y, off, ok := matchWall(ent.w, rec.Time); ok {
			ev := evidence{from: FromEnvelope, year: y - ent.yoff, off: off, hasOff: !rec.YearOnly, hasYear: true}
			st.addEvidence(ev)
		}
	case !ent.abs.IsZero():
		// the text's own absolute time (klog JSON "ts") stands
	case rec.YearOnly:
		t := rec.Time
		ent.w = wall{mon: int(t.Month()), day: t.Day(), hour: t.Hour(), min: t.Minute(), sec: t.Second(), nsec: t.Nanosecond()}
		ent.hasWall = true
		ent.yoff = sc.trackWall(ent.w)
		st.addEvidence(evidence{from: FromEnvelope, year: t.Year() - ent.yoff, hasYear: true})
	default:
		ent.abs = rec.Time
		st.trackAbs(rec.Time)
	}
}

// klogHeaderText renders a klog header "I0812 03:10:00.612388       0
// file.go:304] " for the parts an envelope split off (the thread id is
// not known: 0).
func klogHeaderText(level byte, t time.Time, file string, line int) string {
	b := make([]byte, 0, 48+len(file))
	b = append(b, level)
	b = appendDigits(b, int(t.Month()), 2)
	b = appendDigits(b, t.Day(), 2)
	b = append(b, ' ')
	b = appendDigits(b, t.Hour(), 2)
	b = append(b, ':')
	b = appendDigits(b, t.Minute(), 2)
	b = append(b, ':')
	b = appendDigits(b, t.Second(), 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/1000, 6)
	b = append(b, "       0 "...)
	b = append(b, file...)
	b = append(b, ':')
	b = appendDigits(b, line, 1)
	b = append(b, "] "...)
	return string(b)
}

// appendDigits appends v in decimal, zero-padded to width digits.
func appendDigits(b []byte, v, width int) []byte {
	var d [20]byte
	i := len(d)
	for v > 0 || i == len(d) {
		i--
		d[i] = byte('0' + v%10)
		v /= 10
	}
	for len(d)-i < width {
		i--
		d[i] = '0'
	}
	return append(b, d[i:]...)
}
