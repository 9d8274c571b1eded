package envelope

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
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
		t.makeRoom()
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

// makeRoom makes room after t.buf's bytes: it moves them to the front of
// their array (t.arr), where the bytes already read were, when they take
// at most half of it, and else to an array twice their size. Nothing holds
// a slice of t.buf across a fill: the fields of a skim are offsets, an
// element is read before the next one is looked for. (A new array at
// every fill, of twice the room left, made a 336 MB CloudWatch export
// allocate and zero as much again, a tenth of the time.)
func (t *tracker) makeRoom() {
	n := len(t.buf)
	if sameArray(t.arr, t.buf) && n <= cap(t.arr)/2 {
		t.buf = t.arr[:copy(t.arr, t.buf)]
		return
	}
	t.arr = make([]byte, max(2*n+32<<10, minTrackerBuf))
	t.buf = t.arr[:copy(t.arr, t.buf)]
}

// minTrackerBuf is the smallest array makeRoom reads into.
const minTrackerBuf = 256 << 10

// sameArray reports whether b is a window of arr that reaches its end
// (arr[i:i+len(b)] with the same capacity end).
func sameArray(arr, b []byte) bool {
	return cap(arr) > 0 && cap(b) > 0 && &arr[:cap(arr)][cap(arr)-1] == &b[:cap(b)][cap(b)-1]
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
// and gives a new decoder, positioned there, to the walker. The elements
// it takes start with open ('{' or '['); item gets each with its line
// (and, for objects, its members in w.d.fields, relative to it).
func (w *walker) fastArray(open byte, item func(el []byte, pos int) error) error {
	boundary, afterElem, err := w.scanElements(open, &w.d.fields, item)
	if err != nil {
		return err
	}
	return w.handBack(boundary, afterElem)
}

// scanElements is fastArray's reading of the elements, up to the array's
// end or the first element it leaves to the decoder: it returns the input
// offset after the "[" or after the last element read there, and whether
// an element was read. item gets each element, and for objects their
// members in fields (relative to the element); an error of item ends the
// reading and is returned.
func (w *walker) scanElements(open byte, fields *[]rawField, item func(el []byte, pos int) error) (boundary int64, afterElem bool, err error) {
	t := w.t
	boundary = w.off()
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
		if t.buf[i] != open {
			break // leave other values and errors to the decoder
		}
		start := t.base + int64(i)
		var end, res int
		for {
			i = int(start - t.base)
			if open == '{' {
				*fields = (*fields)[:0]
				end, res = skimObject(t.buf, i, 0, fields)
			} else {
				end, res = skimValue(t.buf, i, 0)
			}
			if res != skimShort || end-i > fastMaxRecord || !t.fill() {
				break
			}
		}
		if res != skimOK {
			break
		}
		end64 := t.base + int64(end)
		if open == '{' {
			for k := range *fields { // spans relative to the element
				(*fields)[k].from -= i
				(*fields)[k].to -= i
			}
		}
		w.start = t.lineAt(start)
		el := t.buf[int(start-t.base):int(end64-t.base)]
		if err := item(el, w.start); err != nil {
			return 0, false, err
		}
		boundary, afterElem = end64, true
	}
	return boundary, afterElem, nil
}

