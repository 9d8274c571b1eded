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
// elem may be called from several goroutines at once.
func (o *objectWriter) array(k string, n int, elem func(i int) any) {
	o.key(k)
	if n == 0 {
		o.w.WriteString("[]")
		return
	}
	o.w.WriteByte('[')
	switch workers := runtime.GOMAXPROCS(0); {
	case o.err != nil:
	case n >= 2*arrayBatch && workers > 1:
		o.elementsParallel(n, elem, workers)
	default:
		o.err = appendElements(&o.buf, o.w, 0, n, elem)
	}
	o.w.WriteString("\n  ]")
}

// arrayBatch is how many array elements one goroutine encodes at a time.
const arrayBatch = 128

// appendElements writes elements from..to-1 (with their separators and
// indent) to w, through buf, up to the first error, which it returns.
func appendElements(buf *bytes.Buffer, w io.Writer, from, to int, elem func(i int) any) error {
	var err error
	for i := from; i < to && err == nil; i++ {
		buf.Reset()
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n    ")
		if err = encodeIndented(buf, elem(i), "    "); err == nil {
			_, err = w.Write(buf.Bytes())
		}
	}
	return err
}

// elementsParallel encodes batches of elements on workers goroutines and
// writes them in order; at most 2×workers batches are held at once.
func (o *objectWriter) elementsParallel(n int, elem func(i int) any, workers int) {
	type batch struct {
		from, to int
		out      bytes.Buffer
		err      error
		done     chan struct{}
	}
	jobs := make(chan *batch, 2*workers)
	order := make(chan *batch, 2*workers)
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(order)
		for from := 0; from < n; from += arrayBatch {
			b := &batch{from: from, to: min(n, from+arrayBatch), done: make(chan struct{})}
			select {
			case jobs <- b:
			case <-stop:
				return
			}
			order <- b // never blocks longer than the writer takes
		}
	}()
	for range workers {
		go func() {
			var buf bytes.Buffer
			for b := range jobs {
				b.err = appendElements(&buf, &b.out, b.from, b.to, elem)
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		if o.err == nil && b.err != nil {
			o.err = b.err
			close(stop)
		}
		if o.err == nil {
			o.w.Write(b.out.Bytes())
		}
	}
}

// write encodes v with the given line prefix, without the encoder's newline.
func (o *objectWriter) write(v any, prefix string) {
	if o.err != nil {
		return
	}
	o.buf.Reset()
	if err := encodeIndented(&o.buf, v, prefix); err != nil {
		o.err = err
		return
	}
	o.w.Write(o.buf.Bytes())
}

// encodeIndented appends v to buf as the indenting encoder writes it, with
// the given line prefix and without its final newline.
func encodeIndented(buf *bytes.Buffer, v any, prefix string) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1)
	return nil
}

// close ends the object (with the encoder's trailing newline) and flushes.
func (o *objectWriter) close() error {
	if o.err != nil {
		return o.err
	}
	o.w.WriteString("\n}\n")
	return o.w.Flush()
}
