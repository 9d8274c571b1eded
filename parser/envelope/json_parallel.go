package envelope

import "errors"

// This file reads the record objects of a document's array on every core
// (parallel.go): the reader skims the elements as fastArray does
// (scanElements: each checked to be valid JSON, its members found) and
// cuts them into batches; workers read each element's record from its
// bytes (rawItem); the caller replays them in order and, once the reader
// stops (at the array's end, or at an element it leaves to encoding/json),
// hands the array back to encoding/json there, as fastArray does. A
// CloudWatch export is one such array: most of its reading is rawItem's.

// errReplayStopped ends the reader of an array once the replay has
// stopped (it has an error of its own).
var errReplayStopped = errors.New("replay stopped")

// fastObjectsParallel is fastArray('{', rawItem) with the records read by
// w.workers workers.
func (w *walker) fastObjectsParallel() error {
	spec := w.spec
	p := newParallel(w.d, w.workers, spec.readElements)
	p.elements = true
	type scanEnd struct {
		boundary  int64
		afterElem bool
	}
	end, err := runParallel(p, spec, func() (scanEnd, bool) {
		var fields []rawField
		boundary, afterElem, err := w.scanElements('{', &fields, func(el []byte, pos int) error {
			b := p.b
			from, fFrom := len(b.arena), len(b.fields)
			b.arena = append(b.arena, el...)
			for _, f := range fields {
				// the key is a window of the tracker's buffer, which
				// the reading goes on in: where it is in the element,
				// for the worker to take the same window of the copy
				off := cap(el) - cap(f.key)
				b.keys = append(b.keys, [2]int32{int32(off), int32(off + len(f.key))})
				f.key = nil
				b.fields = append(b.fields, f)
			}
			b.lines = append(b.lines, lineRef{pos: pos, from: int32(from), to: int32(len(b.arena)),
				fFrom: int32(fFrom), fTo: int32(len(b.fields))})
			if !p.cut() {
				return errReplayStopped
			}
			return nil
		})
		return scanEnd{boundary, afterElem}, err == nil
	})
	if err != nil {
		return err
	}
	return w.handBack(end.boundary, end.afterElem)
}

// readElements reads the records of b's array elements with the worker's
// decoder wd (their emissions go to b).
func (spec *docSpec) readElements(wd *decoder, b *lineBatch) {
	for i := range b.lines {
		l := &b.lines[i]
		el, fields := b.arena[l.from:l.to:l.to], b.fields[l.fFrom:l.fTo:l.fTo]
		for k, at := range b.keys[l.fFrom:l.fTo] {
			fields[k].key = el[at[0]:at[1]:at[1]]
		}
		l.out = int32(len(b.outs))
		spec.rawItem(wd, el, fields, l.pos) // a sink never fails
		l.outEnd, l.raw = int32(len(b.outs)), true
	}
}
