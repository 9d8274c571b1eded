package loggen

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// valKind says how a structured value is rendered.
type valKind uint8

const (
	vStr       valKind = iota // Go-quoted in text, JSON string in JSON
	vInt                      // bare integer
	vKObj                     // "ns/name" in text, {"name":…,"namespace":…} in JSON
	vKObjSlice                // ["ns/name"] (≥1.28 text) / [ns/name] (older text), array of objects in JSON
	vNode                     // klog.KRef("", node): "node" in text, {"name":"node"} in JSON
	vRaw                      // raw bytes, identical in text and JSON (JSON-encoded value)
	vStrSlice                 // ["a","b"] in text ≥1.28 and JSON, [a b] in older text
)

type kvp struct {
	key  string
	kind valKind
	s    string // vStr, vKObj/vKObjSlice namespace, vNode
	s2   string // vKObj/vKObjSlice name
	n    int64
	raw  []byte
}

// entry is one log call before rendering: the caller, the level and either a
// printf text or a structured message with key/value pairs.
type entry struct {
	level  byte // 'I', 'W', 'E'
	file   string
	line   int
	dir    string // caller directory in JSON ("reconciler" → "reconciler/reconciler.go:360")
	logger string // contextual logger name (structured ≥1.28 and JSON only)
	printf bool   // msg is printf text (not quoted in klog text)
	msg    []byte
	err    string // ErrorS error: first pair in text, last field in JSON
	hasErr bool
	v      int // JSON "v" for info lines
	kv     [10]kvp
	nkv    int
}

func (e *entry) reset(level byte, file string, line int, dir string) {
	e.level, e.file, e.line, e.dir = level, file, line, dir
	e.logger = ""
	e.printf = false
	e.msg = e.msg[:0]
	e.err, e.hasErr = "", false
	e.v = 0
	e.nkv = 0
}

func (e *entry) str(k, v string) { e.kv[e.nkv] = kvp{key: k, kind: vStr, s: v}; e.nkv++ }
func (e *entry) num(k string, n int64) {
	e.kv[e.nkv] = kvp{key: k, kind: vInt, n: n}
	e.nkv++
}
func (e *entry) kobj(k, ns, name string) {
	e.kv[e.nkv] = kvp{key: k, kind: vKObj, s: ns, s2: name}
	e.nkv++
}
func (e *entry) kobjs(k, ns, name string) {
	e.kv[e.nkv] = kvp{key: k, kind: vKObjSlice, s: ns, s2: name}
	e.nkv++
}
func (e *entry) node(k, n string) { e.kv[e.nkv] = kvp{key: k, kind: vNode, s: n}; e.nkv++ }
func (e *entry) raw(k string, b []byte) {
	e.kv[e.nkv] = kvp{key: k, kind: vRaw, raw: b}
	e.nkv++
}
func (e *entry) strs(k, v string) { e.kv[e.nkv] = kvp{key: k, kind: vStrSlice, s: v}; e.nkv++ }

// appendText renders e as a klog text line (header + message), without the
// trailing newline. modern selects ≥1.28 value rendering (JSON-encoded
// slices) and the logger= pair.
func appendText(b []byte, t int64, pid int, e *entry, modern bool) []byte {
	b = appendHeader(b, e.level, t, pid, e.file, e.line)
	if e.printf {
		return append(b, e.msg...)
	}
	b = strconv.AppendQuote(b, string(e.msg))
	if e.hasErr {
		b = append(b, " err="...)
		b = strconv.AppendQuote(b, e.err)
	}
	if modern && e.logger != "" {
		b = append(b, ` logger="`...)
		b = append(b, e.logger...)
		b = append(b, '"')
	}
	for i := 0; i < e.nkv; i++ {
		p := &e.kv[i]
		b = append(b, ' ')
		b = append(b, p.key...)
		b = append(b, '=')
		switch p.kind {
		case vStr:
			b = strconv.AppendQuote(b, p.s)
		case vInt:
			b = strconv.AppendInt(b, p.n, 10)
		case vKObj:
			b = append(b, '"')
			if p.s != "" {
				b = append(b, p.s...)
				b = append(b, '/')
			}
			b = append(b, p.s2...)
			b = append(b, '"')
		case vKObjSlice:
			if modern {
				b = append(b, `["`...)
				b = append(b, p.s...)
				b = append(b, '/')
				b = append(b, p.s2...)
				b = append(b, `"]`...)
			} else {
				b = append(b, '[')
				b = append(b, p.s...)
				b = append(b, '/')
				b = append(b, p.s2...)
				b = append(b, ']')
			}
		case vNode:
			b = strconv.AppendQuote(b, p.s)
		case vRaw:
			b = append(b, p.raw...)
		case vStrSlice:
			if modern {
				b = append(b, `["`...)
				b = append(b, p.s...)
				b = append(b, `"]`...)
			} else {
				b = append(b, '[')
				b = append(b, p.s...)
				b = append(b, ']')
			}
		}
	}
	return b
}

