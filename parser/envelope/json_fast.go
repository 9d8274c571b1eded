package envelope

import (
	"bytes"
	"encoding/json"
	"io"
)

// This file reads arrays of record objects from raw bytes: the walker
// hands the array over to fastArray, which skims each element (checking
// it is valid JSON) and reads it as a rawObject, and hands the array back
// to encoding/json at its end, or before the first element it does not
// take (invalid, cut off by the end of the input, larger than
// fastMaxRecord), so that the decoder meets exactly the bytes, in exactly
// the state, it would have met reading the whole array itself.

// fastMaxRecord is the largest element fastArray holds whole; a larger one
// is left to encoding/json's streaming.
const fastMaxRecord = 1 << 20

// fill reads more of the input into t.buf; false at the end of the input
// or on a read error (kept in t.err).
func (t *tracker) fill() bool {
	if cap(t.buf)-len(t.buf) < 16<<10 {
		nb := make([]byte, len(t.buf), 2*cap(t.buf)+64<<10)
		copy(nb, t.buf)
		t.buf = nb
	}
	for {
		n, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
		p := t.buf[len(t.buf) : len(t.buf)+n]
		t.buf = t.buf[:len(t.buf)+n]
		if n > 0 {
			t.nl += bytes.Count(p, []byte("\n"))
			t.last, t.read = p[n-1], true
		}
		if err != nil && err != io.EOF {
			t.err = err
		}
		if n > 0 {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// nextByte returns the index in t.buf of the first byte at or after i
// that is not JSON white space, reading more as needed; false at the end
// of the input.
func (t *tracker) nextByte(i int) (int, bool) {
	for {
		i = skipSpace(t.buf, i)
		if i < len(t.buf) {
			return i, true
		}
		if !t.fill() {
			return i, false
		}
	}
}

// fastArray reads the elements of the array whose "[" the decoder has
// just read, up to its end or to an element it leaves to the decoder,
// and gives a new decoder, positioned there, to the walker.
func (w *walker) fastArray() error {
	t := w.t
	// boundary: the input offset after the "[" or after the last element
	// read; afterElem: an element was read
	boundary, afterElem := w.off(), false
	for {
		// the separator and the next element
		i, ok := t.nextByte(int(boundary - t.base))
		if !ok || t.buf[i] == ']' {
			break
		}
		if afterElem {
			if t.buf[i] != ',' {
				break
			}
			if i, ok = t.nextByte(i + 1); !ok {
				break
			}
		}
		if t.buf[i] != '{' {
			break // leave non-objects and errors to the decoder
		}
		start := t.base + int64(i)
		var end, res int
		for {
			i = int(start - t.base)
			w.d.fields = w.d.fields[:0]
			end, res = skimObject(t.buf, i, 0, &w.d.fields)
			if res != skimShort || end-i > fastMaxRecord || !t.fill() {
				break
			}
		}
		if res != skimOK {
			break
		}
		end64 := t.base + int64(end)
		for k := range w.d.fields { // spans relative to the element
			w.d.fields[k].from -= i
			w.d.fields[k].to -= i
		}
		w.start = t.lineAt(start)
		el := t.buf[int(start-t.base):int(end64-t.base)]
		if err := w.spec.rawItem(w.d, el, w.d.fields, w.start); err != nil {
			return err
		}
		boundary, afterElem = end64, true
	}
	return w.handBack(boundary, afterElem)
}

// handBack starts a new decoder at the input offset boundary, on the
// walker's path (and a stand-in element when an element was read there),
// so that it is in the state the old one would have been in there.
func (w *walker) handBack(boundary int64, afterElem bool) error {
	t := w.t
	prefix := append([]byte(nil), w.path...)
	if afterElem {
		prefix = append(prefix, '0')
	}
	rest := t.buf[int(boundary-t.base):]
	src := make([]byte, 0, len(prefix)+len(rest))
	src = append(append(src, prefix...), rest...)
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader(src), t))
	dec.UseNumber()
	for range w.ptoks {
		if _, err := dec.Token(); err != nil {
			panic("envelope: the walker's path does not decode: " + err.Error())
		}
	}
	if afterElem {
		var skip any
		if err := dec.Decode(&skip); err != nil {
			panic("envelope: the stand-in element does not decode: " + err.Error())
		}
	}
	w.dec = dec
	w.off0 = boundary - int64(len(prefix))
	return nil
}

// rawItem emits the record of the array element el, a valid JSON object
// whose members are fields, read from its bytes (or decoded as a map when
// its keys have escapes or non-ASCII bytes, which the map would hold
// decoded).
func (spec *docSpec) rawItem(d *decoder, el []byte, fields []rawField, pos int) error {
	if !simpleKeys(fields) {
		return spec.item(d, itemObject, decodeRaw(el), nil, pos)
	}
	o := &d.raw
	*o = rawObject{b: el, fields: fields, last: o.last}
	if d.opt.Skim != nil {
		o.skimPath, o.skimHead = spec.fields.skimMessage(d, o)
	}
	r, ok := spec.fields.record(d, o, pos)
	if !ok {
		return nil
	}
	r.Skimmed = o.skimPath != ""
	return d.emit(r)
}

// skimmedMsg stands for a skimmed message while the record is built
// (record looks for a non-empty text); emit gives the record "".
const skimmedMsg = "\x00skimmed"

// skimMessage picks the message the way fieldMap.record does (the first
// path holding a non-empty text) and returns its path and head when it is
// a JSON string the prefilter finds clear and Options.Skim accepts.
func (fm *fieldMap) skimMessage(d *decoder, o *rawObject) (path, head string) {
	for _, p := range fm.msg {
		from, to, ok, bad := span(o.b, o.fields, p)
		if bad {
			return "", ""
		}
		if !ok {
			continue
		}
		v := o.b[from:to]
		switch v[0] {
		case '"':
			if len(v) == 2 {
				continue // empty: record looks on
			}
			s := v[1 : len(v)-1]
			if !d.opt.Prefilter.clear(s, bytes.IndexByte(s, '\\') >= 0) {
				return "", ""
			}
			if !d.opt.Skim(headOf(s)) {
				return "", ""
			}
			return p, skimmedMsg
		case 'n', '{':
			continue // not text
		default:
			return "", "" // numbers, booleans, byte arrays: record reads them
		}
	}
	return "", ""
}

// rawLine reads one JSON Lines line (without white space around it) from
// its bytes when it is a record object: valid, one value, and none of
// the spec's member paths starts at its top level. ok is false when the
// line is left to the decoder.
func (spec *docSpec) rawLine(d *decoder, line []byte, pos int) (ok bool, err error) {
	if !rawRecords || line[0] != '{' {
		return false, nil
	}
	d.fields = d.fields[:0]
	end, res := skimObject(line, 0, 0, &d.fields)
	if res != skimOK || end != len(line) {
		return false, nil
	}
	for _, m := range spec.members {
		if _, _, ok := rawMember(line, d.fields, m.path[0]); ok {
			return false, nil
		}
	}
	return true, spec.rawItem(d, line, d.fields, pos)
}
