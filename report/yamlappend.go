package report

import (
	"bufio"
	"bytes"
	"io"
	"sync"
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
// indentation, the key as the encoder writes it, and ":".
func (o *jsonObject) yamlKey(b []byte, k string) []byte {
	if o.yamlOpen {
		b = append(b, '\n')
		o.yamlOpen = false
	}
	o.fields++
	b = appendSpaces(b, o.col)
	kt, ok := o.yaml.keyText(k)
	if !ok {
		o.yaml.failed = true
		return b
	}
	b = append(b, kt...)
	return append(b, ':')
}

// yamlClose ends an object: an empty nested one is "{}".
func (o *jsonObject) yamlClose(b []byte) []byte {
	if o.yamlOpen {
		o.yamlOpen = false
		return append(b, " {}\n"...)
	}
	return b
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
	if !utf8.ValidString(s) {
		s = readBack(s)
	}
	t, ok := y.scalarText(s)
	if !ok {
		y.failed = true
		return b
	}
	b = append(b, ' ')
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

// appendIndentedLines appends the lines of s, each that is not empty after
// col spaces (writeIndented's rule).
func appendIndentedLines(b []byte, s string, col int) []byte {
	for s != "" {
		line := s
		if i := bytes.IndexByte(unsafe.Slice(unsafe.StringData(s), len(s)), '\n'); i >= 0 {
			line = s[:i+1]
		}
		if len(line) > 1 {
			b = appendSpaces(b, col)
		}
		b = append(b, line...)
		s = s[len(line):]
	}
	return b
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
	var out bytes.Buffer
	if err := jsonToYAML(&out, bytes.NewReader(appendEvent(nil, e, jsonObject{compact: true}))); err != nil {
		return b[:start], err
	}
	return append(b[:start], out.Bytes()...), nil
}
