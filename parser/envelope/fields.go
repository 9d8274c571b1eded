package envelope

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// fieldMap is the declarative part of an envelope: where in one record
// object (a decoded JSON object, or one built from columns, rows, an
// Insights field list or an export entry) each Record field is. Each list
// is tried in order; the first present, non-empty value wins. A path is a
// member name or a dotted path ("jsonPayload.message"); at every level the
// whole remaining path is tried as one member name first, so flattened
// names ("kubernetes.pod_name" as one key) work too.
type fieldMap struct {
	time  []timeField
	msg   []string
	level []string
	file  []string
	line  []string
	id    []string
	label [numLabels][]string
	// fix, when set, derives what the paths cannot (a component from a
	// stream name, labels from a "{k="v"}" string); it runs last.
	fix func(obj object, r *Record)
	// full, in a fieldPlan's cut lists, is the fieldMap they were cut
	// from (its names are the ones a problem gives).
	full *fieldMap
}

// timeField is one place a time may be, with how a zone-less text is read.
type timeField struct {
	path  string
	naive TimeSource // TimeUTCByFormat or TimeNoZone: how a text without zone is taken
	unit  time.Duration
	// unit, when set, is the unit of an epoch number (time.Millisecond for
	// CloudWatch); when 0 the unit is taken from the number of digits.
}

// The labels, indexing fieldMap.label.
const (
	lComponent = iota
	lPod
	lNamespace
	lContainer
	lNode
	lHost
	lStream
	lUnit
	numLabels
)

// label returns label i of l.
func label(l *Labels, i int) *string {
	switch i {
	case lComponent:
		return &l.Component
	case lPod:
		return &l.Pod
	case lNamespace:
		return &l.Namespace
	case lContainer:
		return &l.Container
	case lNode:
		return &l.Node
	case lHost:
		return &l.Host
	case lStream:
		return &l.Stream
	case lUnit:
		return &l.Unit
	}
	panic("envelope: no label " + strconv.Itoa(i))
}

// record builds the Record of obj, which starts at line pos. ok is false
// (with a problem) when obj has no message.
func (fm *fieldMap) record(d *decoder, obj object, pos int) (Record, bool) {
	r := Record{Pos: pos}
	msg, found := "", false
	for _, p := range fm.msg {
		if s, k := obj.field(p); k.text() {
			msg, found = s, true
			if s != "" {
				break
			}
		}
	}
	if !found {
		names := fm.msg
		if fm.full != nil {
			names = fm.full.msg
		}
		d.problem(pos, "record without a message (looked for %s)", strings.Join(names, ", "))
		return r, false
	}
	r.Msg = msg
	raw, _ := obj.(*rawObject)
	for _, tf := range fm.time {
		if raw != nil {
			if t, prec, ok := raw.time(tf); ok {
				r.Time, r.TimeSource, r.Precision = t, TimeZoned, prec
				break
			}
		}
		s, k := obj.field(tf.path)
		if k == vAbsent || k == vNull {
			continue
		}
		if t, src, prec, ok := tf.parse(s, k.text()); ok {
			r.Time, r.TimeSource, r.Precision = t, src, prec
			break
		}
		d.problem(pos, "%s %q is not a time", tf.path, clip(s))
	}
	if s := first(obj, fm.level); s != "" {
		r.Level = levelLetter(s)
	}
	r.File = first(obj, fm.file)
	if s := first(obj, fm.line); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			r.Line = n
		}
	}
	r.ID = first(obj, fm.id)
	grouped := false // labels set from the record's group (a Loki value's: its stream's)
	if l, ok := obj.(*lokiValue); ok {
		if ls, ok := l.groupLabels(fm); ok {
			r.Labels, grouped = ls, true
		}
	}
	if !grouped {
		for i, paths := range fm.label {
			var s string
			if raw != nil && raw.plan != nil && raw.plan.lists == fm {
				s = raw.firstEntry(raw.plan.labels[i]) // the same, without looking paths up
			} else {
				s = first(obj, paths)
			}
			if s != "" {
				*label(&r.Labels, i) = s
			}
		}
	}
	if fm.fix != nil {
		// through the decoder's record: &r would move r to the heap
		d.fixRec = r
		fm.fix(obj, &d.fixRec)
		r = d.fixRec
	}
	return r, true
}

// first returns the first non-empty text among paths.
func first(obj object, paths []string) string {
	for _, p := range paths {
		if s, k := obj.field(p); k.text() && s != "" {
			return s
		}
	}
	return ""
}

