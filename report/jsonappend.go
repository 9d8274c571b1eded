package report

import (
	"strconv"
	"time"

	json "github.com/goccy/go-json"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file writes the largest part of the analyze document, the volumes,
// by hand: byte for byte what the indenting encoder writes for wireVolume,
// without building the wire struct, its kinds map and copied lists, or
// going through reflection. TestAppendVolumeMatchesEncoder holds the two
// together.

// appendJSONString appends s quoted as the encoder (with HTML escaping off)
// writes it. Plain printable ASCII, all but hostile log text, is copied as
// it is; anything else goes through the encoder itself.
func appendJSONString(b []byte, s string) []byte {
	if !plainJSON(s) {
		q, err := json.MarshalWithOption(s, json.DisableHTMLEscape())
		if err == nil { // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON reports whether s is printable ASCII without quotes or
// backslashes, which JSON takes unescaped. It looks at eight bytes at a
// time: a byte is flagged by its high bit, by a borrow when 0x20 is taken
// from it, or by being zero once XORed with '"' or '\\'.
func plainJSON(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
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
	indent string // newline and indentation of the fields
	fields int
}

// openObject starts an object at depth (0 for a top-level value).
func openObject(b []byte, depth int) ([]byte, jsonObject) {
	return append(b, '{'), jsonObject{indent: newlineIndent[:1+2*(depth+1)]}
}

// key starts a field; k must be plain (a struct tag): keys from data go
// through mapKey.
func (o *jsonObject) key(b []byte, k string) []byte {
	b = o.sep(b)
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':', ' ')
}

// mapKey starts a field whose key comes from data and may need escaping.
func (o *jsonObject) mapKey(b []byte, k string) []byte {
	b = appendJSONString(o.sep(b), k)
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
	return appendJSONString(o.key(b, k), v)
}

func (o *jsonObject) int(b []byte, k string, v int) []byte {
	return strconv.AppendInt(o.key(b, k), int64(v), 10)
}

func (o *jsonObject) bool(b []byte, k string, v bool) []byte {
	return strconv.AppendBool(o.key(b, k), v)
}

// time writes ts(t), leaving the field out when t is zero (omitempty).
func (o *jsonObject) time(b []byte, k string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(o.key(b, k), '"')
	return append(appendTS(b, t), '"')
}

// strings writes a list of strings, [] when empty.
func (o *jsonObject) strings(b []byte, k string, ss []string) []byte {
	b = o.key(b, k)
	if len(ss) == 0 {
		return append(b, '[', ']')
	}
	b = append(b, '[')
	in := newlineIndent[:len(o.indent)+2]
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, in...), s)
	}
	b = append(b, o.indent...)
	return append(b, ']')
}

// object starts a field holding an object, to be filled through the
// returned layout and ended with its close.
func (o *jsonObject) object(b []byte, k string) ([]byte, jsonObject) {
	b = append(o.key(b, k), '{')
	return b, jsonObject{indent: newlineIndent[:len(o.indent)+2]}
}

// close ends the object ({} when it has no field).
func (o *jsonObject) close(b []byte) []byte {
	if o.fields > 0 {
		b = append(b, o.indent[:len(o.indent)-2]...)
	}
	return append(b, '}')
}

// appendVolume appends toWireVolume(v) as the encoder writes it at depth.
func appendVolume(b []byte, v *timeline.Volume, depth int) []byte {
	var scratch [16]kindCount
	f, kinds := tallyVolume(v, scratch[:0])
	b, o := openObject(b, depth)
	b = o.str(b, "volume", wireVolumeName(v))
	b = o.str(b, "pv", v.PV)
	b = o.str(b, "handle", v.Handle)
	b = o.str(b, "driver", v.Driver())
	b = o.strings(b, "names", v.Names())
	b = o.strings(b, "attachments", v.Attachments())
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
		b = strconv.AppendInt(ko.mapKey(b, k.kind.String()), int64(k.n), 10)
	}
	b = ko.close(b)
	if len(v.Objects()) > 0 {
		b = o.key(b, "objects")
		b = append(b, '[')
		in := newlineIndent[:len(o.indent)+2]
		for i, ob := range v.Objects() {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, in...), '{')
			oo := jsonObject{indent: newlineIndent[:len(in)+2]}
			w := toWireObject(ob)
			b = oo.str(b, "kind", w.Kind)
			b = oo.str(b, "name", w.Name)
			b = oo.str(b, "source", w.Source)
			b = oo.str(b, "text", w.Text)
			b = oo.close(b)
		}
		b = append(append(b, o.indent...), ']')
	}
	return o.close(b)
}
