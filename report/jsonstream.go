package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// objectWriter writes one top-level JSON object field by field, byte for byte
// as json.Encoder with SetIndent("", "  ") and SetEscapeHTML(false) would
// write the whole value, so that large arrays (thousands of volumes) are
// encoded one element at a time instead of being held whole in memory.
type objectWriter struct {
	w      *bufio.Writer
	fields int
	err    error
	buf    bytes.Buffer
}

func newObjectWriter(w io.Writer) *objectWriter {
	o := &objectWriter{w: bufio.NewWriterSize(w, 64<<10)}
	o.w.WriteByte('{')
	return o
}

// key starts a field: the separator, the indent and the quoted key.
func (o *objectWriter) key(k string) {
	if o.fields > 0 {
		o.w.WriteByte(',')
	}
	o.fields++
	o.w.WriteString("\n  ")
	o.write(k, "")
	o.w.WriteString(": ")
}

// field writes one field whose value is encoded in one piece.
func (o *objectWriter) field(k string, v any) {
	o.key(k)
	o.write(v, "  ")
}

// array writes a field holding n elements, element i produced by elem(i).
func (o *objectWriter) array(k string, n int, elem func(i int) any) {
	o.key(k)
	if n == 0 {
		o.w.WriteString("[]")
		return
	}
	o.w.WriteByte('[')
	for i := 0; i < n && o.err == nil; i++ {
		if i > 0 {
			o.w.WriteByte(',')
		}
		o.w.WriteString("\n    ")
		o.write(elem(i), "    ")
	}
	o.w.WriteString("\n  ]")
}

// write encodes v with the given line prefix, without the encoder's newline.
func (o *objectWriter) write(v any, prefix string) {
	if o.err != nil {
		return
	}
	o.buf.Reset()
	enc := json.NewEncoder(&o.buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		o.err = err
		return
	}
	o.w.Write(bytes.TrimSuffix(o.buf.Bytes(), []byte("\n")))
}

// close ends the object (with the encoder's trailing newline) and flushes.
func (o *objectWriter) close() error {
	if o.err != nil {
		return o.err
	}
	o.w.WriteString("\n}\n")
	return o.w.Flush()
}
