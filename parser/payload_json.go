package parser

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/swar"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// looksJSONLog reports whether payload is a --logging-format=json line: an
// object whose first keys include "ts" (zap's order puts it first) or "msg".
func looksJSONLog(p []byte) bool {
	if len(p) < 8 || p[0] != '{' {
		return false
	}
	if string(p[1:1+len(tsKey)]) == string(tsKey) {
		return true // the "ts" key first, as the JSON logger writes it
	}
	head := p[:min(len(p), 96)]
	return bytes.Contains(head, tsKey) || bytes.Contains(p, []byte(`"msg":`))
}

// jsonTS reads the "ts" value (float milliseconds since the epoch) without
// decoding the whole object.
func jsonTS(p []byte) (time.Time, bool) {
	num, other, found := jsonTSNumber(p)
	if !found {
		return time.Time{}, false
	}
	if ms, ns, ok := decimalMillis(num, other); ok {
		t := time.UnixMilli(ms).Add(time.Duration(ns)).UTC()
		return t, plausibleYear(t.Year())
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e15 {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f / 1000)
	t := time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	return t, plausibleYear(t.Year())
}

// tsKey is "ts": in a JSON log line; --logging-format=json writes it first.
var tsKey = []byte(`"ts":`)

// jsonTSNumber returns the text of the number after the first "ts": of p
// (its digits, dots, exponent and sign characters) and whether it has an
// exponent or a sign (other).
func jsonTSNumber(p []byte) (num []byte, other, found bool) {
	i := 1 // {"ts":… first, as the JSON logger writes it
	if len(p) < 1+len(tsKey) || p[0] != '{' || string(p[1:1+len(tsKey)]) != string(tsKey) {
		if i = bytes.Index(p, tsKey); i < 0 {
			return nil, false, false
		}
	}
	v := p[i+len(tsKey):]
	j := 0
	for ; j < len(v); j++ {
		c := v[j]
		if isDigit(c) || c == '.' {
			continue
		}
		if c != 'e' && c != 'E' && c != '+' && c != '-' {
			break
		}
		other = true
	}
	return v[:j], other, true
}

// decimalMillis decodes num, a "ts" without exponent or sign, exactly:
// float64 cannot hold 13 digits of milliseconds plus 6 of nanoseconds. ns
// is the part of a millisecond (its first six decimals). ok is false when
// the number is not of that form (jsonTS then parses it as a float).
func decimalMillis(num []byte, other bool) (ms, ns int64, ok bool) {
	dot := bytes.IndexByte(num, '.')
	if other || dot == 0 {
		return 0, 0, false
	}
	intPart, frac := num, []byte(nil)
	if dot > 0 {
		intPart, frac = num[:dot], num[dot+1:]
	}
	ms, ok = parseMillis(intPart)
	if !ok || ms > 1e15 {
		return 0, 0, false
	}
	return ms, fracNanos(frac), true
}

// fracNanos reads the first six digits of a millisecond fraction as
// nanoseconds (missing ones, and any byte that is not a digit, as 0).
func fracNanos(frac []byte) (ns int64) {
	for i := 0; i < 6; i++ {
		ns *= 10
		if i < len(frac) && isDigit(frac[i]) {
			ns += int64(frac[i] - '0')
		}
	}
	return ns
}

// plausibleMillis is the range of decimalMillis's ms (half open) whose time
// has a plausible year: jsonTS's test without building the time, for the
// runs of plain JSON lines.
var plausibleMillis = [2]int64{
	time.Date(minPlausibleYear, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
	time.Date(maxPlausibleYear+1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(),
}

// parseMillis is strconv.ParseInt(string(d), 10, 64) for a run of ASCII
// digits d, without the conversion for the common short case.
func parseMillis(d []byte) (int64, bool) {
	if len(d) == 0 || len(d) > 18 {
		n, err := strconv.ParseInt(string(d), 10, 64)
		return n, err == nil
	}
	n := int64(0)
	for _, c := range d {
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// decodeJSONLog fills rec from one JSON log line: Msg, KV (in order, duplicate
// keys kept, strings unquoted, other values as raw JSON), Level ('I' when "v"
// is present, 'E' otherwise: Error lines carry no "v"), File (caller basename).
func decodeJSONLog(p []byte, rec *record) error {
	kvs, _, err := decodeJSONLogPairs(p, "", rec, rec.KV, nil)
	rec.KV = kvs
	return err
}

// decodeJSONLogPairs is decodeJSONLog with s, when not "", the line as a
// string (string(p)), whose parts the decoded strings then are, and with
// the pairs appended to dst and returned, rec.KV left alone: nothing rec
// holds then points at dst, which may lie on the caller's stack
// (jsonEmitIn). fast reports that the line
// had the common shape (decodeJSONLogFast). arena, when not nil, takes the
// strings unescaped (jsonLine.unescape).
func decodeJSONLogPairs(p []byte, s string, rec *record, dst []kv, arena *[]byte) (kvs []kv, fast bool, err error) {
	if kvs, ok := decodeJSONLogFastTo(p, s, rec, dst, arena); ok {
		return kvs, true, nil
	}
	var slow record
	err = decodeJSONLogSlow(p, &slow)
	rec.Msg, rec.File, rec.Level = slow.Msg, slow.File, slow.Level
	return append(dst, slow.KV...), false, err
}

// decodeJSONLogSlow is decodeJSONLog with encoding/json's Decoder: the
// definition of its result (and of its errors).
func decodeJSONLogSlow(p []byte, rec *record) error {
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return errNotObject
	}
	hasV := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		val := string(raw)
		if len(raw) > 0 && raw[0] == '"' {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				val = s
			}
		}
		switch key {
		case "msg":
			rec.Msg = strings.TrimSpace(val)
			continue
		case "ts":
			continue
		case "caller":
			rec.File = fileBase(val)
			continue
		case "v":
			hasV = true
		}
		rec.KV = append(rec.KV, kv{Key: key, Value: val})
	}
	if hasV {
		rec.Level = 'I'
	} else {
		rec.Level = 'E'
	}
	return nil
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

const errNotObject = jsonError("not a JSON object")

// decodeJSONLogFast is decodeJSONLogSlow for the common shape of a
// --logging-format=json line: a compact object (no blanks between tokens),
// keys and top-level string values with valid UTF-8 and only the short
// escapes (\" \\ \/ \b \f \n \r \t), strict JSON numbers and literals, nested
// values up to a small depth. For such a line it fills rec exactly as
// decodeJSONLogSlow would (which then returns nil) and reports true; for
// any other line it leaves rec untouched and reports false.
//
// Keys and values without escapes are substrings of one copy of the line
// (jsonLine).
func decodeJSONLogFast(p []byte, rec *record) bool {
	kvs, ok := decodeJSONLogFastTo(p, "", rec, rec.KV, nil)
	if ok {
		rec.KV = kvs
	}
	return ok
}

// decodeJSONLogFastTo is decodeJSONLogFast taking s, when not "", as the
// copy of p its strings are parts of, with the pairs appended to dst and
// returned (see decodeJSONLogPairs), rec.KV left alone; on false, dst is
// returned as it came (only its spare room may have been written). arena
// is jsonLine's.
func decodeJSONLogFastTo(p []byte, s string, rec *record, dst []kv, arena *[]byte) ([]kv, bool) {
	if len(p) < 2 || p[0] != '{' || p[1] != '"' {
		return dst, false
	}
	var d jsonFields
	line := jsonLine{p: p, s: s, arena: arena}
	kvs := dst
	i := 1
	for {
		key, ni, ok := jsonFastString(p, i, &line)
		if !ok || ni >= len(p) || p[ni] != ':' {
			return dst, false
		}
		vs := ni + 1
		var (
			val string
			ve  int
		)
		if vs < len(p) && p[vs] == '"' {
			// where jsonSkipValue accepts a string, jsonFastString
			// ends it at the same quote, or refuses it
			val, ve, ok = jsonFastString(p, vs, &line)
		} else if ve, ok = jsonSkipValue(p, vs, 0); ok {
			val = line.text(vs, ve)
		}
		if !ok || ve >= len(p) {
			return dst, false
		}
		kvs = d.take(key, val, kvs)
		next, done, ok := afterValue(p, ve)
		if done {
			break
		}
		if !ok {
			return dst, false
		}
		i = next
	}
	d.fill(rec)
	return kvs, true
}

// afterValue reads what follows a value of a line's top object that ends
// at p[ve]: the closing brace (done), or a comma and the next key's quote
// (next); ok is false for anything else.
func afterValue(p []byte, ve int) (next int, done, ok bool) {
	switch {
	case p[ve] == '}':
		return 0, true, true
	case p[ve] == ',' && ve+1 < len(p) && p[ve+1] == '"':
		return ve + 1, false, true
	}
	return 0, false, false
}

// jsonFields is what decodeJSONLogFast keeps of a line's pairs besides KV.
type jsonFields struct {
	msg, file             string
	msgSet, fileSet, hasV bool
}

// take files one pair: "msg" (trimmed), "caller" (its file basename), "ts"
// (dropped) or, appended to kvs, any other.
func (d *jsonFields) take(key, val string, kvs []kv) []kv {
	switch key {
	case "msg":
		d.msg, d.msgSet = strings.TrimSpace(val), true
	case "ts":
	case "caller":
		d.file, d.fileSet = fileBase(val), true
	default:
		if key == "v" {
			d.hasV = true
		}
		kvs = append(kvs, kv{Key: key, Value: val})
	}
	return kvs
}

// fill sets rec's Msg and File (when the line had them) and its Level.
func (d *jsonFields) fill(rec *record) {
	if d.msgSet {
		rec.Msg = d.msg
	}
	if d.fileSet {
		rec.File = d.file
	}
	if d.hasV {
		rec.Level = 'I'
	} else {
		rec.Level = 'E'
	}
}

// jsonLine gives out the text of parts of the JSON line p as substrings of
// one copy of p, made when first needed, and the strings with escapes
// decoded: each a new allocation, or, with an arena, appended to it (the
// decode-ahead workers: a block's arena is reused once the block is
// applied, when nothing points into the block's bytes either).
type jsonLine struct {
	p     []byte
	s     string
	arena *[]byte
}

// text returns p[a:b] as a string.
func (l *jsonLine) text(a, b int) string {
	if l.s == "" {
		l.s = string(l.p)
	}
	return l.s[a:b]
}

// jsonFastString decodes the JSON string whose opening quote is at p[i]
// when it is valid UTF-8 with only short escapes; it returns the string
// (a substring of line when it has no escape) and the offset after the
// closing quote.
func jsonFastString(p []byte, i int, line *jsonLine) (string, int, bool) {
	q, esc, u, high, ok := jsonScanString(p, i)
	start := i + 1
	if !ok || u || high && !utf8.Valid(p[start:q]) {
		return "", 0, false
	}
	if !esc {
		return line.text(start, q), q + 1, true
	}
	if line.arena != nil {
		a := *line.arena
		n := len(a)
		a = appendUnescaped(a, p[start:q])
		*line.arena = a
		return unsafe.String(unsafe.SliceData(a[n:]), len(a)-n), q + 1, true // a[n:] is never written again until the arena is reused
	}
	return unescapeShort(p[start:q]), q + 1, true
}

// unescapeShort decodes the body of a JSON string whose escapes are all
// short ones (\" \\ \/ \b \f \n \r \t), as jsonScanString checked.
func unescapeShort(v []byte) string {
	b := appendUnescaped(make([]byte, 0, len(v)), v)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
}

// appendUnescaped appends the body of a JSON string with short escapes
// only, decoded, to b (unescapeShort).
func appendUnescaped(b, v []byte) []byte {
	for {
		i := bytes.IndexByte(v, '\\')
		if i < 0 {
			b = append(b, v...)
			break
		}
		b = append(b, v[:i]...)
		c := v[i+1]
		switch c {
		case 'b':
			c = '\b'
		case 'f':
			c = '\f'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 't':
			c = '\t'
		}
		b = append(b, c)
		v = v[i+2:]
	}
	return b
}

// fileBase reduces a caller ("dir/file.go:123") to its file basename.
func fileBase[S ~string | ~[]byte](f S) S {
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == ':' {
			f = f[:i]
			break
		}
	}
	for i := len(f) - 1; i >= 0; i-- {
		if f[i] == '/' {
			return f[i+1:]
		}
	}
	return f
}

// jsonScanString reads the JSON string whose opening quote is at p[i] and
// returns the index q of its closing quote; esc tells whether it has
// escapes, u whether one of them is \u, high whether it has a byte of 0x80
// or more (its UTF-8 is not checked). ok is false when p[i:] does not start
// with a JSON string: no quote, a control byte, a bad escape, no end.
//
// It reads eight bytes at a time while none of them is special: a quote, a
// backslash, a control byte or a byte of 0x80 or more; then goes straight
// to the first special byte (stepping to it a byte at a time, each step
// loading the same word again, was a quarter of decoding a JSON log's
// relevant lines, whose messages quote their names: \"pvc-…\").
func jsonScanString(p []byte, i int) (q int, esc, u, high, ok bool) {
	if i >= len(p) || p[i] != '"' {
		return 0, false, false, false, false
	}
	for j := i + 1; ; j++ {
		for j+8 <= len(p) {
			if m := swar.NotPlainJSON(binary.LittleEndian.Uint64(p[j:])); m != 0 {
				j += swar.First(m) // the special byte itself, not the word's first
				break
			}
			j += 8
		}
		if j >= len(p) {
			return 0, false, false, false, false
		}
		switch c := p[j]; {
		case c == '"':
			return j, esc, u, high, true
		case c < 0x20:
			return 0, false, false, false, false
		case c >= utf8.RuneSelf:
			high = true
		case c == '\\':
			esc = true
			j++
			if j >= len(p) {
				return 0, false, false, false, false
			}
			switch p[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p) || !isHex(p[j+1]) || !isHex(p[j+2]) || !isHex(p[j+3]) || !isHex(p[j+4]) {
					return 0, false, false, false, false
				}
				u = true
				j += 4
			default:
				return 0, false, false, false, false
			}
		}
	}
}

// jsonSkipValue returns the end of the compact, valid JSON value at p[i]
// (see decodeJSONLogFast); ok is false for anything else.
func jsonSkipValue(p []byte, i, depth int) (int, bool) {
	return jsonSkipValueWith(p, i, depth, jsonStringEnd)
}

// jsonStringEnd returns the end of the JSON string at p[i] (after its
// closing quote), or ok false.
func jsonStringEnd(p []byte, i int) (int, bool) {
	q, _, _, _, ok := jsonScanString(p, i)
	return q + 1, ok
}

// jsonSkipValueWith is jsonSkipValue with the strings, keys and values,
// read by stringEnd.
func jsonSkipValueWith(p []byte, i, depth int, stringEnd func(p []byte, i int) (int, bool)) (int, bool) {
	if i >= len(p) || depth > 32 {
		return 0, false
	}
	switch c := p[i]; {
	case c == '"':
		if e, ok := stringEnd(p, i); ok {
			return e, true
		}
		return 0, false
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		i++
		if i < len(p) && p[i] == end {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(p) || p[i] != '"' {
					return 0, false
				}
				k, ok := jsonSkipValueWith(p, i, depth+1, stringEnd)
				if !ok || k >= len(p) || p[k] != ':' {
					return 0, false
				}
				i = k + 1
			}
			k, ok := jsonSkipValueWith(p, i, depth+1, stringEnd)
			if !ok || k >= len(p) {
				return 0, false
			}
			switch p[k] {
			case end:
				return k + 1, true
			case ',':
				i = k + 1
			default:
				return 0, false
			}
		}
	case c == 't':
		return literalEnd(p, i, "true")
	case c == 'f':
		return literalEnd(p, i, "false")
	case c == 'n':
		return literalEnd(p, i, "null")
	case c == '-' || isDigit(c):
		j := i
		if p[j] == '-' {
			j++
		}
		switch {
		case j < len(p) && p[j] == '0':
			j++
		case j < len(p) && p[j] >= '1' && p[j] <= '9':
			for j < len(p) && isDigit(p[j]) {
				j++
			}
		default:
			return 0, false
		}
		if j < len(p) && p[j] == '.' {
			j++
			if j >= len(p) || !isDigit(p[j]) {
				return 0, false
			}
			for j < len(p) && isDigit(p[j]) {
				j++
			}
		}
		if j < len(p) && (p[j] == 'e' || p[j] == 'E') {
			j++
			if j < len(p) && (p[j] == '+' || p[j] == '-') {
				j++
			}
			if j >= len(p) || !isDigit(p[j]) {
				return 0, false
			}
			for j < len(p) && isDigit(p[j]) {
				j++
			}
		}
		return j, true
	}
	return 0, false
}

