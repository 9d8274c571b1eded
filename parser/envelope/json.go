package envelope

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// docSpec says where the records of a JSON envelope are: the top level is
// an array of record objects, an object holding them under one of members,
// or (JSON Lines, or objects one after another) a record object itself.
type docSpec struct {
	fields  *fieldMap
	members []member
}

// member is a path of member names from the top-level object to an array
// of records or of groups of records.
type member struct {
	path  []string
	item  itemKind
	group *group
}

// group is an array element that holds records under items and something
// all of them share under header (Loki's stream labels, a Log Analytics
// table's columns).
type group struct {
	header string
	items  string
}

// itemKind says how an array element becomes a record object.
type itemKind uint8

const (
	itemObject    itemKind = iota // the element is the record object
	itemFieldList                 // [{"field":F,"value":V},…] (CloudWatch Logs Insights)
	itemRow                       // [v1,v2,…] named by the header's [{"name":…}] columns (Log Analytics)
	itemLokiValue                 // ["<ns>","<line>",{metadata}] with the header as "stream"
)

// errBroken unwinds a document walk after a problem that ends it.
var errBroken = errors.New("broken document")

// jsonLines reports whether a JSON sample is JSON Lines: at least two of
// its complete lines, and at least half, are "{…}" starting in column 0
// (a pretty-printed document indents the objects inside it, and its first
// line is "{" or "[" alone). A bad line or a foreign line among them does
// not change the verdict, so it costs only itself.
func jsonLines(s *sample) bool {
	n, objs := 0, 0
	for i, l := range s.lines {
		if s.cut && i == len(s.lines)-1 {
			break
		}
		n++
		t := bytes.TrimRight(l, " \t")
		if len(t) >= 2 && t[0] == '{' && t[len(t)-1] == '}' {
			objs++
		}
	}
	return objs >= 2 && objs*2 >= n
}

// decodeJSON reads a JSON envelope: JSON Lines line by line, anything else
// as a stream of documents.
func (spec *docSpec) decodeJSON(d *decoder, br *bufio.Reader) error {
	head, _ := br.Peek(SampleSize)
	workers := 1 // on one goroutine, or on every core (parallel.go)
	if w := lineWorkers(); w > 1 && rawRecords && len(head) >= parallelMinBytes {
		workers = w
	}
	if jsonLines(newSample(head)) {
		if workers > 1 {
			return spec.decodeLinesParallel(d, br, workers)
		}
		return spec.decodeLines(d, br)
	}
	return spec.decodeDocuments(d, br, 1, workers)
}

// decodeLines reads JSON Lines: each line one object (a record, or a
// document such as one CloudWatch page written by jq -c).
func (spec *docSpec) decodeLines(d *decoder, br *bufio.Reader) error {
	lr := newLineReader(d, br, 1)
	for {
		line, ok := lr.nextObject()
		if !ok {
			return lr.err
		}
		if ok, err := spec.rawLine(d, line, lr.n); ok {
			if err != nil {
				return err
			}
			continue
		}
		if err := spec.decodeLine(d, line, lr.n); err != nil {
			return err
		}
	}
}

// walkValue handles one decoded top-level value that starts at line pos.
func (spec *docSpec) walkValue(d *decoder, v any, pos int) error {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if err := spec.item(d, itemObject, e, nil, pos); err != nil {
				return err
			}
		}
		return nil
	case map[string]any:
		found := false
		for _, m := range spec.members {
			v, ok := lookupPath(x, m.path)
			if !ok {
				continue
			}
			found = true
			arr, _ := v.([]any)
			for _, e := range arr {
				if m.group == nil {
					if err := spec.item(d, m.item, e, nil, pos); err != nil {
						return err
					}
					continue
				}
				g, _ := e.(map[string]any)
				for _, it := range asArray(g[m.group.items]) {
					if err := spec.item(d, m.item, it, g[m.group.header], pos); err != nil {
						return err
					}
				}
			}
		}
		if !found {
			return spec.item(d, itemObject, x, nil, pos)
		}
		return nil
	}
	d.problem(pos, "a JSON %s where a record or a document was expected", kindOf(v))
	return nil
}

