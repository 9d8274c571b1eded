package report

import (
	"io"
	"runtime"
	"sync/atomic"
)

// batchRenderer appends items from..to-1 to dst, in the form written; it
// is called from several goroutines at once, for disjoint ranges.
type batchRenderer func(dst []byte, from, to int) ([]byte, error)

// renderOrdered renders items 0..n-1 in batches of size on workers
// goroutines and writes the batches to w in order: the output is what
// rendering them one after the other would write. At most 2×workers
// batches are held at once. A written batch's buffer goes to the next
// batch, and new buffers start at the size of the largest batch so far,
// so that buffers seldom grow. It returns the first error of render or of
// w, and renders no batch after it.
func renderOrdered(w io.Writer, n, size, workers int, render batchRenderer) error {
	type batch struct {
		from, to int
		out      []byte
		err      error
		done     chan struct{}
	}
	jobs := make(chan *batch, 2*workers)
	order := make(chan *batch, 2*workers)
	free := make(chan []byte, 4*workers+2) // written buffers (room for all in flight)
	var largest atomic.Int64               // the largest batch so far, to size new buffers
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(order)
		for from := 0; from < n; from += size {
			b := &batch{from: from, to: min(n, from+size), done: make(chan struct{})}
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
					if n := largest.Load(); n > 0 {
						buf = make([]byte, 0, n+n/4)
					}
				}
				b.out, b.err = render(buf[:0], b.from, b.to)
				if n := int64(len(b.out)); n > largest.Load() {
					largest.Store(n) // a lost race only leaves a smaller hint
				}
				close(b.done)
			}
		}()
	}
	var err error
	for b := range order {
		<-b.done
		if err == nil {
			if err = b.err; err == nil {
				_, err = w.Write(b.out)
			}
			if err != nil {
				close(stop)
			}
		}
		select {
		case free <- b.out:
		default:
		}
	}
	return err
}

// renderVolumes writes n volumes' parts of a view (timeline text and
// Markdown: a large cluster's day is 35k volumes, tens of MB, otherwise
// one core's work) in batches of volumeBatch, on every core when there
// are enough of them (renderOrdered).
func renderVolumes(w io.Writer, n int, render batchRenderer) error {
	return renderBatches(w, n, volumeBatch, render)
}

// renderBatches writes n items rendered in batches of size: on every
// core when there are enough of them (renderOrdered), else one batch
// after the other on this goroutine.
func renderBatches(w io.Writer, n, size int, render batchRenderer) error {
	if workers := runtime.GOMAXPROCS(0); workers > 1 && n >= 2*size {
		return renderOrdered(w, n, size, workers, render)
	}
	var buf []byte
	for from := 0; from < n; from += size {
		var err error
		if buf, err = render(buf[:0], from, min(n, from+size)); err != nil {
			return err
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// volumeBatch is how many volumes one goroutine renders at a time (a
// test renders them all in one).
var volumeBatch = 32
