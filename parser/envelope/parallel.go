package envelope

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// This file is what JSON Lines (lines_parallel.go) and the record arrays
// of documents (json_parallel.go) share to be read on every core: a
// reader goroutine cuts the input, in order, into batches of lines or
// array elements; workers read the records of a batch from its bytes,
// each with a decoder of its own that keeps what it would have emitted —
// records and problems, in order — instead of emitting it (decoder.sink);
// and the caller replays the batches in input order, where everything
// that depends on what came before happens: the de-duplication, the
// statistics, the caller's Skim and yield. The replay gives the records,
// problems and Skim calls of reading on one goroutine
// (TestFastPathMatchesFull compares them with encoding/json's reading).

// A lineItem is what a decoder emitted (decoder.sink): a problem, or a
// record (with the head of its message, in its batch's heads, when a
// worker skimmed it: the caller's Skim is asked in the replay).
type lineItem struct {
	kind          byte   // itemProblem, itemRecord
	pos           int    // a problem's line (a record has its Pos)
	msg           string // a problem's
	rec           Record
	head, headEnd int32
}

// The kinds of lineItem.
const (
	itemProblem byte = iota + 1
	itemRecord
)

// lineRef is one line or array element of a batch (arena[from:to]; an
// element's members are fields[fFrom:fTo]), or a problem the line reader
// had (from < 0), and the items a worker's reading of it emitted
// (outs[out:outEnd]); raw says the worker read it from its bytes, else
// the replay decodes the line.
type lineRef struct {
	pos         int
	from, to    int32
	fFrom, fTo  int32
	msg         string
	out, outEnd int32
	raw         bool
}

// lineBatch is consecutive lines, or elements of one array, of the input;
// done is closed once a worker has read them.
type lineBatch struct {
	lines    []lineRef
	arena    []byte
	fields   []rawField // the elements' members, relative to each element
	keys     [][2]int32 // where each of fields' keys is in its element
	elements bool       // array elements (rawItem), not lines (rawLine)
	outs     []lineItem
	heads    []byte
	done     chan struct{}
	panicked any // a worker's panic reading it, raised again by the replay
}

// Sizes of the batches: lines, and bytes of them.
const (
	batchLines = 512
	batchBytes = 256 << 10
)

// parallel is one parallel reading: its workers, the batches in flight,
// and the batch the reader is filling (b, the reader's only).
type parallel struct {
	d           *decoder
	jobs, order chan *lineBatch
	free        chan *lineBatch
	stop        chan struct{}
	workers     sync.WaitGroup
	b           *lineBatch
	readerPanic any
	elements    bool // batches of array elements, not lines
}

// parallelReadings counts the parallel readings started (tests check that
// the one they compare with one goroutine's ran).
var parallelReadings atomic.Int64

// newParallel starts workers goroutines that read the batches with read,
// each with a decoder of its own like d.
func newParallel(d *decoder, workers int, read func(wd *decoder, b *lineBatch)) *parallel {
	parallelReadings.Add(1)
	p := &parallel{d: d, jobs: make(chan *lineBatch, 2*workers), order: make(chan *lineBatch, 2*workers),
		free: make(chan *lineBatch, 4*workers+2), stop: make(chan struct{})}
	for range workers {
		wd := &decoder{opt: d.opt}
		if d.opt.Skim != nil {
			// every skimmable record is skimmed; the replay asks Skim
			wd.opt.Skim = func(head []byte) bool {
				wd.skimHead = append(wd.skimHead[:0], head...)
				return true
			}
		}
		p.workers.Go(func() {
			for b := range p.jobs {
				work(read, wd, b)
				close(b.done)
			}
		})
	}
	return p
}

// work reads b with read on the worker's decoder wd, its emissions kept in
// b; a panic (a bug) is kept with b, for the replay to raise again in the
// caller's goroutine (on the worker's it would end the process).
func work(read func(wd *decoder, b *lineBatch), wd *decoder, b *lineBatch) {
	defer func() {
		if r := recover(); r != nil {
			b.panicked = r
		}
	}()
	wd.sink, wd.heads = &b.outs, &b.heads
	defer func() { wd.sink, wd.heads = nil, nil }()
	read(wd, b)
}

// runParallel runs fill, the reader, on a goroutine of its own while the
// caller replays the batches, and returns what fill returned once it has
// ended and every batch is replayed. fill fills p.b, calls p.cut after
// each line or element, and returns ok false when cut says the replay has
// stopped (runParallel then returns the replay's error). A panic (a bug)
// is raised again in the caller's goroutine by replay, where the parser
// turns it into a problem of the input, as for the reading on one
// goroutine.
func runParallel[T any](p *parallel, spec *docSpec, fill func() (v T, ok bool)) (T, error) {
	end := make(chan T, 1)
	p.b = p.next()
	go func() {
		defer close(p.order)
		defer close(p.jobs)
		defer func() {
			if r := recover(); r != nil {
				p.readerPanic = r // read once order is closed
			}
		}()
		if v, ok := fill(); ok && p.flush() {
			end <- v
		}
	}()
	if err := p.replay(spec); err != nil {
		var zero T
		return zero, err
	}
	return <-end, nil
}

