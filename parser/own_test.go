package parser

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// stringFields calls f with every string reachable in v (a struct value,
// addressable): its fields, those of nested structs and of structs behind
// pointers, with the field's path.
func stringFields(v reflect.Value, path string, f func(path string, s reflect.Value)) {
	switch v.Kind() {
	case reflect.String:
		f(path, v)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[Event]().Field(0).Type { // time.Time: no strings
			return
		}
		for i := range v.NumField() {
			stringFields(v.Field(i), path+"."+v.Type().Field(i).Name, f)
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		stringFields(v.Elem(), path, f)
	}
}

// TestOwnCoversEveryString: own moves every string field of a Draft (and
// of the structs it points to) off the entry's bytes into the Event it
// makes, whatever field is added later, and keeps its value — but for the
// fields it drops on purpose (ownDrops), which it empties.
func TestOwnCoversEveryString(t *testing.T) {
	buf := []byte(strings.Repeat("abcdefghij", 100))
	view := unsafe.String(unsafe.SliceData(buf), len(buf))
	want := strings.Clone(view)
	var d Draft
	n := 0
	stringFields(reflect.ValueOf(&d).Elem(), "Draft", func(_ string, s reflect.Value) {
		s.SetString(view[n : n+5])
		n += 7
	})
	if n < 12*7 {
		t.Fatalf("found %d string fields, want at least 12", n/7)
	}
	var st inputState
	ev := st.own(&d, view)
	lo, hi := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[len(buf)-1]))
	n = 0
	stringFields(reflect.ValueOf(&ev).Elem(), "Event", func(path string, s reflect.Value) {
		str := s.String()
		if p := uintptr(unsafe.Pointer(unsafe.StringData(str))); p >= lo && p <= hi {
			t.Errorf("%s still points into the entry", path)
		}
		w := want[n : n+5]
		if ownDrops[path] {
			w = ""
		}
		if str != w {
			t.Errorf("%s = %q after own, want %q", path, str, w)
		}
		n += 7
	})
}

// ownDrops are the strings own does not keep: a retry deadline's text,
// read while the entry is decoded (year and zone evidence) and by nothing
// after.
var ownDrops = map[string]bool{"Event.Repeat.Retry.Until": true}

// TestOwnInternsNames: the names of two events are one string when equal.
func TestOwnInternsNames(t *testing.T) {
	var st inputState
	da := Draft{Volume: strings.Clone("kubernetes.io/csi/d^vol-1"), Node: strings.Clone("node-1")}
	db := Draft{Volume: strings.Clone("kubernetes.io/csi/d^vol-1"), Node: strings.Clone("node-1")}
	a, b := st.own(&da, ""), st.own(&db, "")
	if a.Ident != b.Ident || a.Place != b.Place {
		t.Error("equal tuples of two events are not one tuple")
	}
	dc := Draft{Volume: strings.Clone("kubernetes.io/csi/d^vol-1"), Node: strings.Clone("node-2")}
	if c := st.own(&dc, ""); c.Ident != a.Ident || c.Place == a.Place || c.Node != "node-2" {
		t.Errorf("a tuple of another node: %+v %+v", *c.Ident, *c.Place)
	}
	if unsafe.StringData(a.Volume) != unsafe.StringData(b.Volume) || unsafe.StringData(a.Node) != unsafe.StringData(b.Node) {
		t.Error("equal names of two events are not one string")
	}
}

