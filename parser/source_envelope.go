package parser

import (
	"bufio"
	"io"
	"time"
)

// This file is the seam for document and JSON-lines envelopes: inputs that
// are not lines of log text but records wrapped in JSON (a JSON array or an
// object with "tables", "events", "hits" or "data.result", pretty-printed
// over many lines; cloud log exports; one JSON record per line). An
// envelope turns the input into records; each record's message text goes
// through the same payload parsers as a physical line (klog text with its
// header, klog JSON, describe rows, logrus), so nothing downstream knows
// the envelope.
//
// Plugging one in is one file, envelope_<name>.go, that registers it:
//
//	func init() {
//		registerEnvelope(&envelope{
//			name:  "json-document",                   // Input.Wrapper
//			sniff: func(head []byte) bool { … },      // the decompressed input's first bytes
//			decode: func(r io.Reader, yield func(envRecord) bool) error {
//				// decode r (e.g. with package parser/envelope) and yield
//				// each record in input order; stop when yield is false
//			},
//		})
//	}
//
// The source stage (readWith) asks the registered envelopes, in
// registration order, about the first sniffBufSize bytes after
// decompression; the first that claims the input reads all of it (the
// block pipeline and the line wrappers are not used). Sniffs must be
// exclusive: a klog JSON line ({"ts":…) or a docker record ({"log":…) is
// not an envelope.

// envRecord is one record an envelope yields.
type envRecord struct {
	Time   time.Time         // the record's instant (with its zone); zero when none
	Text   string            // the message text; may still carry a klog header
	Level  byte              // 'I','W','E','F' or 0
	File   string            // caller basename when the envelope has it
	Line   int               // the record's first line in the input (1-based), 0 when unknown
	Labels map[string]string // component, pod, node, host, stream …
	ID     string            // the record's id in its store, if any
}

// envelope is a registered document or line envelope.
type envelope struct {
	name   string
	sniff  func(head []byte) bool
	decode func(r io.Reader, yield func(envRecord) bool) error
}

// envelopes is the registry, in registration order.
var envelopes []*envelope

// registerEnvelope adds e to the registry (from an init function).
func registerEnvelope(e *envelope) { envelopes = append(envelopes, e) }

// sniffEnvelope returns the envelope that claims the input br starts, or
// nil.
func sniffEnvelope(br *bufio.Reader) *envelope {
	if len(envelopes) == 0 {
		return nil
	}
	head, _ := br.Peek(sniffBufSize)
	for _, e := range envelopes {
		if e.sniff(head) {
			return e
		}
	}
	return nil
}

// records reads the input r through the envelope e: each record is one
// logical line of the input, handed to payload as a line without wrapper;
// its time and host are clock and host evidence.
func (sc *scanner) records(e *envelope, r io.Reader) {
	st := sc.st
	cr := &countingReader{r: r, progress: func(n int64) { st.seen += n }}
	err := e.decode(cr, func(rec envRecord) bool {
		st.in.Lines++
		st.wrapVotes[wrapNone]++
		line := rec.Line
		if line == 0 {
			line = st.in.Lines
		}
		if h := rec.Labels["host"]; h != "" && st.host == "" {
			st.host = h
		}
		sc.payload([]byte(rec.Text), unwrapped{}, line, 1)
		if !rec.Time.IsZero() && sc.ent.kind != entNone {
			ent := &sc.ent
			if ent.hasWall {
				if y, off, ok := matchWall(ent.w, rec.Time); ok {
					st.evid = append(st.evid, evidence{from: FromWrapper, year: y - ent.yoff, off: off, hasOff: true, hasYear: true})
				}
			} else if ent.abs.IsZero() {
				ent.abs = rec.Time
				st.trackAbs(rec.Time)
			}
		}
		sc.close()
		return true
	})
	sc.close()
	st.in.Bytes = st.seen
	st.envelope = e.name
	if err != nil {
		st.in.Truncated = true
		st.problem(st.in.Lines, "%s: %v; the records read are kept", e.name, err)
	}
	if st.in.Lines == 0 && err == nil {
		st.problem(0, "empty input")
	}
}
