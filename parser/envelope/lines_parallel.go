package envelope

import (
	"bufio"
	"bytes"
	"encoding/json"
)

// This file reads JSON Lines on every core (parallel.go): the reader cuts
// the lines into batches, workers read each line's records from its bytes
// (rawLine), and the replay reads the lines they leave with encoding/json.

// decodeLinesParallel is decodeLines on workers; see the file comment.
func (spec *docSpec) decodeLinesParallel(d *decoder, br *bufio.Reader, workers int) error {
	p := newParallel(d, workers, spec.readBatch)
	type readEnd struct {
		lines int
		err   error
	}
	// the reader: lines in order, cut into batches
	end, err := runParallel(p, spec, func() (readEnd, bool) {
		var problems []lineItem
		ld := &decoder{sink: &problems}
		lr := newLineReader(ld, br, 1)
		for {
			line, ok := lr.nextObject()
			for _, pr := range problems { // the reader's, before the line
				p.b.lines = append(p.b.lines, lineRef{pos: pr.pos, from: -1, msg: pr.msg})
			}
			problems = problems[:0]
			if !ok {
				return readEnd{ld.st.Lines, lr.err}, true
			}
			off := len(p.b.arena)
			p.b.arena = append(p.b.arena, line...)
			p.b.lines = append(p.b.lines, lineRef{pos: lr.n, from: int32(off), to: int32(len(p.b.arena))})
			if !p.cut() {
				return readEnd{}, false
			}
		}
	})
	if err != nil {
		return err
	}
	d.st.Lines = max(d.st.Lines, end.lines)
	return end.err
}

// readBatch reads the records of b's lines with the worker's decoder wd,
// keeping what it emits in b.outs.
func (spec *docSpec) readBatch(wd *decoder, b *lineBatch) {
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
}

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