func asArray(v any) []any {
	a, _ := v.([]any)
	return a
}

// lookupPath follows exact member names.
func lookupPath(obj map[string]any, path []string) (any, bool) {
	var v any = obj
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// item turns one array element into a record and emits it.
func (spec *docSpec) item(d *decoder, kind itemKind, v, header any, pos int) error {
	obj, err := toObject(kind, v, header)
	if err != "" {
		d.problem(pos, "%s", err)
		return nil
	}
	r, ok := spec.fields.record(d, mapObject(obj), pos)
	if !ok {
		return nil
	}
	return d.emit(r)
}

// toObject builds the record object of an element; the string is a
// problem when it cannot.
func toObject(kind itemKind, v, header any) (map[string]any, string) {
	switch kind {
	case itemObject:
		if m, ok := v.(map[string]any); ok {
			return m, ""
		}
		return nil, fmt.Sprintf("a JSON %s where a record object was expected", kindOf(v))
	case itemFieldList:
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Sprintf("a JSON %s where a list of fields was expected", kindOf(v))
		}
		obj := make(map[string]any, len(list))
		for _, e := range list {
			f, _ := e.(map[string]any)
			name, _ := f["field"].(string)
			if name != "" {
				obj[name] = f["value"]
			}
		}
		return obj, ""
	case itemRow:
		row, ok := v.([]any)
		if !ok {
			return nil, fmt.Sprintf("a JSON %s where a row was expected", kindOf(v))
		}
		cols := asArray(header)
		if len(cols) != len(row) {
			return nil, fmt.Sprintf("row has %d values for %d columns", len(row), len(cols))
		}
		obj := make(map[string]any, len(row))
		for i, c := range cols {
			cm, _ := c.(map[string]any)
			if name, _ := cm["name"].(string); name != "" {
				obj[name] = row[i]
			}
		}
		return obj, ""
	case itemLokiValue:
		val, ok := v.([]any)
		if !ok || len(val) < 2 {
			return nil, "a Loki value that is not [timestamp, line, …]"
		}
		obj := map[string]any{"timestamp": val[0], "line": val[1], "stream": header}
		if len(val) > 2 {
			obj["metadata"] = val[2]
		}
		return obj, ""
	}
	return nil, "unknown element kind"
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// tracker passes reads through and keeps the bytes the JSON decoder has
// taken but lineAt has not yet counted, so a record's first line can be
// found from the decoder's offset without keeping the whole input.
type tracker struct {
	r    io.Reader
	buf  []byte
	arr  []byte // the array buf is a window of when fill made it (makeRoom)
	base int64  // input offset of buf[0]
	line int    // line number at base
	err  error  // a read error other than io.EOF

	first int  // number of the input's first line
	nl    int  // newlines read
	last  byte // last byte read
	read  bool // any byte read
}

func (t *tracker) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	if n > 0 {
		t.nl += bytes.Count(p[:n], []byte("\n"))
		t.last, t.read = p[n-1], true
	}
	if err != nil && err != io.EOF {
		t.err = err
	}
	return n, err
}

// lineAt returns the line of the first byte at or after offset off that is
// not white space or a comma, and forgets the bytes before it. Offsets
// must not decrease.
func (t *tracker) lineAt(off int64) int {
	i := int(off - t.base)
	if i < 0 {
		i = 0
	}
	if i > len(t.buf) {
		i = len(t.buf)
	}
	for i < len(t.buf) {
		c := t.buf[i]
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != ',' {
			break
		}
		i++
	}
	t.line += bytes.Count(t.buf[:i], []byte("\n"))
	t.base += int64(i)
	t.buf = t.buf[i:] // the room in front goes when t.buf next grows
	return t.line
}

// lines is the number of the last line read (counting a last line
// without "\n").
func (t *tracker) lines() int {
	n := t.first - 1 + t.nl
	if t.read && t.last != '\n' {
		n++
	}
	return n
}

