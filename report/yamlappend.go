package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	json "github.com/goccy/go-json"
	"github.com/kcmtrace/kcmtrace/parser"
)

// This file writes YAML by hand where the converter (yaml.go) would read
// back JSON the appenders (jsonappend.go) just wrote: a jsonObject whose
// yaml is set lays its fields out as the encoder writes them in a
// document (block style, a nested object two columns in), its strings
// written by the fast emitter's rules (scalarText: plain, a quoted time,
// or the encoder's text of that string, remembered). The output is byte
// for byte the converter's (TestEventYAMLMatchesConverter,
// FuzzEventYAML). What a YAML jsonObject cannot write (a list, a key from
// data), or a string the encoder fails on, marks the writer failed: the
// value is then converted from its JSON instead.

// yamlKey starts a field: the pending line break of a nested object, the
// indentation (none for an item's first field), the key as the encoder
// writes it, and ":".
func (o *jsonObject) yamlKey(b []byte, k string) []byte {
	if o.yamlOpen {
		b = append(b, '\n')
		o.yamlOpen = false
	}
	if !o.inline || o.fields > 0 {
		b = appendSpaces(b, o.col)
	}
	o.fields++
	kt, ok := o.yaml.keyText(k)
	if !ok {
		o.yaml.failed = true
		return b
	}
	b = append(b, kt...)
	return append(b, ':')
}

// yamlMapKey is yamlKey for a key from data (keyText writes any key it
// can as the encoder would; one it cannot fails the writer).
func (o *jsonObject) yamlMapKey(b []byte, k string) []byte {
	if !utf8.ValidString(k) {
		k = readBack(k)
	}
	return o.yamlKey(b, k)
}

// yamlNested lays out the object that is the value of the field just
// keyed: two columns in, on the next line.
func (o *jsonObject) yamlNested() jsonObject {
	return jsonObject{yaml: o.yaml, col: o.col + 2, yamlOpen: true}
}

// yamlItem lays out an object that is an item of a sequence whose dashes
// are at column col.
func yamlItem(y *yamlWriter, col int) jsonObject {
	return jsonObject{yaml: y, col: col + 2, inline: true}
}

// yamlClose ends an object: an empty one is "{}".
func (o *jsonObject) yamlClose(b []byte) []byte {
	switch {
	case o.fields > 0:
		return b
	case o.yamlOpen:
		o.yamlOpen = false
		return append(b, " {}\n"...)
	}
	return append(b, "{}\n"...)
}

// yamlStrings writes a list of strings: "[]", or a dash for each, two
// columns in.
func (o *jsonObject) yamlStrings(b []byte, k string, ss []string) []byte {
	b = o.key(b, k)
	if len(ss) == 0 {
		return append(b, " []\n"...)
	}
	b = append(b, '\n')
	for _, s := range ss {
		b = append(appendSpaces(b, o.col+2), '-', ' ')
		b = o.yaml.appendScalarText(b, s, o.col+2)
	}
	return b
}

// yamlObjects writes a list of objects: "[]", or a dash for each, two
// columns in, the object's first field after it.
func (o *jsonObject) yamlObjects(b []byte, k string, n int, elem func(b []byte, i int, oo jsonObject) []byte) []byte {
	b = o.key(b, k)
	if n == 0 {
		return append(b, " []\n"...)
	}
	b = append(b, '\n')
	for i := range n {
		b = append(appendSpaces(b, o.col+2), '-', ' ')
		b = elem(b, i, yamlItem(o.yaml, o.col+2))
	}
	return b
}

// yamlValue writes a field holding v, converted from the encoder's JSON
// of it by the fast emitter (which fails the writer where the encoder
// would have to write it).
func (o *jsonObject) yamlValue(b []byte, k string, v any) ([]byte, error) {
	js, err := appendIndented(nil, v, "")
	if err != nil {
		return b, err
	}
	b = o.key(b, k)
	y := o.yaml
	if err := y.readJSON(js); err != nil {
		return b, err
	}
	y.out.Reset()
	if _, ok := y.mapValue(0, o.col); !ok {
		y.failed = true
		return b, nil
	}
	return append(b, y.out.Bytes()...), nil
}

// yamlUnsupported marks the writer failed: what the YAML object was asked
// for is converted from JSON instead.
func (o *jsonObject) yamlUnsupported(b []byte) []byte {
	o.yaml.failed = true
	return b
}

// appendScalar appends " ", s as the encoder writes it after a key at
// column col, and its line break (a literal block's lines after the
// first indented for that key).
func (y *yamlWriter) appendScalar(b []byte, s string, col int) []byte {
	return y.appendScalarText(append(b, ' '), s, col)
}

// appendScalarText appends s as the encoder writes it after "key: " or
// "- " at column col, and its line break.
func (y *yamlWriter) appendScalarText(b []byte, s string, col int) []byte {
	if !utf8.ValidString(s) {
		s = readBack(s)
	}
	t, ok := y.scalarText(s)
	if !ok {
		y.failed = true
		return b
	}
	b = append(b, t.first...)
	b = append(b, '\n')
	return appendIndentedLines(b, t.more, col)
}

// appendStamp appends the time t as appendScalar appends its text
// (appendTS): mostly a quoted time, which needs no string of its own.
func (y *yamlWriter) appendStamp(b []byte, t time.Time, col int) []byte {
	var room [48]byte
	ts := appendTS(room[:0], t)
	if isStamp(unsafe.String(unsafe.SliceData(ts), len(ts))) { // (isStamp keeps nothing)
		b = append(b, ' ', '"')
		b = append(b, ts...)
		return append(b, '"', '\n')
	}
	return y.appendScalar(b, string(ts), col)
}