// TestOwnHandleInVolume: a handle the volume's name ends with is the end
// of that name's own bytes (no copy of its own); any other handle is
// interned as every name is. Either way the value is the handle.
func TestOwnHandleInVolume(t *testing.T) {
	for _, c := range []struct {
		name, volume, handle string
		shared               bool
	}{
		{"csi", "kubernetes.io/csi/pd.csi.storage.gke.io^projects/p/zones/z/disks/pvc-1", "projects/p/zones/z/disks/pvc-1", true},
		{"in-tree", "kubernetes.io/aws-ebs/aws://us-east-1a/vol-0abc", "vol-0abc", true},
		{"whole", "vol-1", "vol-1", true},
		{"not its end", "kubernetes.io/csi/d^vol-1", "vol-2", false},
		{"no volume", "", "vol-1", false},
		{"no handle", "kubernetes.io/csi/d^vol-1", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var st inputState
			// the names as windows of one entry, as the classifier cuts them
			text := c.volume + " " + c.handle
			d := Draft{Volume: text[:len(c.volume)], Handle: text[len(c.volume)+1:]}
			ev := st.own(&d, text)
			if ev.Volume != c.volume || ev.Handle != c.handle {
				t.Fatalf("Volume %q Handle %q, want %q %q", ev.Volume, ev.Handle, c.volume, c.handle)
			}
			if windowOf(ev.Volume, text) || windowOf(ev.Handle, text) {
				t.Error("a name still points into the entry")
			}
			end := len(ev.Volume) - len(ev.Handle)
			shared := ev.Handle != "" && end >= 0 && unsafe.StringData(ev.Handle) == unsafe.StringData(ev.Volume[end:])
			if shared != c.shared {
				t.Errorf("handle in the volume's bytes: %v, want %v", shared, c.shared)
			}
		})
	}
}

// TestOwnRWXKey: own answers HasRWXKey of the text.
func TestOwnRWXKey(t *testing.T) {
	var st inputState
	for _, text := range []string{`Operation for "{volumeName:v podName: nodeName:n1}" failed`, `Operation for "{volumeName:v podName: nodeName:}" failed`} {
		var d Draft
		ev := st.own(&d, text)
		if ev.RWXKey != HasRWXKey(text) {
			t.Errorf("%q: RWXKey %v", text, ev.RWXKey)
		}
	}
}

// TestWindowOf pins the edges: strings outside the text, at its ends,
// empty, and straddling its end.
func TestWindowOf(t *testing.T) {
	buf := []byte("0123456789abc")
	text := unsafe.String(unsafe.SliceData(buf), 10)
	other := strings.Clone("0123")
	for _, tc := range []struct {
		name string
		s    string
		want bool
	}{
		{name: "whole", s: text, want: true},
		{name: "head", s: text[:3], want: true},
		{name: "tail", s: text[7:], want: true},
		{name: "empty", s: text[5:5], want: false},
		{name: "elsewhere", s: other, want: false},
		{name: "constant", s: "kcm", want: false},
		{name: "straddling", s: unsafe.String(&buf[8], 4), want: false},
		{name: "after", s: unsafe.String(&buf[10], 2), want: false},
	} {
		if got := windowOf(tc.s, text); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// kept is what the scanner keeps of an emit result once addEvent has
// taken it: the event with its names interned and its text stored.
type kept struct {
	r    emitResult
	text string
}

func keep(st *inputState, r emitResult) kept {
	if r.ok {
		ev := st.own(&r.ev, r.text)
		ev.Text = st.texts.AddString(r.text)
		r.ev = ev.Draft() // its names, read through its tuples
	}
	k := kept{r: r, text: r.ev.Text.String()}
	k.r.text, k.r.ev.Text = "", Text{} // the view, and a reference compared by text
	return k
}

// TestEmitKeepsNothingOfItsInput: klogEmit and jsonEmit decode a view of
// their input, and addEvent copies what an event keeps (own, the text
// store); overwriting the input afterwards must not change anything kept,
// for every line of every shipped log.
func TestEmitKeepsNothingOfItsInput(t *testing.T) {
	for _, emit := range []struct {
		name string
		f    func([]byte) emitResult
		trim bool // JSON lines come without their newline
	}{{name: "klogEmit", f: klogEmit}, {name: "jsonEmit", f: jsonEmit, trim: true}} {
		events := 0
		var st inputState
		for path, data := range emitInputs(t) {
			for i, line := range bytes.SplitAfter(data, []byte("\n")) {
				if emit.trim {
					line = bytes.TrimSuffix(line, []byte("\n"))
				}
				buf := bytes.Clone(line)
				got := keep(&st, emit.f(buf))
				for k := range buf {
					buf[k] = 'X'
				}
				want := keep(&st, emit.f(bytes.Clone(line)))
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s:%d: what is kept changed when its input was overwritten:\ngot  %+v\nwant %+v", emit.name, path, i+1, got, want)
				}
				if got.r.ok {
					events++
				}
			}
		}
		if events < 100 {
			t.Errorf("%s: only %d events among the shipped lines", emit.name, events)
		}
		t.Logf("%s: %d events", emit.name, events)
	}
}

// emitInputs returns the shipped logs and 2 MiB of generated log of each
// era, by name.
func emitInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{}
	for _, path := range testInputs(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		in[path] = data
	}
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured, loggen.JSON} {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 2 << 20, Era: era, Seed: 3}); err != nil {
			t.Fatal(err)
		}
		in["generated "+string(era)] = buf.Bytes()
	}
	return in
}