// decodeDocuments reads JSON values one after another (one document, or
// pages appended to one file); a syntax error ends the value, and reading
// resumes at the next line that starts with "{" or "[".
func (spec *docSpec) decodeDocuments(d *decoder, r io.Reader, firstLine, workers int) error {
	for r != nil {
		t := &tracker{r: r, line: firstLine, first: firstLine}
		dec := json.NewDecoder(t)
		dec.UseNumber()
		w := &walker{spec: spec, d: d, dec: dec, t: t, valStart: -1, workers: workers}
		err := w.values()
		d.st.Lines = max(d.st.Lines, t.lines())
		if t.err != nil {
			return t.err
		}
		if err != errBroken {
			return err
		}
		if w.resume < 0 {
			return nil
		}
		rest := append([]byte(nil), t.buf[w.resume:]...)
		line := t.line + bytes.Count(t.buf[:w.resume], []byte("\n"))
		r, firstLine = d.resync(io.MultiReader(bytes.NewReader(rest), t.r), line)
	}
	return nil
}

// resync skips to the next line of r (whose first line is number line)
// that starts a JSON value, reporting what it skipped.
func (d *decoder) resync(r io.Reader, line int) (io.Reader, int) {
	br := bufio.NewReaderSize(r, 64<<10)
	lr := newLineReader(d, br, line)
	from := 0
	for {
		l, ok := lr.next()
		if !ok {
			if from > 0 {
				skipped(d, from, lr.n)
			}
			return nil, 0
		}
		if len(l) > 0 && (l[0] == '{' || l[0] == '[') && from != 0 {
			skipped(d, from, lr.n-1)
			rest := append(append([]byte(nil), l...), '\n')
			return io.MultiReader(bytes.NewReader(rest), br), lr.n
		}
		if from == 0 {
			from = lr.n
		}
	}
}

func skipped(d *decoder, from, to int) {
	if from == to {
		d.problem(from, "not JSON; skipped")
		return
	}
	d.problem(from, "lines %d-%d are not JSON; skipped", from, to)
}

// walker streams one JSON input with the decoder's tokens, so a large
// export is never held whole: only one record (or one Loki stream's
// labels, one table's columns) at a time.
type walker struct {
	spec *docSpec
	d    *decoder
	dec  *json.Decoder
	t    *tracker
	// resume is the offset in t.buf where reading may go on after a syntax
	// error, or -1 when the input ended.
	resume int
	start  int // line of the record being read
	// off0 is the input offset of the decoder's first byte (negative
	// when the decoder was started on a prefix, see fastArray).
	off0 int64
	// path is the JSON text that leads from the top level to where the
	// decoder is (such as `{"events":[`), ptoks its number of tokens.
	path  []byte
	ptoks int
	// valStart is the input offset where the value decode is reading
	// starts, -1 when decode is not reading one.
	valStart int64
	// workers read the record objects of an array when more than one
	// (json_parallel.go)
	workers int
}

// decode decodes the next value into v, keeping where it starts for fail.
func (w *walker) decode(v *any) error {
	w.valStart = w.off()
	err := w.dec.Decode(v)
	if err == nil {
		w.valStart = -1
	}
	return err
}

// off is the input offset the decoder has read to.
func (w *walker) off() int64 { return w.off0 + w.dec.InputOffset() }

// push adds an opening token to path; pop(m) takes off what was pushed
// since push returned m.
func (w *walker) push(tok string) pathMark {
	m := pathMark{len(w.path), w.ptoks}
	w.path = append(w.path, tok...)
	w.ptoks++
	return m
}

func (w *walker) pop(m pathMark) { w.path, w.ptoks = w.path[:m.n], m.toks }

// pathMark is a length of the walker's path.
type pathMark struct{ n, toks int }