// readBack is s as the converter reads it from the JSON the appenders
// write: the encoder replaces invalid UTF-8.
func readBack(s string) string {
	var out string
	if err := json.Unmarshal(appendJSONString(nil, s), &out); err != nil {
		return s
	}
	return out
}

// yamlScalars are the writers whose remembered strings the YAML appenders
// share (one goroutine at a time each).
var yamlScalars = sync.Pool{New: func() any { return newYAMLWriter(nil, nil) }}

// EventsYAML writes one YAML document per event, "---" between them:
// what yamlOf(EventsJSONL) writes, without the JSON in between, on every
// core (a large cluster's day is 100k events).
func EventsYAML(w io.Writer, evs []parser.Event, o Options) error {
	if o.Redact {
		evs = newRedactorFor(nil, evs).events(evs)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	err := renderBatches(bw, len(evs), eventBatch, func(dst []byte, from, to int) ([]byte, error) {
		y := yamlScalars.Get().(*yamlWriter)
		defer yamlScalars.Put(y)
		for i := from; i < to; i++ {
			if i > 0 {
				dst = append(dst, "---\n"...)
			}
			var err error
			if dst, err = appendEventYAML(dst, &evs[i], y); err != nil {
				return dst, err
			}
		}
		return dst, nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// appendEventYAML appends the event as a YAML document, or when the YAML
// object fails (see above), as the converter writes its JSON.
func appendEventYAML(b []byte, e *parser.Event, y *yamlWriter) ([]byte, error) {
	start := len(b)
	y.failed = false
	b = appendEvent(b, e, jsonObject{yaml: y})
	if !y.failed {
		return b, nil
	}
	yamlFallbacks.Add(1)
	var out bytes.Buffer
	if err := jsonToYAML(&out, bytes.NewReader(appendEvent(nil, e, jsonObject{compact: true}))); err != nil {
		return b[:start], err
	}
	return append(b[:start], out.Bytes()...), nil
}

// newYAMLObjectWriter is an objectWriter that writes the document as YAML:
// the fields the encoder writes (field, array) converted from their JSON
// one at a time, the arrays whose elements are appended by hand
// (arrayOf) as YAML directly, on every core.
func newYAMLObjectWriter(w io.Writer) *objectWriter {
	bw := bufio.NewWriterSize(w, 64<<10)
	return &objectWriter{w: bw, yaml: newYAMLWriter(bw, nil)}
}

// yamlField writes a field converted from the encoder's JSON of v.
func (o *objectWriter) yamlField(k string, v any) {
	o.fields++
	if o.err != nil {
		return
	}
	o.yamlPiece(v, &k, asField)
}

// yamlPiece writes v converted from the encoder's JSON of it, placed as
// at says (the field key for asField).
func (o *objectWriter) yamlPiece(v any, key *string, at int) {
	var js []byte
	if js, o.err = appendIndented(o.buf[:0], v, ""); o.err != nil {
		return
	}
	o.buf = js
	if o.err = o.yaml.readJSON(js); o.err == nil {
		o.err = o.yaml.piece(key, at)
	}
}

// yamlArray writes an array field whose elements the encoder writes, each
// converted from its JSON as an item of the field's sequence.
func (o *objectWriter) yamlArray(k string, n int, elem func(i int) any) {
	if n == 0 {
		o.field(k, []any{})
		return
	}
	o.yamlArrayKey(k)
	for i := 0; i < n && o.err == nil; i++ {
		o.yamlPiece(elem(i), nil, asElement)
	}
}

// yamlArrayKey starts a field holding a sequence ("key:", its items on the
// lines after).
func (o *objectWriter) yamlArrayKey(k string) {
	o.fields++
	if o.err != nil {
		return
	}
	kt, ok := o.yaml.keyText(k)
	if !ok {
		o.err = fmt.Errorf("yaml: cannot write the field %q", k)
		return
	}
	o.w.WriteString(kt)
	o.w.WriteString(":\n")
}

// yamlArrayOf writes an array field whose elements elem appends as YAML
// items ("  - " and the element laid out after it), in batches on every
// core; an element the YAML layout cannot write is converted from its
// JSON instead.
func (o *objectWriter) yamlArrayOf(k string, n int, elem elemAppender) {
	if n == 0 {
		o.field(k, []any{})
		return
	}
	o.yamlArrayKey(k)
	if o.err != nil {
		return
	}
	o.err = renderBatches(o.w, n, arrayBatch, func(dst []byte, from, to int) ([]byte, error) {
		y := yamlScalars.Get().(*yamlWriter)
		defer yamlScalars.Put(y)
		for i := from; i < to; i++ {
			var err error
			if dst, err = appendYAMLItem(dst, i, elem, y); err != nil {
				return dst, err
			}
		}
		return dst, nil
	})
}

// yamlFallbacks counts the values the YAML layout could not write (tests
// hold it at zero on the corpus: a fall-back is correct, but slow).
var yamlFallbacks atomic.Int64

// appendYAMLItem appends element i as an item of a top-level field's
// sequence, or, when the YAML layout fails, as the converter writes its
// JSON there.
func appendYAMLItem(dst []byte, i int, elem elemAppender, y *yamlWriter) ([]byte, error) {
	start := len(dst)
	y.failed = false
	dst, err := elem(append(dst, "  - "...), i, yamlItem(y, 2))
	if err != nil || !y.failed {
		return dst, err
	}
	yamlFallbacks.Add(1)
	js, err := elem(nil, i, objectAt(arrayDepth))
	if err != nil {
		return dst[:start], err
	}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	c := newYAMLWriter(bw, nil)
	if err := c.readJSON(js); err != nil {
		return dst[:start], err
	}
	if err := c.piece(nil, asElement); err != nil {
		return dst[:start], err
	}
	bw.Flush()
	return append(dst[:start], out.Bytes()...), nil
}
