package report

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync/atomic"

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
	o.key(k)
	o.write(v, "  ")
}

// elemAppender appends element i of an array field to dst, as the encoder
// writes it there (depth 2: in an array in the top-level object).
// It may be called from several goroutines at once.
type elemAppender func(dst []byte, i int) ([]byte, error)

// arrayDepth is the depth of the elements of an array field.
const arrayDepth = 2

// array writes a field holding n elements, element i encoded from elem(i).
// elem may be called from several goroutines at once.
func (o *objectWriter) array(k string, n int, elem func(i int) any) {
	o.arrayOf(k, n, func(dst []byte, i int) ([]byte, error) {
		return appendIndented(dst, elem(i), "    ")
	})
}

// arrayOf writes a field holding n elements, element i appended by elem.
func (o *objectWriter) arrayOf(k string, n int, elem elemAppender) {
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
		for from := 0; from < n && o.err == nil; from += arrayBatch {
			o.buf, o.err = appendElements(o.buf[:0], from, min(n, from+arrayBatch), elem)
			if o.err == nil {
				o.w.Write(o.buf)
			}
		}
	}
	o.w.WriteString("\n  ]")
}

// arrayBatch is how many array elements one goroutine encodes at a time.
const arrayBatch = 128

// appendElements appends elements from..to-1, with their separators and
// indent, to dst, up to the first error, which it returns.
func appendElements(dst []byte, from, to int, elem elemAppender) ([]byte, error) {
	var err error
	for i := from; i < to && err == nil; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n    "...)
		dst, err = elem(dst, i)
	}
	return dst, err
}

// elementsParallel encodes batches of elements on workers goroutines and
// writes them in order; at most 2×workers batches are held at once. A
// written batch's buffer goes to the next batch, and new buffers start at
// the size of the largest batch so far, so that buffers seldom grow.
func (o *objectWriter) elementsParallel(n int, elem elemAppender, workers int) {
	type batch struct {
		from, to int
		out      []byte
		err      error
		done     chan struct{}
	}
	jobs := make(chan *batch, 2*workers)
	order := make(chan *batch, 2*workers)
	free := make(chan []byte, 4*workers+2) // written buffers (room for all in flight)
	var size atomic.Int64                  // the largest batch so far, to size new buffers
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
			for b := range jobs {
				var buf []byte
				select {
				case buf = <-free:
				default:
					if n := size.Load(); n > 0 {
						buf = make([]byte, 0, n+n/4)
					}
				}
				b.out, b.err = appendElements(buf[:0], b.from, b.to, elem)
				if n := int64(len(b.out)); n > size.Load() {
					size.Store(n) // a lost race only leaves a smaller hint
				}
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
			o.w.Write(b.out)
		}
		select {
		case free <- b.out:
		default:
		}
	}
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
	o.w.WriteString("\n}\n")
	return o.w.Flush()
}