// fail turns a decoding error into a problem and errBroken (or passes a
// read error on).
func (w *walker) fail(err error) error {
	if w.t.err != nil {
		return w.t.err
	}
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		w.resume = -1
		if n := w.t.lines(); w.start > n {
			// cut between two records (after a comma or the opening bracket)
			w.d.cutOff(n, "JSON document cut off after line %d, before its end (truncated?); the records before it were read", n)
		} else {
			w.d.cutOff(n, "JSON document cut off inside the record that starts on line %d (truncated?); the records before it were read", w.start)
		}
	case errors.As(err, &se):
		// Offset is the offending byte (a token error) or the byte after
		// it (a scanner error); either lies on the offending line, as the
		// offending byte is never a newline.
		off := int(w.off0 + se.Offset - w.t.base)
		if w.valStart >= 0 && strings.HasPrefix(se.Error(), "invalid character") {
			// the scanner's offsets in Decode count only the bytes of the
			// values decoded: find the offending byte by scanning the
			// value again
			i := max(int(w.valStart-w.t.base), 0)
			for i < len(w.t.buf) && (isSpace(w.t.buf[i]) || w.t.buf[i] == ':' || w.t.buf[i] == ',') {
				i++
			}
			var again *json.SyntaxError
			if errors.As(json.Unmarshal(w.t.buf[i:], new(any)), &again) {
				off = i + int(again.Offset)
			}
		}
		if off < 0 {
			off = 0
		}
		if off > len(w.t.buf) {
			off = len(w.t.buf)
		}
		line := w.t.line + bytes.Count(w.t.buf[:off], []byte("\n"))
		w.d.problem(line, "invalid JSON (%v) in the value that starts on line %d", err, w.start)
		// Go on after the line with the error (reading up to its end: the
		// decoder is done with the input).
		for {
			if i := bytes.IndexByte(w.t.buf[off:], '\n'); i >= 0 {
				w.resume = off + i + 1
				break
			}
			if !w.t.fill() {
				w.resume = len(w.t.buf)
				break
			}
		}
	default:
		w.resume = -1
		w.d.problem(w.t.lines(), "invalid JSON: %v", err)
	}
	return errBroken
}

// values reads top-level values until the input ends.
func (w *walker) values() error {
	for {
		off := w.off()
		tok, err := w.dec.Token()
		w.start = w.t.lineAt(off) // once the value's first byte is read
		if err == io.EOF {
			w.resume = -1
			return nil
		}
		if err != nil {
			return w.fail(err)
		}
		switch tok {
		case json.Delim('['):
			n := w.push("[")
			err = w.array(itemObject, nil)
			w.pop(n)
		case json.Delim('{'):
			n := w.push("{")
			err = w.object(w.spec.members, 0)
			w.pop(n)
		default:
			w.d.problem(w.start, "a JSON %s where a record or a document was expected", kindOf(tok))
		}
		if err != nil {
			return err
		}
	}
}

// object reads the rest of an object whose "{" was read. members are the
// container paths still possible at this depth; when none of them is
// present at the top level the object is a record itself.
func (w *walker) object(members []member, depth int) error {
	pos := w.start
	var obj map[string]any
	if depth == 0 {
		obj = map[string]any{}
	}
	found := false
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(err)
		}
		key, _ := tok.(string)
		var next []member
		for _, m := range members {
			if len(m.path) > depth && m.path[depth] == key {
				next = append(next, m)
			}
		}
		if len(next) > 0 {
			q, _ := json.Marshal(key)
			n := w.push(string(q) + ":")
			err := w.descend(next, depth+1)
			w.pop(n)
			if err != nil {
				return err
			}
			found = true
			continue
		}
		var v any
		if err := w.decode(&v); err != nil {
			return w.fail(err)
		}
		if obj != nil {
			obj[key] = v
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	if depth == 0 && !found {
		return w.spec.item(w.d, itemObject, obj, nil, pos)
	}
	return nil
}

// descend reads the value of a member on the way to records.
func (w *walker) descend(members []member, depth int) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(err)
	}
	for _, m := range members {
		if len(m.path) == depth {
			if tok != json.Delim('[') {
				w.d.problem(w.t.lineAt(w.off()), "member %q is not an array", m.path[depth-1])
				return w.skipRest(tok)
			}
			if m.group != nil {
				return w.groups(m)
			}
			n := w.push("[")
			defer w.pop(n)
			return w.array(m.item, nil)
		}
	}
	if tok != json.Delim('{') {
		return w.skipRest(tok)
	}
	n := w.push("{")
	defer w.pop(n)
	return w.object(members, depth)
}

