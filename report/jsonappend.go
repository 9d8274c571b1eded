package report

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	json "github.com/goccy/go-json"
	"github.com/kcmtrace/kcmtrace/internal/swar"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file writes the largest part of the analyze document, the volumes,
// by hand: byte for byte what the indenting encoder writes for wireVolume,
// without building the wire struct, its kinds map and copied lists, or
// going through reflection. TestAppendVolumeMatchesEncoder holds the two
// together.

// appendJSONString appends s quoted as the encoder (with HTML escaping off)
// writes it. Plain printable ASCII, all but hostile log text, is copied as
// it is, and printable ASCII with quotes or backslashes (a structured log
// line: key="value") has them escaped here; anything else goes through the
// encoder itself.
func appendJSONString(b []byte, s string) []byte {
	switch {
	case plainJSON(s):
		return appendQuoted(b, s)
	case printableASCII(s):
		return appendEscapedASCII(b, s)
	}
	q, err := json.MarshalWithOption(s, json.DisableHTMLEscape())
	if err != nil { // a string always encodes
		return appendQuoted(b, s)
	}
	return append(b, q...)
}

// appendEscapedASCII appends s quoted, with a backslash before each quote
// and backslash, as the encoder writes printable ASCII (printableASCII).
func appendEscapedASCII(b []byte, s string) []byte {
	b = append(slices.Grow(b, len(s)+8), '"')
	nq, nb := indexFrom(s, 0, '"'), indexFrom(s, 0, '\\')
	from := 0
	for nq >= 0 || nb >= 0 {
		i := nq
		if i < 0 || nb >= 0 && nb < i {
			i = nb
		}
		b = append(append(b, s[from:i]...), '\\', s[i])
		from = i + 1
		if i == nq {
			nq = indexFrom(s, from, '"')
		} else {
			nb = indexFrom(s, from, '\\')
		}
	}
	return append(append(b, s[from:]...), '"')
}

// indexFrom is the index of the first c in s at or after from, -1 when none.
func indexFrom(s string, from int, c byte) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// appendQuoted appends s between quotes, as it is (a plain string: see
// plainJSON), with one check of b's room.
func appendQuoted(b []byte, s string) []byte {
	n := len(b)
	b = slices.Grow(b, len(s)+2)[:n+len(s)+2]
	b[n] = '"'
	copy(b[n+1:], s)
	b[len(b)-1] = '"'
	return b
}