func literalEnd(p []byte, i int, lit string) (int, bool) {
	if len(p)-i >= len(lit) && string(p[i:i+len(lit)]) == lit {
		return i + len(lit), true
	}
	return 0, false
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// This file owns turning a klog JSON entry into an event (jsonEmit,
// emitJSON).

// jsonEmit decodes and classifies the JSON entry buf.
func jsonEmit(buf []byte) emitResult { return jsonEmitArena(buf, nil) }

// jsonEmitArena is jsonEmit with the strings unescaped in decoding a view
// of buf appended to arena when not nil (jsonLine): they then live as long
// as buf's bytes, and addEvent copies them with the rest.
func jsonEmitArena(buf []byte, arena *[]byte) emitResult {
	if bytes.HasSuffix(buf, []byte("\n")) || !utf8.Valid(buf) {
		return jsonEmitIn(buf, "", false, nil)
	}
	// Most lines classified are no event: decode a view of buf (as
	// klogEmit does; addEvent copies what an event keeps)
	if r := jsonEmitIn(buf, unsafe.String(unsafe.SliceData(buf), len(buf)), true, arena); r.err == nil && r.panicV == nil {
		return r
	}
	// an error or a panic value may keep parts of the text: on a copy
	return jsonEmitIn(buf, string(buf), false, nil)
}

// jsonEmitIn decodes and classifies the JSON line buf. text is buf as a
// string ("" when it needs sanitizing); the decoded strings are parts of
// it, and so is the event's text. When text is a view of buf (view), the
// event's text is a copy and the event's strings are moved onto it.
func jsonEmitIn(buf []byte, text string, view bool, arena *[]byte) (r emitResult) {
	// the pairs are decoded into a buffer on the stack (a line rarely has
	// more), which rec never points at, so that it stays there
	var (
		rec   record
		pairs [16]kv
	)
	kvs, fast, err := decodeJSONLogPairs(buf, text, &rec, pairs[:0], arena)
	// jsonFromInformerPlumbing, looked for only where it may hold: a
	// line of the common shape that is plumbing has its one "caller"
	// key as written, so its File names that file (and most lines'
	// files are none of plumbing's)
	r.plumbing = (!fast || classifier.IsInformerPlumbing(rec.File)) && jsonFromInformerPlumbing(buf)
	if err != nil {
		r.err = err
		return r
	}
	r.ev, r.ok, r.panicV = classifyPairsGuarded(&rec, kvs)
	if !r.ok {
		r.ev = Draft{}
		return r
	}
	switch {
	case view:
		r.text = text
	case text == "":
		r.text = sanitizeText(buf)
	default:
		r.text = text
	}
	if r.ev.Level == 0 {
		r.ev.Level = rec.Level
	}
	if r.ev.PID == 0 {
		r.ev.PID = Int32(rec.PID)
	}
	return r
}

// emitJSON is emit for a JSON entry: it uses the entry's spec when the
// spec's text is exactly the entry's.
func (sc *scanner) emitJSON(e *entry) bool {
	r, event := e.result(jsonEmit)
	if !event || sc.failed(r, e.line) {
		return false
	}
	st := sc.st
	ev := r.ev
	sc.finishEvent(&ev, e)
	st.addPrepared(&ev, absMeta(e.abs), r.text, r.prepFor(&ev))
	return true
}
