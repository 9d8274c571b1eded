package envelope

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
)

// SampleSize is how much of an input's start Detect and Decode look at to
// choose an envelope and one of its shapes.
const SampleSize = 64 << 10

// Envelope is one export format family: a name (what --input-format takes)
// and the shapes it comes in (a JSON document, JSON Lines, a text form…).
type Envelope struct {
	Name   string
	Doc    string // one line: where the format comes from
	shapes []shape
}

// shape is one concrete form of an envelope.
type shape struct {
	name string
	// score rates the sample from 0 (not this shape) to 100 (certainly it).
	score func(s *sample) int
	// decode reads the whole input (the sample is its start).
	decode func(d *decoder, br *bufio.Reader) error
}

// envelopes is the registry, in the order Names lists them. Adding an
// envelope is one file defining its *Envelope plus an entry here.
var envelopes = []*Envelope{
	gcpEnvelope,
	cloudwatchEnvelope,
	azureEnvelope,
	lokiEnvelope,
	elasticsearchEnvelope,
	victorialogsEnvelope,
	journaldJSONEnvelope,
	journaldExportEnvelope,
	eventExporterEnvelope,
}

// Names lists the envelope names, for --input-format and its help text.
func Names() []string {
	out := make([]string, len(envelopes))
	for i, e := range envelopes {
		out[i] = e.Name
	}
	return out
}

// Lookup returns the envelope called name.
func Lookup(name string) (*Envelope, bool) {
	for _, e := range envelopes {
		if e.Name == name {
			return e, true
		}
	}
	return nil, false
}

// Shapes lists the names of an envelope's shapes.
func (e *Envelope) Shapes() []string {
	out := make([]string, len(e.shapes))
	for i, s := range e.shapes {
		out[i] = s.name
	}
	return out
}

// MinScore is the score below which Detect reports no envelope.
const MinScore = 50

// Detect scores sample (the input's first SampleSize bytes) against every
// envelope's shapes and returns the best envelope with its score (0..100),
// or "" and 0 when none reaches MinScore. Ties go to the envelope listed
// first in Names.
func Detect(sample []byte) (name string, score int) {
	s := newSample(sample)
	for _, e := range envelopes {
		if _, sc := e.best(s); sc > score {
			name, score = e.Name, sc
		}
	}
	if score < MinScore {
		return "", 0
	}
	return name, score
}

// Scores returns every envelope's score for sample, best first (for
// diagnostics: "looks like cloudwatch 40, loki 10").
func Scores(sample []byte) []Score {
	s := newSample(sample)
	var out []Score
	for _, e := range envelopes {
		if sh, sc := e.best(s); sc > 0 {
			out = append(out, Score{Envelope: e.Name, Shape: sh.name, Score: sc})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// Score is one envelope's rating of a sample.
type Score struct {
	Envelope string
	Shape    string
	Score    int
}

// best returns the envelope's best-scoring shape for s.
func (e *Envelope) best(s *sample) (shape, int) {
	best, score := e.shapes[0], 0
	for _, sh := range e.shapes {
		if sc := sh.score(s); sc > score {
			best, score = sh, sc
		}
	}
	return best, score
}

// ErrUnknownEnvelope is returned by Decode for a name Names does not list.
var ErrUnknownEnvelope = errors.New("unknown input format")

// Decode reads r as the envelope called name and calls yield for every
// record, in input order (which is never assumed to be time order: the
// caller sorts). The envelope's shape is chosen from the input's start;
// when no shape scores, the envelope's first shape is tried. Problems with
// the input (a truncated document, a line that is not JSON, a record
// without time…) are counted in Stats and decoding goes on where it can;
// the error is for reading r, for an unknown name, or what yield returned
// (which stops decoding).
func Decode(name string, r io.Reader, yield func(Record) error) (Stats, error) {
	return DecodeWith(name, r, Options{}, yield)
}

// DecodeWith is Decode with options.
func DecodeWith(name string, r io.Reader, opt Options, yield func(Record) error) (Stats, error) {
	e, ok := Lookup(name)
	if !ok {
		return Stats{}, fmt.Errorf("%w %q (known: %v)", ErrUnknownEnvelope, name, Names())
	}
	return e.DecodeWith(r, opt, yield)
}

// Decode is the package-level Decode for this envelope.
func (e *Envelope) Decode(r io.Reader, yield func(Record) error) (Stats, error) {
	return e.DecodeWith(r, Options{}, yield)
}

// DecodeWith is the package-level DecodeWith for this envelope.
func (e *Envelope) DecodeWith(r io.Reader, opt Options, yield func(Record) error) (Stats, error) {
	br := bufio.NewReaderSize(r, SampleSize)
	head, err := br.Peek(SampleSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return Stats{Envelope: e.Name}, err
	}
	sh, _ := e.best(newSample(head))
	d := &decoder{yield: yield, opt: opt}
	if opt.Prefilter == nil || opt.Skim == nil {
		d.opt = Options{}
	}
	d.st.Envelope, d.st.Shape = e.Name, sh.name
	err = sh.decode(d, br)
	if errors.Is(err, errStop) {
		err = d.stopErr
	}
	d.finish()
	return d.st, err
}