// lookup finds a dotted path in obj.
func lookup(obj map[string]any, path string) (any, bool) {
	if v, ok := obj[path]; ok {
		return v, true
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		if sub, ok := obj[path[:i]].(map[string]any); ok {
			if v, ok := lookup(sub, path[i+1:]); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// text returns a scalar value as text: strings as they are, numbers as
// written, booleans, and arrays of byte values (journald's form of a
// MESSAGE with control characters or invalid UTF-8) as their bytes.
// Objects, null and other arrays are not text.
func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return string(x), true
	case bool:
		return strconv.FormatBool(x), true
	case []any:
		b := make([]byte, 0, len(x))
		for _, e := range x {
			n, ok := e.(json.Number)
			if !ok {
				return "", false
			}
			i, err := strconv.ParseUint(string(n), 10, 8)
			if err != nil {
				return "", false
			}
			b = append(b, byte(i))
		}
		return string(b), true
	}
	return "", false
}

// clip shortens s for a problem line.
func clip(s string) string {
	if len(s) > 60 {
		s = s[:60]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		return s + "…"
	}
	return s
}

// levelLetter maps a severity word or a syslog priority onto a klog letter.
func levelLetter(s string) byte {
	switch strings.ToLower(s) {
	case "i", "info", "informational", "default", "debug", "notice", "trace", "verbose", "5", "6", "7":
		return 'I'
	case "w", "warn", "warning", "4":
		return 'W'
	case "e", "err", "error", "3":
		return 'E'
	case "f", "fatal", "critical", "crit", "alert", "emergency", "emerg", "panic", "0", "1", "2":
		return 'F'
	}
	return 0
}

// parse reads the text s of a value (isText: a string or a JSON number
// as written) as a time.
func (tf timeField) parse(s string, isText bool) (time.Time, TimeSource, time.Duration, bool) {
	if !isText {
		return time.Time{}, TimeNone, 0, false
	}
	naive := tf.naive
	if naive == TimeNone {
		naive = TimeNoZone
	}
	return parseTime(strings.TrimSpace(s), tf.unit, naive)
}

// parseTime reads an epoch number (unit from its digits when unit is 0:
// up to 11 digits seconds, 14 milliseconds, 17 microseconds, more
// nanoseconds; a decimal fraction is seconds) or a text time: RFC 3339 with
// "T" or " ", a "Z", "+00:00" or "+0000" zone or none (then naive says
// how it is taken), Kibana's "Aug 2, 2024 @ 20:22:44.708" and US
// "7/2/2021 2:38:00 AM" (both naive).
func parseTime(s string, unit time.Duration, naive TimeSource) (time.Time, TimeSource, time.Duration, bool) {
	if s == "" {
		return time.Time{}, TimeNone, 0, false
	}
	if t, prec, ok := parseEpoch(s, unit); ok {
		return t, TimeZoned, prec, true
	}
	if len(s) >= 19 && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == ' ') {
		b := []byte(s)
		b[10] = 'T'
		s = string(b)
		prec := fracPrecision(s, 19)
		rest := s[19:]
		if len(rest) > 0 && rest[0] == '.' {
			j := 1
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			rest = rest[j:]
		}
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "":
			if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.UTC); err == nil {
				return t, naive, prec, true
			}
		case rest == "UTC":
			if t, err := time.ParseInLocation("2006-01-02T15:04:05 UTC", s, time.UTC); err == nil {
				return t, TimeZoned, prec, true
			}
		default:
			for _, layout := range [...]string{"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05 Z07:00", "2006-01-02T15:04:05 Z0700"} {
				if t, err := time.Parse(layout, s); err == nil {
					return t, TimeZoned, prec, true
				}
			}
		}
		return time.Time{}, TimeNone, 0, false
	}
	if i := strings.Index(s, " @ "); i > 0 {
		if t, err := time.ParseInLocation("Jan 2, 2006 @ 15:04:05", s, time.UTC); err == nil {
			return t, naive, fracPrecision(s, i+3+8), true
		}
	}
	if strings.Count(s, "/") == 2 {
		f := strings.Join(strings.Fields(s), " ")
		for _, layout := range [...]string{"1/2/2006 3:04:05 PM", "1/2/2006 3:04 PM", "1/2/2006 15:04:05"} {
			if t, err := time.ParseInLocation(layout, f, time.UTC); err == nil {
				return t, naive, time.Second, true
			}
		}
	}
	return time.Time{}, TimeNone, 0, false
}