// appendJSON renders e as a component-base JSON line (--logging-format=json).
func appendJSON(b []byte, t int64, e *entry) []byte {
	b = append(b, `{"ts":`...)
	us := t / 1000
	ms := us / 1000
	frac := us % 1000
	b = strconv.AppendInt(b, ms, 10)
	if frac != 0 {
		b = append(b, '.')
		d := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		n := 3
		for n > 0 && d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	if e.logger != "" {
		b = append(b, `,"logger":"`...)
		b = append(b, e.logger...)
		b = append(b, '"')
	}
	b = append(b, `,"caller":"`...)
	b = append(b, e.dir...)
	b = append(b, '/')
	b = append(b, e.file...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(e.line), 10)
	b = append(b, `","msg":`...)
	b = appendJSONString(b, e.msg)
	if e.level != 'E' {
		b = append(b, `,"v":`...)
		b = strconv.AppendInt(b, int64(e.v), 10)
	}
	for i := 0; i < e.nkv; i++ {
		p := &e.kv[i]
		b = append(b, ',', '"')
		b = append(b, p.key...)
		b = append(b, '"', ':')
		switch p.kind {
		case vStr:
			b = appendJSONString(b, []byte(p.s))
		case vInt:
			b = strconv.AppendInt(b, p.n, 10)
		case vKObj:
			b = appendJSONKObj(b, p.s, p.s2)
		case vKObjSlice:
			b = append(b, '[')
			b = appendJSONKObj(b, p.s, p.s2)
			b = append(b, ']')
		case vNode:
			b = append(b, `{"name":`...)
			b = appendJSONString(b, []byte(p.s))
			b = append(b, '}')
		case vRaw:
			b = append(b, p.raw...)
		case vStrSlice:
			b = append(b, '[')
			b = appendJSONString(b, []byte(p.s))
			b = append(b, ']')
		}
	}
	if e.hasErr {
		b = append(b, `,"err":`...)
		b = appendJSONString(b, []byte(e.err))
	}
	return append(b, '}')
}

func appendJSONKObj(b []byte, ns, name string) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, []byte(name))
	if ns != "" {
		b = append(b, `,"namespace":`...)
		b = appendJSONString(b, []byte(ns))
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way zap does: quotes,
// backslashes and control characters escaped, other UTF-8 kept as is.
func appendJSONString(b []byte, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		_, size := utf8.DecodeRune(s[i:])
		b = append(b, s[i:i+size]...)
		i += size
	}
	return append(b, '"')
}

// appendHeader writes "Lmmdd hh:mm:ss.uuuuuu pid file:line] ".
func appendHeader(b []byte, level byte, t int64, pid int, file string, line int) []byte {
	tm := time.Unix(0, t).UTC()
	_, mo, d := tm.Date()
	h, mi, s := tm.Clock()
	us := (t % 1e9) / 1000
	if us < 0 {
		us += 1e6
	}
	b = append(b, level)
	b = append2(b, int(mo))
	b = append2(b, d)
	b = append(b, ' ')
	b = append2(b, h)
	b = append(b, ':')
	b = append2(b, mi)
	b = append(b, ':')
	b = append2(b, s)
	b = append(b, '.')
	b = append(b, byte('0'+us/100000), byte('0'+us/10000%10), byte('0'+us/1000%10),
		byte('0'+us/100%10), byte('0'+us/10%10), byte('0'+us%10))
	b = append(b, ' ')
	var pbuf [20]byte
	ps := strconv.AppendInt(pbuf[:0], int64(pid), 10)
	for i := len(ps); i < 7; i++ {
		b = append(b, ' ')
	}
	b = append(b, ps...)
	b = append(b, ' ')
	b = append(b, file...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(line), 10)
	return append(b, ']', ' ')
}

func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// appendGoTime writes t the way Go's time.Time.String prints a UTC time with a
// monotonic reading: "2024-08-12 03:10:02.234498123 +0000 UTC m=+259202.234498123".
func appendGoTime(b []byte, t int64, procStart int64) []byte {
	b = time.Unix(0, t).UTC().AppendFormat(b, "2006-01-02 15:04:05.999999999 -0700 MST")
	m := t - procStart
	b = append(b, " m=+"...)
	b = strconv.AppendInt(b, m/1e9, 10)
	b = append(b, '.')
	f := m % 1e9
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + f%10)
		f /= 10
	}
	return append(b, d[:]...)
}

// appendDuration writes a Go duration string (500ms, 1m4s, 2m2s).
func appendDuration(b []byte, d time.Duration) []byte { return append(b, d.String()...) }
