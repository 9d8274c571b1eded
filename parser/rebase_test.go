package parser

import (
	"bytes"
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

// TestRebaseEventCoversEveryString: rebaseEvent moves every string field
// of Event (and of the structs it points to) off the view, whatever field
// is added later.
func TestRebaseEventCoversEveryString(t *testing.T) {
	buf := []byte(strings.Repeat("abcdefghij", 100))
	view := unsafe.String(unsafe.SliceData(buf), len(buf))
	text := string(buf)
	var ev Event
	n := 0
	stringFields(reflect.ValueOf(&ev).Elem(), "Event", func(_ string, s reflect.Value) {
		s.SetString(view[n : n+5])
		n += 7
	})
	if n < 15*7 {
		t.Fatalf("found %d string fields, want at least 15", n/7)
	}
	rebaseEvent(&ev, view, text)
	lo, hi := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[len(buf)-1]))
	n = 0
	stringFields(reflect.ValueOf(&ev).Elem(), "Event", func(path string, s reflect.Value) {
		str := s.String()
		if p := uintptr(unsafe.Pointer(unsafe.StringData(str))); p >= lo && p <= hi {
			t.Errorf("%s still points into the view", path)
		}
		if want := text[n : n+5]; str != want {
			t.Errorf("%s = %q after rebase, want %q", path, str, want)
		}
		n += 7
	})
}

// TestRebaseString pins the edges: strings outside the view, at its ends,
// empty, and straddling its end.
func TestRebaseString(t *testing.T) {
	buf := []byte("0123456789")
	view := unsafe.String(unsafe.SliceData(buf), len(buf))
	text := string(buf)
	other := strings.Clone("0123")
	for _, tc := range []struct {
		name    string
		s       string
		onText  bool
		wantStr string
	}{
		{name: "whole", s: view, onText: true, wantStr: "0123456789"},
		{name: "head", s: view[:3], onText: true, wantStr: "012"},
		{name: "tail", s: view[7:], onText: true, wantStr: "789"},
		{name: "empty", s: view[5:5], onText: false, wantStr: ""},
		{name: "elsewhere", s: other, onText: false, wantStr: "0123"},
		{name: "constant", s: "kcm", onText: false, wantStr: "kcm"},
	} {
		got := rebaseString(tc.s, view, text)
		if got != tc.wantStr {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.wantStr)
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(got)))
		t0 := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		if on := len(got) > 0 && p >= t0 && p < t0+uintptr(len(text)); on != tc.onText {
			t.Errorf("%s: on the copy %v, want %v", tc.name, on, tc.onText)
		}
	}
}

// TestEmitKeepsNothingOfItsInput: klogEmit and jsonEmit decode a view of
// their input and copy only events' text; overwriting the input
// afterwards must not change any result, for every line of every shipped
// log.
func TestEmitKeepsNothingOfItsInput(t *testing.T) {
	for _, emit := range []struct {
		name string
		f    func([]byte) emitResult
		trim bool // JSON lines come without their newline
	}{{name: "klogEmit", f: klogEmit}, {name: "jsonEmit", f: jsonEmit, trim: true}} {
		events := 0
		for path, data := range emitInputs(t) {
			for i, line := range bytes.SplitAfter(data, []byte("\n")) {
				if emit.trim {
					line = bytes.TrimSuffix(line, []byte("\n"))
				}
				buf := bytes.Clone(line)
				got := emit.f(buf)
				for k := range buf {
					buf[k] = 'X'
				}
				want := emit.f(bytes.Clone(line))
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s %s:%d: the result changed when its input was overwritten:\ngot  %+v\nwant %+v", emit.name, path, i+1, got.ev, want.ev)
				}
				if got.ok {
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