// cut sends the batch being filled once it is full; false when the replay
// has stopped (fill then returns).
func (p *parallel) cut() bool {
	if len(p.b.lines) < batchLines && len(p.b.arena) < batchBytes {
		return true
	}
	return p.send()
}

// flush sends the last batch; false when the replay has stopped.
func (p *parallel) flush() bool {
	if len(p.b.lines) == 0 {
		return true
	}
	return p.send()
}

func (p *parallel) send() bool {
	select {
	case p.order <- p.b:
	case <-p.stop:
		return false
	}
	select {
	case p.jobs <- p.b:
	case <-p.stop:
		return false
	}
	p.b = p.next()
	return true
}

// next is an empty batch: one replayed, or a new one.
func (p *parallel) next() *lineBatch {
	select {
	case b := <-p.free:
		b.done = make(chan struct{})
		return b
	default:
		// sized for a whole batch: grown from nothing, a batch's arrays
		// made as much garbage again, several MiB for an input of one
		return &lineBatch{done: make(chan struct{}), lines: make([]lineRef, 0, batchLines),
			arena: make([]byte, 0, batchBytes+batchBytes/4), outs: make([]lineItem, 0, batchLines), elements: p.elements}
	}
}

// replay replays the batches in order as they are read, until the reader
// ends or a replay fails; it then stops the reader and the workers.
func (p *parallel) replay(spec *docSpec) (err error) {
	defer func() {
		close(p.stop)
		for range p.order { // let the reader end
		}
		p.workers.Wait()
		if err == nil && p.readerPanic != nil {
			panic(p.readerPanic)
		}
	}()
	for b := range p.order {
		<-b.done
		if b.panicked != nil {
			panic(b.panicked)
		}
		err := spec.replay(p.d, b)
		b.reset()
		select {
		case p.free <- b:
		default:
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// reset empties b for another batch (the records' strings go).
func (b *lineBatch) reset() {
	clear(b.outs)
	clear(b.lines)
	clear(b.fields)
	b.lines, b.arena, b.fields, b.keys, b.outs, b.heads = b.lines[:0], b.arena[:0], b.fields[:0], b.keys[:0], b.outs[:0], b.heads[:0]
}

// replay gives, in order, what reading b's lines or elements one by one
// gives.
func (spec *docSpec) replay(d *decoder, b *lineBatch) error {
	for i := range b.lines {
		l := &b.lines[i]
		if l.from < 0 {
			d.problemText(l.pos, l.msg)
			continue
		}
		line := b.arena[l.from:l.to:l.to]
		if !l.raw {
			if err := spec.decodeLine(d, line, l.pos); err != nil {
				return err
			}
			continue
		}
		outs := b.outs[l.out:l.outEnd]
		if skimmedRefused(d, outs, b.heads) {
			// Skim wants the whole message: read the line again, as
			// decodeLines would have (Skim has answered: it is not asked
			// twice)
			skim := d.opt.Skim
			d.opt.Skim = refuseSkim
			var err error
			if b.elements {
				err = spec.rawItem(d, line, b.fields[l.fFrom:l.fTo:l.fTo], l.pos)
			} else {
				_, err = spec.rawLine(d, line, l.pos)
			}
			d.opt.Skim = skim
			if err != nil {
				return err
			}
			continue
		}
		for j := range outs {
			o := &outs[j]
			if o.kind == itemProblem {
				d.problemText(o.pos, o.msg)
				continue
			}
			if err := d.emit(o.rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// skimmedRefused asks the caller's Skim about the skimmed records of a
// line's outs (their heads in heads), as reading the line would have;
// true when it refuses one.
func skimmedRefused(d *decoder, outs []lineItem, heads []byte) bool {
	for j := range outs {
		if o := &outs[j]; o.kind == itemRecord && o.rec.Skimmed && !d.opt.Skim(heads[o.head:o.headEnd]) {
			return true
		}
	}
	return false
}

// refuseSkim is a Skim that has already said no.
func refuseSkim([]byte) bool { return false }

// lineWorkers is how many workers read JSON Lines: the cores, but one
// (reading on one goroutine) where there is one, or where tests ask.
var lineWorkers = func() int { return runtime.GOMAXPROCS(0) }

// parallelMinBytes is the least input read on workers: a smaller one
// (the start the envelope was detected by holds all of it) is read on one
// goroutine, where starting workers would cost more than it saves (a
// must-gather's many small logs). Tests lower it.
var parallelMinBytes = SampleSize
