package envelope

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/internal/swar"
)

// This file is the raw-bytes side of the JSON engine: a validating skimmer
// that finds where a JSON value ends without decoding it, and rawObject,
// a record object read straight from its bytes (only the fields the
// fieldMap asks for are decoded, each on its own). The document walker and
// the JSON Lines reader use them for record objects; anything the skimmer
// does not take (invalid JSON, a value cut by the end of the input, keys
// with escapes) goes to encoding/json as before, so problems and their
// lines are the same.

// skimMaxDepth is the deepest nesting the skimmer follows; deeper values
// go to encoding/json (which has its own limit and message).
const skimMaxDepth = 512

// skim results.
const (
	skimOK    = iota
	skimBad   // not valid JSON (or deeper than skimMaxDepth)
	skimShort // the value runs past the end of the bytes
)

// isSpace is JSON white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skimValue returns the end of the JSON value that starts at b[i] (no
// white space before it).
func skimValue(b []byte, i, depth int) (end int, res int) {
	if i >= len(b) {
		return i, skimShort
	}
	switch c := b[i]; {
	case c == '"':
		end, _, res = skimString(b, i)
		return end, res
	case c == '{':
		return skimObject(b, i, depth, nil)
	case c == '[':
		if depth >= skimMaxDepth {
			return i, skimBad
		}
		j := skipSpace(b, i+1)
		if j < len(b) && b[j] == ']' {
			return j + 1, skimOK
		}
		for {
			var r int
			if j, r = skimValue(b, j, depth+1); r != skimOK {
				return j, r
			}
			var more bool
			if j, more, r = skimNext(b, j, ']'); !more {
				return j, r
			}
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return skimNumber(b, i)
	case c == 't':
		return skimLiteral(b, i, "true")
	case c == 'f':
		return skimLiteral(b, i, "false")
	case c == 'n':
		return skimLiteral(b, i, "null")
	}
	return i, skimBad
}

func skimLiteral(b []byte, i int, lit string) (int, int) {
	n := min(len(b)-i, len(lit))
	if string(b[i:i+n]) != lit[:n] {
		return i, skimBad
	}
	if n < len(lit) {
		return i, skimShort
	}
	return i + n, skimOK
}

// skimNumber checks JSON number grammar. A number that reaches the end of
// b is short: more digits may follow.
func skimNumber(b []byte, i int) (int, int) {
	j := i
	if b[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		return j - k
	}
	if j >= len(b) {
		return j, skimShort
	}
	if b[j] == '0' {
		j++
	} else if digits() == 0 {
		return j, skimBad
	}
	if j < len(b) && b[j] == '.' {
		j++
		if digits() == 0 {
			if j >= len(b) {
				return j, skimShort
			}
			return j, skimBad
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if digits() == 0 {
			if j >= len(b) {
				return j, skimShort
			}
			return j, skimBad
		}
	}
	if j >= len(b) {
		return j, skimShort
	}
	return j, skimOK
}

// skimString returns the end of the string whose '"' is b[i] and whether
// it holds an escape.
func skimString(b []byte, i int) (end int, esc bool, res int) {
	j := i + 1
	for {
		j = stringStop(b, j)
		if j >= len(b) {
			return j, esc, skimShort
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, esc, skimOK
		case c == '\\':
			esc = true
			if j+1 >= len(b) {
				return j, esc, skimShort
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return j, esc, skimShort
				}
				for _, h := range b[j+2 : j+6] {
					if !isHex(h) {
						return j, esc, skimBad
					}
				}
				j += 6
			default:
				return j, esc, skimBad
			}
		default: // a control character
			return j, esc, skimBad
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// stringStop returns the index of the first '"', '\\' or control byte at
// or after j (len(b) when there is none), eight bytes at a time.
func stringStop(b []byte, j int) int {
	for ; j+16 <= len(b); j += 16 { // two words a round: one branch
		m0, m1 := swar.JSONStops(binary.LittleEndian.Uint64(b[j:])), swar.JSONStops(binary.LittleEndian.Uint64(b[j+8:]))
		if m0|m1 != 0 {
			if m0 != 0 {
				return j + swar.First(m0)
			}
			return j + 8 + swar.First(m1)
		}
	}
	for ; j+8 <= len(b); j += 8 {
		if m := swar.JSONStops(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + swar.First(m)
		}
	}
	for ; j < len(b); j++ {
		if c := b[j]; c == '"' || c == '\\' || c < 0x20 {
			return j
		}
	}
	return j
}

// rawField is one member of a skimmed object: its key's bytes (without
// the quotes) and its value's span.
type rawField struct {
	key      []byte
	keyEsc   bool
	from, to int
}

// skimObject returns the end of the object whose '{' is b[i], appending
// its members to *fields when fields is not nil.
func skimObject(b []byte, i, depth int, fields *[]rawField) (int, int) {
	if depth >= skimMaxDepth {
		return i, skimBad
	}
	j := skipSpace(b, i+1)
	if j < len(b) && b[j] == '}' {
		return j + 1, skimOK
	}
	for {
		if j >= len(b) {
			return j, skimShort
		}
		if b[j] != '"' {
			return j, skimBad
		}
		k, esc, r := skimString(b, j)
		if r != skimOK {
			return k, r
		}
		key := b[j+1 : k-1]
		j = skipSpace(b, k)
		if j >= len(b) {
			return j, skimShort
		}
		if b[j] != ':' {
			return j, skimBad
		}
		from := skipSpace(b, j+1)
		to, r := skimValue(b, from, depth+1)
		if r != skimOK {
			return to, r
		}
		if fields != nil {
			*fields = append(*fields, rawField{key: key, keyEsc: esc, from: from, to: to})
		}
		var more bool
		if j, more, r = skimNext(b, to, '}'); !more {
			return j, r
		}
	}
}

// skimNext reads what follows a member or an element at b[j]: a comma
// (more is true, j the start of the next one) or the closing byte (the
// container ends after it, res skimOK).
func skimNext(b []byte, j int, closing byte) (next int, more bool, res int) {
	j = skipSpace(b, j)
	switch {
	case j >= len(b):
		return j, false, skimShort
	case b[j] == ',':
		return skipSpace(b, j+1), true, skimOK
	case b[j] == closing:
		return j + 1, false, skimOK
	}
	return j, false, skimBad
}

// rawObject is a record object read from its bytes: b is a valid JSON
// object and fields its members. lookup decodes only the value asked
// for; the message chosen for skimming (skimPath) is given as its head.
type rawObject struct {
	b        []byte
	fields   []rawField
	skimPath string
	skimHead string
	// plan, when set, is where the paths of its fieldMap are in this
	// record (its layout matched), with the nested fields in sc.
	plan *fieldPlan
	sc   *planScratch
	next int       // the plan entry likely asked for next
	c    *rawCache // kept from record to record; nil for none
}

// rawCache is what a decoder's rawObjects keep from record to record.
type rawCache struct {
	// last is the last string without escapes read at each of a few
	// paths: a label repeats from record to record (a stream name), and
	// is then not allocated again.
	last [8]struct{ path, s string }
	// labelSet is the last label-set string parsed (VictoriaLogs'
	// _stream, as written, escapes and all) and what it gave.
	zulu     zuluSecond
	labelSet struct {
		raw    []byte
		labels Labels
		ok     bool
	}
}

// str is the string whose raw contents are v, read at path.
func (o *rawObject) str(path string, v []byte) string {
	if bytes.IndexByte(v, '\\') >= 0 || o.c == nil {
		return unquote(v)
	}
	last := &o.c.last
	for i := range last {
		if c := &last[i]; c.path == path {
			if c.s != string(v) {
				c.s = unquote(v)
			}
			return c.s
		}
	}
	s := unquote(v)
	for i := range last {
		if c := &last[i]; c.path == "" {
			c.path, c.s = path, s
			break
		}
	}
	return s
}

// simpleKeys reports whether every key is plain ASCII without escapes,
// so keys compare as bytes the way the decoded map's keys would.
func simpleKeys(fields []rawField) bool {
	for _, f := range fields {
		if f.keyEsc {
			return false
		}
		for _, c := range f.key {
			if c >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// rawMember returns the span of the last member called key (a decoded map
// keeps the last of duplicate keys).
func rawMember(b []byte, fields []rawField, key string) (from, to int, ok bool) {
	for i := len(fields) - 1; i >= 0; i-- {
		if string(fields[i].key) == key {
			return fields[i].from, fields[i].to, true
		}
	}
	return 0, 0, false
}

// span finds a dotted path with lookup's rules (the whole remaining path
// as one member first, then each split at a dot into a nested object).
// ok is false when it is absent; bad when a nested object has keys that
// do not compare as bytes (the caller then decodes the record whole).
func span(b []byte, fields []rawField, path string) (from, to int, ok, bad bool) {
	if from, to, ok := rawMember(b, fields, path); ok {
		return from, to, true, false
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		f, t, ok := rawMember(b, fields, path[:i])
		if !ok || b[f] != '{' {
			continue
		}
		var sub []rawField
		skimObject(b, f, 0, &sub)
		if !simpleKeys(sub) {
			return 0, 0, false, true
		}
		sub2 := b[:t]
		if from, to, ok, bad := span(sub2, sub, path[i+1:]); ok || bad {
			return from, to, ok, bad
		}
	}
	return 0, 0, false, false
}

// decodeRaw decodes one JSON value (valid, as skimmed) the way
// encoding/json with UseNumber does into an any.
func decodeRaw(v []byte) any {
	switch v[0] {
	case '"':
		return unquote(v[1 : len(v)-1])
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	case '{', '[':
	default:
		return json.Number(v)
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	_ = dec.Decode(&out) // v was skimmed: valid
	return out
}

func (o *rawObject) field(path string) (string, valueKind) {
	if o.skimPath != "" && path == o.skimPath {
		return o.skimHead, vString
	}
	if e := o.entry(path); e != nil {
		return o.entryValue(e)
	}
	from, to, ok, bad := span(o.b, o.fields, path)
	if bad {
		m, _ := decodeRaw(o.b).(map[string]any)
		return mapObject(m).field(path)
	}
	if !ok {
		return "", vAbsent
	}
	return o.value(path, o.b[from:to])
}

// entry is the plan's entry for path, nil when there is no plan or path
// is not in it. Paths are mostly asked for in the order of the entries.
func (o *rawObject) entry(path string) *planEntry {
	if o.plan == nil {
		return nil
	}
	es := o.plan.entries
	i := o.next
	if i >= len(es) || es[i].path != path {
		j, ok := o.plan.at[path]
		if !ok {
			if strings.IndexByte(path, '.') >= 0 {
				return nil
			}
			e := o.plan.add(path)
			o.next = len(o.plan.entries)
			return e
		}
		i = int(j)
	}
	o.next = i + 1
	return &es[i]
}

// entryValue is field's answer for a plan entry.
func (o *rawObject) entryValue(e *planEntry) (string, valueKind) {
	if o.skimPath != "" && e.path == o.skimPath {
		return o.skimHead, vString
	}
	if e.at.node < 0 {
		return "", vAbsent
	}
	v := o.at(e)
	if v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		if s := v[1 : len(v)-1]; e.last != string(s) {
			e.last = unquote(s)
		}
		return e.last, vString
	}
	return o.value(e.path, v)
}

// firstEntry is first's answer for the paths of a plan's entries es.
func (o *rawObject) firstEntry(es []int32) string {
	for _, i := range es {
		o.next = int(i) + 1
		if s, k := o.entryValue(&o.plan.entries[i]); k.text() && s != "" {
			return s
		}
	}
	return ""
}

// at is the raw value of a plan entry in this record.
func (o *rawObject) at(e *planEntry) []byte {
	f := o.sc.fields[e.at.node][e.at.idx]
	return o.b[f.from:f.to]
}

// raw is the raw value at path (span's ok and bad).
func (o *rawObject) raw(path string) (v []byte, ok, bad bool) {
	if e := o.entry(path); e != nil {
		if e.at.node < 0 {
			return nil, false, false
		}
		return o.at(e), true, false
	}
	from, to, ok, bad := span(o.b, o.fields, path)
	return o.b[from:to], ok, bad
}

// value is the text and kind of the raw value v read at path.
func (o *rawObject) value(path string, v []byte) (string, valueKind) {
	switch v[0] {
	case '"':
		return o.str(path, v[1:len(v)-1]), vString
	case 'n':
		return "", vNull
	case 't':
		return "true", vText
	case 'f':
		return "false", vText
	case '{':
		return "", vOther
	case '[':
		if s, ok := text(decodeRaw(v)); ok {
			return s, vText
		}
		return "", vOther
	}
	return string(v), vText
}

// unquote decodes the contents of a valid JSON string as encoding/json
// does: escapes resolved, a lone surrogate and each byte of invalid UTF-8
// replaced by U+FFFD.
func unquote(s []byte) string {
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s)
	}
	b := make([]byte, 0, len(s))
	// valid UTF-8 (escapes are ASCII, so no run between them is cut
	// inside a character) is copied run by run
	bulk := utf8.Valid(s)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case bulk && c != '\\':
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s) - i
			}
			b = append(b, s[i:i+j]...)
			i += j
		case c == '\\':
			switch e := s[i+1]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s[i+2:])
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
						r2 = hex4(s[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
		}
	}
	return string(b)
}

// hex4 is the value of four hex digits.
func hex4(h []byte) rune {
	var r rune
	for _, c := range h[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// mapObject is a record object decoded by encoding/json.
type mapObject map[string]any

func (m mapObject) field(path string) (string, valueKind) {
	v, ok := lookup(m, path)
	switch {
	case !ok:
		return "", vAbsent
	case v == nil:
		return "", vNull
	}
	if s, ok := v.(string); ok {
		return s, vString
	}
	if s, ok := text(v); ok {
		return s, vText
	}
	return "", vOther
}

// object is a record object as the fieldMap reads it: field gives the
// value at a path (lookup's rules) as text (text's rules) and its kind.
type object interface {
	field(path string) (string, valueKind)
}

// valueKind is what a record object holds at a path.
type valueKind uint8

// The valueKinds.
const (
	vAbsent valueKind = iota
	vNull
	vString // a JSON string
	vText   // a number, a boolean or a byte array: text as written
	vOther  // an object or another array: not text
)

// text reports whether the value is text.
func (k valueKind) text() bool { return k == vString || k == vText }

// str is obj's member key (a name without dots) when it is a string, else
// "".
func str(obj object, key string) string {
	if s, k := obj.field(key); k == vString {
		return s
	}
	return ""
}