// TestOwnPrepared: an event prepared on a decode-ahead worker is filed as
// own files it, names shared with the events own filed, and a result's
// preparation is not taken for a draft whose names changed after it
// (finishEvent's node of an envelope).
func TestOwnPrepared(t *testing.T) {
	rs := churnDrafts(t, 1<<20)
	if len(rs) < 100 {
		t.Fatalf("%d events", len(rs))
	}
	churn := len(rs)
	// names and tuples that repeat, two of each kind (a set of the tables
	// holds two: none is made again)
	for i := range 64 {
		rs = append(rs, emitResult{ok: true, ev: Draft{Volume: fmt.Sprint("vol-", i%2), Node: fmt.Sprint("node-", i/2%2),
			Error: fmt.Sprint("error ", i/4%2), Retry: &Retry{Until: fmt.Sprint("2024-08-12 0", i/8%2)}}})
	}
	var a, b inputState
	type tuples struct {
		ident map[*Ident]bool
		place map[*Place]bool
		cause map[*Cause]bool
	}
	seen := func() tuples { return tuples{map[*Ident]bool{}, map[*Place]bool{}, map[*Cause]bool{}} }
	ta, tb := seen(), seen()
	// the tuples of the repeating events, and those prepared ones got
	values := map[any]bool{}
	pointers := map[any]bool{}
	for i := range rs {
		r := rs[i]
		r.prepare()
		da, db := r.ev, r.ev
		ea := a.own(&da, r.text)
		p := r.prepFor(&db)
		if p == nil {
			t.Fatalf("event %d: no preparation", i)
		}
		var eb Event
		if i%2 == 0 || i >= churn { // b files every other churn event as own does
			eb = b.ownPrepared(&db, r.text, p)
		} else {
			eb = b.own(&db, r.text)
		}
		if !reflect.DeepEqual(ea.Draft(), eb.Draft()) {
			t.Fatalf("event %d: prepared %+v, own %+v", i, eb.Draft(), ea.Draft())
		}
		ta.ident[ea.Ident], ta.place[ea.Place], ta.cause[ea.Cause] = true, true, true
		if i >= churn {
			values[*eb.Ident], values[*eb.Place], values[*eb.Cause] = true, true, true
			pointers[eb.Ident], pointers[eb.Place], pointers[eb.Cause] = true, true, true
		}
		tb.ident[eb.Ident], tb.place[eb.Place], tb.cause[eb.Cause] = true, true, true
	}
	if a.names.Len() != b.names.Len() {
		t.Errorf("%d names interned prepared, %d by own", b.names.Len(), a.names.Len())
	}
	if len(values) != 6 || len(pointers) != len(values) {
		t.Errorf("prepared: %d distinct tuples in %d tuples, want 6 in 6", len(values), len(pointers))
	}
	if len(ta.ident) != len(tb.ident) || len(ta.place) != len(tb.place) || len(ta.cause) != len(tb.cause) {
		t.Errorf("tuples made: prepared %d %d %d, own %d %d %d", len(tb.ident), len(tb.place), len(tb.cause),
			len(ta.ident), len(ta.place), len(ta.cause))
	}
	r := rs[0]
	r.prepare()
	d := r.ev
	d.Node = "envelope-node"
	if r.prepFor(&d) != nil {
		t.Error("a preparation is taken for another node")
	}
	if d = r.ev; r.prepFor(&d) == nil {
		t.Error("no preparation for the result's own draft")
	}
}

// windowOf reports whether s lies within the bytes of text.
func windowOf(s, text string) bool {
	_, ok := offsetIn(s, unsafe.StringData(text), len(text))
	return ok
}