// skipRest skips the rest of a value whose first token was tok.
func (w *walker) skipRest(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return w.fail(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// element decodes the next element of the array being read, with w.start
// set to the line of its first byte (known once that byte is read).
func (w *walker) element() (any, error) {
	off := w.off()
	var v any
	err := w.decode(&v)
	w.start = w.t.lineAt(off)
	if err != nil {
		return nil, w.fail(err)
	}
	return v, nil
}

// array reads the elements of an array whose "[" was read as records.
func (w *walker) array(kind itemKind, header any) error {
	if kind == itemObject && rawRecords {
		var err error
		if w.workers > 1 {
			err = w.fastObjectsParallel()
		} else {
			err = w.fastArray('{', func(el []byte, pos int) error {
				return w.spec.rawItem(w.d, el, w.d.fields, pos)
			})
		}
		if err != nil {
			return err
		}
	}
	if kind == itemFieldList && rawRecords {
		err := w.fastArray('[', func(el []byte, pos int) error {
			return w.spec.rawFieldList(w.d, el, pos)
		})
		if err != nil {
			return err
		}
	}
	for w.dec.More() {
		v, err := w.element()
		if err != nil {
			return err
		}
		if err := w.spec.item(w.d, kind, v, header, w.start); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	return nil
}

// groups reads an array of groups (Loki streams, Log Analytics tables).
// Items met before their group's header are kept until it comes.
func (w *walker) groups(m member) error {
	defer w.pop(w.push("["))
	for w.dec.More() {
		off := w.off()
		tok, err := w.dec.Token()
		w.start = w.t.lineAt(off)
		if err != nil {
			return w.fail(err)
		}
		if tok != json.Delim('{') {
			w.d.problem(w.start, "a JSON %s where a group object was expected", kindOf(tok))
			if err := w.skipRest(tok); err != nil {
				return err
			}
			continue
		}
		n := w.push("{")
		var header any
		haveHeader := false
		type held struct {
			v   any
			pos int
		}
		var early []held
		for w.dec.More() {
			tok, err := w.dec.Token()
			if err != nil {
				return w.fail(err)
			}
			switch key, _ := tok.(string); key {
			case m.group.header:
				if err := w.decode(&header); err != nil {
					return w.fail(err)
				}
				haveHeader = true
			case m.group.items:
				tok, err := w.dec.Token()
				if err != nil {
					return w.fail(err)
				}
				if tok != json.Delim('[') {
					w.d.problem(w.start, "member %q is not an array", key)
					if err := w.skipRest(tok); err != nil {
						return err
					}
					continue
				}
				q, _ := json.Marshal(key)
				nv := w.push(string(q) + ":")
				w.push("[")
				if haveHeader && m.item == itemLokiValue && rawRecords {
					stream := newStreamFields(header)
					err := w.fastArray('[', func(el []byte, pos int) error {
						return w.spec.rawLokiValue(w.d, el, stream, pos)
					})
					if err != nil {
						return err
					}
				}
				if haveHeader && m.item == itemRow && rawRecords {
					cols := newRowColumns(header)
					err := w.fastArray('[', func(el []byte, pos int) error {
						return w.spec.rawRow(w.d, el, cols, header, pos)
					})
					if err != nil {
						return err
					}
				}
				for w.dec.More() {
					v, err := w.element()
					if err != nil {
						return err
					}
					if !haveHeader {
						early = append(early, held{v, w.start})
						continue
					}
					if err := w.spec.item(w.d, m.item, v, header, w.start); err != nil {
						return err
					}
				}
				if _, err := w.dec.Token(); err != nil {
					return w.fail(err)
				}
				w.pop(nv)
			default:
				var skip any
				if err := w.decode(&skip); err != nil {
					return w.fail(err)
				}
			}
		}
		if _, err := w.dec.Token(); err != nil {
			return w.fail(err)
		}
		w.pop(n)
		for _, h := range early {
			if err := w.spec.item(w.d, m.item, h.v, header, h.pos); err != nil {
				return err
			}
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return w.fail(err)
	}
	return nil
}
