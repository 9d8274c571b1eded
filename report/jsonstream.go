package report

import (
	"bufio"
	"bytes"
	"io"
	"runtime"

	json "github.com/goccy/go-json"
)

// objectWriter writes one top-level JSON object field by field, byte for byte
// as json.Encoder with SetIndent("", "  ") and SetEscapeHTML(false) would
// write the whole value, so that large arrays (thousands of volumes) are
// encoded one element at a time instead of being held whole in memory.
type objectWriter struct {
	w      *bufio.Writer
	fields int
	err    error
	buf    []byte
	yaml   *yamlWriter // YAML instead of JSON (newYAMLObjectWriter, yamlappend.go)
}

func newObjectWriter(w io.Writer) *objectWriter {
	o := &objectWriter{w: bufio.NewWriterSize(delEscaper{w}, 64<<10)}
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
	if o.yaml != nil {
		o.yamlField(k, v)
		return
	}
	o.key(k)
	o.write(v, "  ")
}

// elemAppender appends element i of an array field to dst, laid out by
// at: as the encoder writes it there (depth 2: in an array in the
// top-level object), or in YAML an item of the field's sequence.
// It may be called from several goroutines at once.
type elemAppender func(dst []byte, i int, at jsonObject) ([]byte, error)

// arrayDepth is the depth of the elements of an array field.
const arrayDepth = 2

// array writes a field holding n elements, element i encoded from elem(i).
// elem may be called from several goroutines at once.
func (o *objectWriter) array(k string, n int, elem func(i int) any) {
	if o.yaml != nil {
		o.yamlArray(k, n, elem)
		return
	}
	o.arrayBatched(k, n, heavyBatch, func(dst []byte, i int, _ jsonObject) ([]byte, error) {
		return appendIndented(dst, elem(i), "    ")
	})
}

// arrayOf writes a field holding n elements, element i appended by elem,
// arrayBatch at a time.
func (o *objectWriter) arrayOf(k string, n int, elem elemAppender) {
	o.arrayBatched(k, n, arrayBatch, elem)
}

// arrayBatched is arrayOf, batch elements at a time.
func (o *objectWriter) arrayBatched(k string, n, batch int, elem elemAppender) {
	if o.yaml != nil {
		o.yamlArrayOf(k, n, elem)
		return
	}
	o.key(k)
	if n == 0 {
		o.w.WriteString("[]")
		return
	}
	o.w.WriteByte('[')
	switch workers := runtime.GOMAXPROCS(0); {
	case o.err != nil:
	case n >= 2*batch && workers > 1:
		o.elementsParallel(n, batch, elem, workers)
	default:
		for from := 0; from < n && o.err == nil; from += batch {
			o.buf, o.err = appendElements(o.buf[:0], from, min(n, from+batch), elem)
			if o.err == nil {
				o.w.Write(o.buf)
			}
		}
	}
	o.w.WriteString("\n  ]")
}

// arrayBatch is how many array elements one goroutine encodes at a time;
// heavyBatch how many of those that are kilobytes each (findings with
// their evidence, incidents, or any element left to the encoder): in
// batches of 128, the storm's 190 findings at 128 MiB were written on one
// goroutine, into two buffers of 800 KB grown from nothing.
const (
	arrayBatch = 128
	heavyBatch = 16
)

// appendElements appends elements from..to-1, with their separators and
// indent, to dst, up to the first error, which it returns.
//
// Before each element dst is given room for twice the last one, doubling
// its capacity when short: appends grow a large slice by a quarter at a
// time, and a batch of 128 findings (a retry storm's, ~6 KB each) copied
// itself over and over as it grew from an empty buffer.
func appendElements(dst []byte, from, to int, elem elemAppender) ([]byte, error) {
	var err error
	last := 0
	for i := from; i < to && err == nil; i++ {
		dst = reserve(dst, 2*last+8)
		start := len(dst)
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		dst, err = elem(dst, i, objectAt(arrayDepth))
		last = len(dst) - start
	}
	return dst, err
}

// reserve returns b with room for n more bytes, its capacity at least
// doubled when it grows.
func reserve(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	grown := make([]byte, len(b), max(2*cap(b), len(b)+n))
	copy(grown, b)
	return grown
}

// elementsParallel encodes batches of elements on workers goroutines and
// writes them in order (renderOrdered).
func (o *objectWriter) elementsParallel(n, batch int, elem elemAppender, workers int) {
	o.err = renderOrdered(o.w, n, batch, workers, func(dst []byte, from, to int) ([]byte, error) {
		return appendElements(dst, from, to, elem)
	})
}

// write encodes v with the given line prefix, without the encoder's newline.
func (o *objectWriter) write(v any, prefix string) {
	if o.err != nil {
		return
	}
	o.buf, o.err = appendIndented(o.buf[:0], v, prefix)
	if o.err == nil {
		o.w.Write(o.buf)
	}
}

// appendIndented appends v to dst as the indenting encoder writes it, with
// the given line prefix and without its final newline.
func appendIndented(dst []byte, v any, prefix string) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	out := buf.Bytes()
	return out[:len(out)-1], nil
}

// close ends the object (with the encoder's trailing newline) and flushes.
func (o *objectWriter) close() error {
	if o.err != nil {
		return o.err
	}
	if o.yaml != nil {
		if o.fields == 0 {
			o.w.WriteString("{}\n")
		}
		return o.w.Flush()
	}
	o.w.WriteString("\n}\n")
	return o.w.Flush()
}