// time reads the time at tf's path straight from its bytes when it is an
// epoch number (a JSON number or a string of one) or a zuluTime string,
// as tf.parse reads its text; ok is false for anything else (tf.parse then
// reads the text).
func (o *rawObject) time(tf timeField) (t time.Time, prec time.Duration, ok bool) {
	v, found, bad := o.raw(tf.path)
	if !found || bad || o.skimPath == tf.path {
		return time.Time{}, 0, false
	}
	s := v
	if v[0] == '"' {
		s = v[1 : len(v)-1]
	}
	if n := len(s); n > 0 && n <= 32 && isDigit(s[0]) && isDigit(s[n-1]) {
		// parseEpoch keeps nothing of its text: the conversion is not
		// allocated
		return parseEpoch(string(s), tf.unit)
	}
	return o.zuluTime(v)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// zuluTime reads the raw value v when it is an RFC 3339 UTC time with
// up to nine fraction digits and a "Z" ("2024-08-12T03:14:15.619804Z",
// the form VictoriaLogs and most shippers write) straight from its bytes,
// as parseTime reads it; ok is false for anything else (parseTime then
// reads the text).
func (o *rawObject) zuluTime(v []byte) (t time.Time, prec time.Duration, ok bool) {
	if len(v) < 22 || v[0] != '"' || v[len(v)-1] != '"' || v[len(v)-2] != 'Z' {
		return time.Time{}, 0, false
	}
	s := v[1 : len(v)-2] // without the quotes and the Z
	if s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return time.Time{}, 0, false
	}
	num := func(from, to int) int {
		n := 0
		for _, c := range s[from:to] {
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	ns, prec := 0, time.Second
	if len(s) > 19 {
		digits := len(s) - 20
		if s[19] != '.' || digits < 1 || digits > 9 {
			return time.Time{}, 0, false
		}
		f := num(20, len(s))
		if f < 0 {
			return time.Time{}, 0, false
		}
		for range digits {
			prec /= 10
		}
		ns = f * int(prec)
	}
	// the second is mostly the last record's
	var c *zuluSecond
	if o.c != nil {
		c = &o.c.zulu
		if c.ok && string(c.head[:]) == string(s[:19]) {
			return time.Unix(c.unix, int64(ns)).UTC(), prec, true
		}
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return time.Time{}, 0, false
	}
	if day > 28 && time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Day() != day {
		return time.Time{}, 0, false // past the month's end
	}
	t = time.Date(year, time.Month(month), day, hour, minute, sec, ns, time.UTC)
	if c != nil {
		copy(c.head[:], s)
		c.unix, c.ok = t.Unix(), true
	}
	return t, prec, true
}

// zuluSecond is the last second zuluTime read: its text up to the
// fraction and its Unix time.
type zuluSecond struct {
	head [19]byte
	unix int64
	ok   bool
}

// fracPrecision is the resolution of the fraction that may follow s[at:]
// ("." and digits); time.Second when there is none.
func fracPrecision(s string, at int) time.Duration {
	if at >= len(s) || s[at] != '.' {
		return time.Second
	}
	n := 0
	for _, c := range s[at+1:] {
		if c < '0' || c > '9' {
			break
		}
		n++
	}
	p := time.Second
	for ; n > 0 && p > 1; n-- {
		p /= 10
	}
	return p
}

// parseEpoch reads an epoch number.
func parseEpoch(s string, unit time.Duration) (time.Time, time.Duration, bool) {
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if intPart == "" || len(intPart) > 19 || !allDigits(intPart) || (hasFrac && (frac == "" || !allDigits(frac))) {
		return time.Time{}, 0, false
	}
	n, err := strconv.ParseInt(intPart, 10, 64)
	if err != nil {
		return time.Time{}, 0, false
	}
	if hasFrac {
		if unit != 0 && unit != time.Second {
			return time.Time{}, 0, false
		}
		f := frac
		if len(f) > 9 {
			f = f[:9]
		}
		ns, _ := strconv.ParseInt((f + "000000000")[:9], 10, 64)
		return time.Unix(n, ns).UTC(), fracPrecision("."+frac, 0), true
	}
	if unit == 0 {
		switch d := len(intPart); {
		case d <= 11:
			unit = time.Second
		case d <= 14:
			unit = time.Millisecond
		case d <= 17:
			unit = time.Microsecond
		default:
			unit = time.Nanosecond
		}
	}
	per := int64(time.Second / unit)
	return time.Unix(n/per, (n%per)*int64(unit)).UTC(), unit, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