// plainJSON reports whether s is printable ASCII without quotes or
// backslashes, which JSON takes unescaped, eight bytes a test
// (swar.NotPlainJSON).
func plainJSON(s string) bool {
	for len(s) >= 16 { // two words a test
		if swar.NotPlainJSON(swar.Load(s))|swar.NotPlainJSON(swar.Load(s[8:])) != 0 {
			return false
		}
		s = s[16:]
	}
	if len(s) >= 8 {
		if swar.NotPlainJSON(swar.Load(s)) != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// newlineIndent is a newline and the indentation of every depth the
// hand-written encoders reach (two spaces a level).
const newlineIndent = "\n                                "

// jsonObject lays out one JSON object field by field, as the encoder with
// SetIndent("", "  ") writes it when the object sits at the given depth.
// Its methods take the output and return it extended (kept out of the
// struct, the slice stays in registers).
type jsonObject struct {
	indent  string // newline and indentation of the fields
	fields  int
	compact bool // no newlines, no space after a colon (Encode without SetIndent); indent is ""
	// yaml, when set, lays the object out as YAML instead (yamlappend.go):
	// its fields at column col, a nested object's line break pending
	// (yamlOpen) until its first field
	yaml     *yamlWriter
	col      int
	yamlOpen bool
	inline   bool // yaml: a sequence's item, its first field after the "- "
}

// open starts the object's text: "{" (in YAML, nothing).
func (o *jsonObject) open(b []byte) []byte {
	if o.yaml != nil {
		return b
	}
	return append(b, '{')
}

// objectAt lays out an object at depth (0 for a top-level value).
func objectAt(depth int) jsonObject {
	return jsonObject{indent: newlineIndent[:1+2*(depth+1)]}
}

// key starts a field; k must be plain (a struct tag): keys from data go
// through mapKey.
func (o *jsonObject) key(b []byte, k string) []byte {
	if o.yaml != nil {
		return o.yamlKey(b, k)
	}
	// what sep, the quoted key and the colon append, with one check of
	// b's room
	n := len(b)
	m := 1 + len(o.indent) + 1 + len(k) + 3
	b = slices.Grow(b, m)[:n+m]
	if o.fields > 0 {
		b[n] = ','
		n++
	} else {
		b = b[:len(b)-1]
	}
	o.fields++
	n += copy(b[n:], o.indent)
	b[n] = '"'
	n += 1 + copy(b[n+1:], k)
	b[n], b[n+1] = '"', ':'
	if o.compact {
		return b[:n+2]
	}
	b[n+2] = ' '
	return b
}

// mapKey starts a field whose key comes from data and may need escaping.
func (o *jsonObject) mapKey(b []byte, k string) []byte {
	if o.yaml != nil {
		return o.yamlUnsupported(b)
	}
	b = appendJSONString(o.sep(b), k)
	if o.compact {
		return append(b, ':')
	}
	return append(b, ':', ' ')
}

// sep appends what comes before a field: a comma after the first, the
// newline and the indentation.
func (o *jsonObject) sep(b []byte) []byte {
	if o.fields > 0 {
		b = append(b, ',')
	}
	o.fields++
	return append(b, o.indent...)
}

func (o *jsonObject) str(b []byte, k, v string) []byte {
	if o.yaml != nil {
		return o.yaml.appendScalar(o.key(b, k), v, o.col)
	}
	return appendJSONString(o.key(b, k), v)
}

func (o *jsonObject) int(b []byte, k string, v int) []byte {
	if o.yaml != nil { // the encoder writes a number as JSON does
		return append(strconv.AppendInt(append(o.key(b, k), ' '), int64(v), 10), '\n')
	}
	return strconv.AppendInt(o.key(b, k), int64(v), 10)
}

func (o *jsonObject) bool(b []byte, k string, v bool) []byte {
	if o.yaml != nil {
		return append(strconv.AppendBool(append(o.key(b, k), ' '), v), '\n')
	}
	return strconv.AppendBool(o.key(b, k), v)
}

// time writes ts(t), leaving the field out when t is zero (omitempty).
func (o *jsonObject) time(b []byte, k string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	if o.yaml != nil {
		return o.yaml.appendStamp(o.key(b, k), t, o.col)
	}
	b = append(o.key(b, k), '"')
	return append(appendTS(b, t), '"')
}

// list writes a field holding n elements, [] when none: element i is
// appended by elem where its line is indented by in (a newline and
// spaces).
func (o *jsonObject) list(b []byte, k string, n int, elem func(b []byte, i int, in string) []byte) []byte {
	if o.yaml != nil {
		return o.yamlUnsupported(b)
	}
	b = o.key(b, k)
	if n == 0 {
		return append(b, '[', ']')
	}
	b = append(b, '[')
	in := newlineIndent[:len(o.indent)+2]
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(append(b, in...), i, in)
	}
	b = append(b, o.indent...)
	return append(b, ']')
}

// strings writes a list of strings, [] when empty.
func (o *jsonObject) strings(b []byte, k string, ss []string) []byte {
	if o.yaml != nil {
		return o.yamlStrings(b, k, ss)
	}
	return o.list(b, k, len(ss), func(b []byte, i int, _ string) []byte { return appendJSONString(b, ss[i]) })
}

// objects writes a list of n objects, [] when empty: elem appends object
// i, laid out by oo (which it opens and closes).
func (o *jsonObject) objects(b []byte, k string, n int, elem func(b []byte, i int, oo jsonObject) []byte) []byte {
	if o.yaml != nil {
		return o.yamlObjects(b, k, n, elem)
	}
	return o.list(b, k, n, func(b []byte, i int, in string) []byte {
		return elem(b, i, jsonObject{indent: newlineIndent[:len(in)+2]})
	})
}

// mapInt writes a field whose key comes from data (mapKey) holding v.
func (o *jsonObject) mapInt(b []byte, k string, v int) []byte {
	if o.yaml != nil {
		return append(strconv.AppendInt(append(o.yamlMapKey(b, k), ' '), int64(v), 10), '\n')
	}
	return strconv.AppendInt(o.mapKey(b, k), int64(v), 10)
}

// value writes a field holding v as the encoder writes it (a value few
// objects have, left to the encoder).
func (o *jsonObject) value(b []byte, k string, v any) ([]byte, error) {
	if o.yaml != nil {
		return o.yamlValue(b, k, v)
	}
	return appendIndented(o.key(b, k), v, o.indent[1:])
}

// object starts a field holding an object, to be filled through the
// returned layout and ended with its close.
func (o *jsonObject) object(b []byte, k string) ([]byte, jsonObject) {
	if o.yaml != nil {
		return o.key(b, k), o.yamlNested()
	}
	b = append(o.key(b, k), '{')
	if o.compact {
		return b, jsonObject{compact: true}
	}
	return b, jsonObject{indent: newlineIndent[:len(o.indent)+2]}
}

// close ends the object ({} when it has no field).
func (o *jsonObject) close(b []byte) []byte {
	if o.yaml != nil {
		return o.yamlClose(b)
	}
	if o.fields > 0 && !o.compact {
		b = append(b, o.indent[:len(o.indent)-2]...)
	}
	return append(b, '}')
}

// appendVolume appends toWireVolume(v) laid out by o (objectAt(depth): as
// the encoder writes it at depth).
func appendVolume(b []byte, v *timeline.Volume, o jsonObject) []byte {
	b = o.open(b)
	b = appendVolumeFields(b, &o, v)
	return o.close(b)
}

// appendVolumeFields appends the fields of toWireVolume(v) to the object o
// lays out.
func appendVolumeFields(b []byte, o *jsonObject, v *timeline.Volume) []byte {
	var scratch [16]kindCount
	f, kinds := tallyVolume(v, scratch[:0])
	b = o.str(b, "volume", wireVolumeName(v))
	b = o.str(b, "pv", v.PV)
	b = o.str(b, "handle", v.Handle)
	b = o.str(b, "driver", v.Driver())
	var room [8]string // most volumes have four: UniqueName, PV, handle, VolumeAttachment
	computed := nameRooms.Get().(*[]byte)
	defer nameRooms.Put(computed)
	names := v.AppendNamesIn(room[:0], computed)
	b = o.strings(b, "names", names)
	b = o.strings(b, "attachments", v.AttachmentsIn(names))
	b = o.strings(b, "nodes", v.Nodes())
	b = o.strings(b, "pods", v.Pods())
	b = o.bool(b, "multi", v.Multi)
	b = o.int(b, "events", len(v.Events))
	b = o.time(b, "first", v.First())
	b = o.time(b, "last", v.Last())
	b, fo := o.object(b, "failures")
	b = fo.int(b, "attach", f.Attach)
	b = fo.int(b, "detach", f.Detach)
	b = fo.int(b, "mount", f.Mount)
	b = fo.close(b)
	b, ko := o.object(b, "kinds")
	for _, k := range kinds {
		b = ko.mapInt(b, k.kind.String(), k.n)
	}
	b = ko.close(b)
	if obs := v.Objects(); len(obs) > 0 {
		b = o.objects(b, "objects", len(obs), func(b []byte, i int, oo jsonObject) []byte {
			b = oo.open(b)
			w := toWireObject(obs[i])
			b = oo.str(b, "kind", w.Kind)
			b = oo.str(b, "name", w.Name)
			b = oo.str(b, "source", w.Source)
			b = oo.str(b, "text", w.Text)
			return oo.close(b)
		})
	}
	return b
}

// nameRooms hold the computed VolumeAttachment names of the volume being
// written (Volume.AppendNamesIn), one room a writer at a time: a large
// cluster's 35k volumes made as many strings, garbage the collector ran
// for during the report.
var nameRooms = sync.Pool{New: func() any { return new([]byte) }}

// appendTimelineVol appends toWireTimelineVol(v) laid out by o
// (objectAt(depth): as the encoder writes it at depth): a large cluster's
// timeline document is a hundred MB of volumes' events, whose wire structs
// were most of the collector's work.
func appendTimelineVol(b []byte, v *timeline.Volume, o jsonObject) ([]byte, error) {
	b = o.open(b)
	b = appendVolumeFields(b, &o, v)
	b = o.intervals(b, "intervals", v.Intervals)
	b = o.intervals(b, "kubelet", v.Kubelet())
	if ov := v.Overlaps(); len(ov) == 0 {
		b = o.objects(b, "overlaps", 0, nil)
	} else { // few volumes have any: the encoder writes them
		var err error
		if b, err = o.value(b, "overlaps", toWireOverlaps(ov)); err != nil {
			return b, err
		}
	}
	b = o.objects(b, "event_list", len(v.Events), func(b []byte, i int, oo jsonObject) []byte {
		return appendEvent(b, &v.Events[i], oo)
	})
	return o.close(b), nil
}

// intervals writes a list of intervals (toWireIntervals), [] when empty.
func (o *jsonObject) intervals(b []byte, k string, ivs []timeline.Interval) []byte {
	return o.objects(b, k, len(ivs), func(b []byte, i int, io jsonObject) []byte {
		iv := ivs[i]
		b = io.open(b)
		b = io.str(b, "node", iv.Node)
		b = io.str(b, "state", iv.State.String())
		b = io.time(b, "start", iv.Start())
		b = io.time(b, "end", iv.End())
		return io.close(b)
	})
}

// appendEvent appends toWireEvent(*e) as the encoder writes it, its
// fields laid out by o: indented (in a timeline document) or compact (a
// line of JSON Lines).
func appendEvent(b []byte, e *parser.Event, o jsonObject) []byte {
	b = o.open(b)
	b = o.time(b, "time", e.Time.UTC())
	if e.Relative {
		b = o.bool(b, "relative", true)
	}
	b = o.str(b, "kind", e.Kind.String())
	b = o.optStr(b, "volume", e.Volume)
	b = o.optStr(b, "pv", e.PV)
	b = o.optStr(b, "handle", e.Handle)
	b = o.optStr(b, "attachment", e.Attachment)
	b = o.optStr(b, "node", e.Node)
	b = o.optStr(b, "pod", e.Pod)
	b = o.optStr(b, "error", Sanitize(e.Error))
	b = o.optStr(b, "code", e.Code)
	b = o.optInt(b, "count", int(e.Count))
	if e.Span > 0 {
		b = o.str(b, "span", e.Span.String())
	}
	b = o.optStr(b, "component", e.Component.String())
	b = o.optStr(b, "origin", e.Origin.String())
	b = o.optInt(b, "echo_of", int(e.EchoOf))
	if e.Level != 0 {
		b = o.str(b, "level", string(rune(e.Level)))
	}
	b = o.optStr(b, "detail", Sanitize(e.Detail))
	b = o.optStr(b, "reason", Sanitize(e.Reason))
	if e.Retry != nil && e.Retry.Backoff > 0 {
		b = o.str(b, "backoff", e.Retry.Backoff.String())
	}
	b = o.optInt(b, "pid", int(e.PID))
	b, so := o.object(b, "source")
	b = so.str(b, "path", e.Source.Path())
	b = so.int(b, "line", int(e.Source.Line))
	b = so.close(b)
	return o.close(b)
}

// optStr writes a string field, left out when empty (omitempty).
func (o *jsonObject) optStr(b []byte, k, v string) []byte {
	if v == "" {
		return b
	}
	return o.str(b, k, v)
}

// optInt writes an int field, left out when 0 (omitempty).
func (o *jsonObject) optInt(b []byte, k string, v int) []byte {
	if v == 0 {
		return b
	}
	return o.int(b, k, v)
}