// handBack starts a new decoder at the input offset boundary, on the
// walker's path (and a stand-in element when an element was read there),
// so that it is in the state the old one would have been in there.
func (w *walker) handBack(boundary int64, afterElem bool) error {
	t := w.t
	prefix := append([]byte(nil), w.path...)
	if afterElem {
		// an object, not a number: "{}" ends at its "}", whatever follows,
		// where "0" would read on into "0e…" or "0.…" and fail here instead
		// of at the byte the decoder would have failed on
		prefix = append(prefix, '{', '}')
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
	fm := spec.fields
	p := d.plans.lookup(fm, el, fields)
	if p == nil {
		if !simpleKeys(fields) {
			return spec.item(d, itemObject, decodeRaw(el), nil, pos)
		}
		p = d.plans.build(fm, el, fields)
	}
	o := &d.raw
	*o = rawObject{b: el, fields: fields, c: &d.cache}
	if p != nil && !p.slow {
		o.plan, o.sc, fm = p, &d.plans.sc, p.lists
	}
	if d.opt.Skim != nil {
		o.skimPath, o.skimHead = fm.skimMessage(d, o.raw)
	}
	r, ok := fm.record(d, o, pos)
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
// path holding a non-empty text; at gives a path's raw value, bad when
// it cannot say) and returns its path and head when it is a JSON string
// the prefilter finds clear and Options.Skim accepts.
func (fm *fieldMap) skimMessage(d *decoder, at func(path string) (v []byte, ok, bad bool)) (path, head string) {
	for _, p := range fm.msg {
		v, ok, bad := at(p)
		if bad {
			return "", ""
		}
		if !ok {
			continue
		}
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

// lokiValue is a Loki value ["<ns>", "<line>", {metadata}] read from its
// bytes, as the record object toObject builds of it: timestamp, line,
// stream (the group's labels, decoded) and metadata.
type lokiValue struct {
	o      *rawObject    // for its string cache
	elems  [][2]int      // spans of the array's elements in o.b
	stream *streamFields // {"stream": the group's header}
	skim   bool          // line is skimmed
}

func (l *lokiValue) elem(i int) []byte { return l.o.b[l.elems[i][0]:l.elems[i][1]] }

func (l *lokiValue) field(path string) (string, valueKind) {
	switch {
	case path == "timestamp":
		return l.o.value(path, l.elem(0))
	case path == "line":
		if l.skim {
			return skimmedMsg, vString
		}
		return l.o.value(path, l.elem(1))
	case path == "metadata" || strings.HasPrefix(path, "metadata."):
		if len(l.elems) < 3 {
			return "", vAbsent
		}
		return mapObject{"metadata": decodeRaw(l.elem(2))}.field(path)
	}
	return l.stream.field(path)
}

// streamFields is a Loki group's header as its values read it,
// {"stream": header}: the same for every value of the group, so each path
// is looked up in it once (looking the labels up again was 70% of reading
// a value: 76 MB/s for a query_range response).
type streamFields struct {
	m    mapObject
	memo map[string]streamField
	// labels are the group's labels as fieldMap labelsFor reads them
	// (labelsOK false: its label paths read a value itself)
	labelsFor *fieldMap
	labels    Labels
	labelsOK  bool
}

type streamField struct {
	s string
	k valueKind
}

func newStreamFields(header any) *streamFields {
	return &streamFields{m: mapObject{"stream": header}}
}

func (sf *streamFields) field(path string) (string, valueKind) {
	if f, ok := sf.memo[path]; ok {
		return f.s, f.k
	}
	s, k := sf.m.field(path)
	if sf.memo == nil {
		sf.memo = map[string]streamField{}
	}
	sf.memo[path] = streamField{s, k}
	return s, k
}

// groupLabels returns a value's labels as fm reads them: its stream's,
// worked out once per stream, the same for every value — unless a label
// path reads the value's own timestamp, line or metadata (false). (They
// are returned, not set through a pointer to the record, which would move
// every record to the heap.)
func (l *lokiValue) groupLabels(fm *fieldMap) (Labels, bool) {
	sf := l.stream
	if sf.labelsFor != fm {
		sf.labelsFor, sf.labels, sf.labelsOK = fm, Labels{}, true
		for i, paths := range fm.label {
			for _, p := range paths {
				if p == "timestamp" || p == "line" || p == "metadata" || strings.HasPrefix(p, "metadata.") {
					sf.labelsOK = false
				}
			}
			if s := first(sf, paths); s != "" {
				*label(&sf.labels, i) = s
			}
		}
	}
	return sf.labels, sf.labelsOK
}

// rawLokiValue emits the record of a Loki value el (a valid JSON array)
// under a group whose header is stream.
func (spec *docSpec) rawLokiValue(d *decoder, el []byte, stream *streamFields, pos int) error {
	d.elems = arrayElems(d.elems[:0], el)
	if len(d.elems) < 2 {
		return spec.item(d, itemLokiValue, decodeRaw(el), stream.m["stream"], pos)
	}
	o := &d.raw
	*o = rawObject{b: el, c: &d.cache}
	l := &lokiValue{o: o, elems: d.elems, stream: stream}
	if d.opt.Skim != nil {
		p, _ := spec.fields.skimMessage(d, func(p string) ([]byte, bool, bool) {
			if p == "line" {
				return l.elem(1), true, false
			}
			return nil, false, true
		})
		l.skim = p != ""
	}
	r, ok := spec.fields.record(d, l, pos)
	if !ok {
		return nil
	}
	r.Skimmed = l.skim
	return d.emit(r)
}

// rowColumns are a table's columns as its rows are read from their bytes
// (rawRow): the value index of each column name, the last column of a name
// as toObject keeps it.
type rowColumns struct {
	n     int            // columns
	index map[string]int // name → value index
}

func newRowColumns(header any) *rowColumns {
	cols := asArray(header)
	rc := &rowColumns{n: len(cols), index: make(map[string]int, len(cols))}
	for i, c := range cols {
		cm, _ := c.(map[string]any)
		if name, _ := cm["name"].(string); name != "" {
			rc.index[name] = i
		}
	}
	return rc
}

// rowValue is a table row read from its bytes, as the record object
// toObject builds of it: each column's value under its name.
type rowValue struct {
	o     *rawObject // for its string cache
	elems [][2]int   // spans of the row's values in o.b
	cols  *rowColumns
}

func (r *rowValue) field(path string) (string, valueKind) {
	return namedField(r.o, path, func(name string) ([]byte, bool) {
		if i, ok := r.cols.index[name]; ok {
			return r.o.b[r.elems[i][0]:r.elems[i][1]], true
		}
		return nil, false
	})
}

// namedField is the value at path of a record object whose members are
// values of o.b found by name (member): the member called path, else, as
// lookup goes, a dotted path into a member holding an object.
func namedField(o *rawObject, path string, member func(name string) ([]byte, bool)) (string, valueKind) {
	if v, ok := member(path); ok {
		return o.value(path, v)
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		if v, ok := member(path[:i]); ok && v[0] == '{' {
			if sub, ok := decodeRaw(v).(map[string]any); ok {
				if _, ok := lookup(sub, path[i+1:]); ok {
					return mapObject(sub).field(path[i+1:])
				}
			}
		}
	}
	return "", vAbsent
}

// fieldListValue is a Logs Insights result row read from its bytes, as
// the record object toObject builds of it: each entry's "value" under its
// "field" (the last entry of a name counts; an entry without a value
// holds null).
type fieldListValue struct {
	o     *rawObject
	names []string
	spans [][2]int // the values in o.b; from < 0: none (null)
}

// nullValue stands for an entry without a value.
var nullValue = []byte("null")

func (f *fieldListValue) field(path string) (string, valueKind) {
	return namedField(f.o, path, func(name string) ([]byte, bool) {
		for i := len(f.names) - 1; i >= 0; i-- {
			if f.names[i] == name {
				if f.spans[i][0] < 0 {
					return nullValue, true
				}
				return f.o.b[f.spans[i][0]:f.spans[i][1]], true
			}
		}
		return nil, false
	})
}

// rawFieldList emits the record of a Logs Insights result row el (a valid
// JSON array of {"field": F, "value": V} entries).
func (spec *docSpec) rawFieldList(d *decoder, el []byte, pos int) error {
	f := &d.fieldList
	f.names, f.spans = f.names[:0], f.spans[:0]
	d.elems = arrayElems(d.elems[:0], el)
	for _, e := range d.elems {
		if j := e[0]; el[j] == '{' {
			d.fields = d.fields[:0]
			skimObject(el, j, 0, &d.fields)
			if !simpleKeys(d.fields) { // keys compare decoded: the map's reading
				return spec.item(d, itemFieldList, decodeRaw(el), nil, pos)
			}
			if from, to, ok := rawMember(el, d.fields, "field"); ok && el[from] == '"' {
				if name := unquote(el[from+1 : to-1]); name != "" {
					vf, vt, ok := rawMember(el, d.fields, "value")
					if !ok {
						vf = -1
					}
					f.names = append(f.names, name)
					f.spans = append(f.spans, [2]int{vf, vt})
				}
			}
		}
	}
	o := &d.raw
	*o = rawObject{b: el, c: &d.cache}
	f.o = o
	r, ok := spec.fields.record(d, f, pos)
	if !ok {
		return nil
	}
	return d.emit(r)
}

// rawRow emits the record of a table row el (a valid JSON array) under
// columns cols (header, decoded): a row of another length goes to toObject,
// which says what is wrong with it.
func (spec *docSpec) rawRow(d *decoder, el []byte, cols *rowColumns, header any, pos int) error {
	d.elems = arrayElems(d.elems[:0], el)
	if len(d.elems) != cols.n {
		return spec.item(d, itemRow, decodeRaw(el), header, pos)
	}
	o := &d.raw
	*o = rawObject{b: el, c: &d.cache}
	d.row = rowValue{o: o, elems: d.elems, cols: cols}
	r, ok := spec.fields.record(d, &d.row, pos)
	if !ok {
		return nil
	}
	return d.emit(r)
}

// arrayElems appends to dst the spans of the values of el, a valid JSON
// array.
func arrayElems(dst [][2]int, el []byte) [][2]int {
	for j := skipSpace(el, 1); j < len(el) && el[j] != ']'; {
		end, _ := skimValue(el, j, 0)
		dst = append(dst, [2]int{j, end})
		j, _, _ = skimNext(el, end, ']')
	}
	return dst
}
