package envelope

import (
	"bufio"
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
)

// This file reads JSON Lines on every core: the lines are read and cut
// into batches in order, workers read the records of a batch's lines from
// their bytes (rawLine), and the batches are then replayed in input
// order, where everything that depends on what came before happens: the
// de-duplication, the statistics, the caller's Skim and yield. A worker's
// decoder keeps what it would have emitted — records and problems, in
// order — instead of emitting it (decoder.sink), so that the replay gives
// the records, problems and Skim calls of reading the lines one by one
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

// lineRef is one line of a batch (arena[from:to]), or a problem the
// line reader had (from < 0), and the items a worker's reading of the
// line emitted (outs[out:outEnd]); raw says it read it from its bytes
// (rawLine), else the replay decodes it.
type lineRef struct {
	pos         int
	from, to    int32
	msg         string
	out, outEnd int32
	raw         bool
}

// lineBatch is consecutive lines of the input; done is closed once a
// worker has read them.
type lineBatch struct {
	lines    []lineRef
	arena    []byte
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

// decodeLinesParallel is decodeLines on workers; see the file comment.
func (spec *docSpec) decodeLinesParallel(d *decoder, br *bufio.Reader, workers int) error {
	jobs := make(chan *lineBatch, 2*workers)
	order := make(chan *lineBatch, 2*workers)
	free := make(chan *lineBatch, 4*workers+2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wd := &decoder{opt: d.opt}
		if d.opt.Skim != nil {
			// every skimmable record is skimmed; the replay asks Skim
			wd.opt.Skim = func(head []byte) bool {
				wd.skimHead = append(wd.skimHead[:0], head...)
				return true
			}
		}
		wg.Go(func() {
			for b := range jobs {
				spec.readBatch(wd, b)
				close(b.done)
			}
		})
	}
	// a panic (a bug) is raised again in the caller's goroutine, where the
	// parser turns it into a problem of the input, as for the reading on
	// one goroutine
	var readerPanic any
	defer func() {
		if readerPanic != nil {
			panic(readerPanic)
		}
	}()
	type readEnd struct {
		lines int
		err   error
	}
	readErr := make(chan readEnd, 1)
	// the reader: lines in order, cut into batches
	go func() {
		defer close(order)
		defer close(jobs)
		defer func() {
			if p := recover(); p != nil {
				readerPanic = p // read once order is closed
				readErr <- readEnd{}
			}
		}()
		var problems []lineItem
		ld := &decoder{sink: &problems}
		lr := newLineReader(ld, br, 1)
		b := nextBatch(free)
		send := func() bool {
			select {
			case order <- b:
			case <-stop:
				return false
			}
			select {
			case jobs <- b:
			case <-stop:
				return false
			}
			b = nextBatch(free)
			return true
		}
		for {
			line, ok := lr.nextObject()
			for _, p := range problems { // the reader's, before the line
				b.lines = append(b.lines, lineRef{pos: p.pos, from: -1, msg: p.msg})
			}
			problems = problems[:0]
			if !ok {
				break
			}
			off := len(b.arena)
			b.arena = append(b.arena, line...)
			b.lines = append(b.lines, lineRef{pos: lr.n, from: int32(off), to: int32(len(b.arena))})
			if len(b.lines) >= batchLines || len(b.arena) >= batchBytes {
				if !send() {
					return
				}
			}
		}
		if len(b.lines) > 0 {
			send()
		}
		readErr <- readEnd{ld.st.Lines, lr.err}
	}()
	defer func() {
		close(stop)
		for range order { // let the reader end
		}
		wg.Wait()
	}()
	for b := range order {
		<-b.done
		if b.panicked != nil {
			panic(b.panicked)
		}
		err := spec.replay(d, b)
		b.reset()
		select {
		case free <- b:
		default:
		}
		if err != nil {
			return err
		}
	}
	end := <-readErr
	d.st.Lines = max(d.st.Lines, end.lines)
	return end.err
}

// nextBatch is an empty batch: one replayed, or a new one.
func nextBatch(free chan *lineBatch) *lineBatch {
	select {
	case b := <-free:
		b.done = make(chan struct{})
		return b
	default:
		return &lineBatch{done: make(chan struct{})} // grown by its first lines, then reused
	}
}

// reset empties b for another batch (the records' strings go).
func (b *lineBatch) reset() {
	clear(b.outs)
	clear(b.lines)
	b.lines, b.arena, b.outs, b.heads = b.lines[:0], b.arena[:0], b.outs[:0], b.heads[:0]
}

// readBatch reads the records of b's lines with the worker's decoder wd,
// keeping what it emits in b.outs.
func (spec *docSpec) readBatch(wd *decoder, b *lineBatch) {
	defer func() {
		if p := recover(); p != nil {
			b.panicked = p
		}
	}()
	wd.sink, wd.heads = &b.outs, &b.heads
	for i := range b.lines {
		l := &b.lines[i]
		if l.from < 0 {
			continue
		}
		l.out = int32(len(b.outs))
		ok, _ := spec.rawLine(wd, b.arena[l.from:l.to:l.to], l.pos) // a sink never fails
		if !ok {
			b.outs = b.outs[:l.out] // the replay reads the line as decodeLines does
		}
		l.outEnd, l.raw = int32(len(b.outs)), ok
	}
	wd.sink, wd.heads = nil, nil
}

// replay gives, in order, what reading b's lines one by one gives.
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
			_, err := spec.rawLine(d, line, l.pos)
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

// decodeLine reads one JSON line with encoding/json (a line the raw
// reading does not take).
func (spec *docSpec) decodeLine(d *decoder, line []byte, pos int) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		d.problem(pos, "invalid JSON line: %v", err)
		return nil
	}
	if dec.More() {
		d.problem(pos, "text after the JSON object ignored")
	}
	return spec.walkValue(d, v, pos)
}

// lineWorkers is how many workers read JSON Lines: the cores, but one
// (reading on one goroutine) where there is one, or where tests ask.
var lineWorkers = func() int { return runtime.GOMAXPROCS(0) }

// parallelMinBytes is the least input read on workers: a smaller one
// (the start the envelope was detected by holds all of it) is read on one
// goroutine, where starting workers would cost more than it saves (a
// must-gather's many small logs). Tests lower it.
var parallelMinBytes = SampleSize
