// Package texttest lets tests compare values that hold event texts
// (parser.Text, a reference into a compressed block) by value:
// reflect.DeepEqual tells two equal texts apart when they are in
// different blocks (two parses of one input). Canon rewrites every text
// reachable from a value to one canonical string per distinct text.
package texttest

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

var canon struct {
	sync.Mutex
	m map[string]string
}

// Text returns the canonical Text equal to t.
func Text(t textstore.Text) textstore.Text {
	s := t.String()
	canon.Lock()
	defer canon.Unlock()
	if canon.m == nil {
		canon.m = map[string]string{}
	}
	c, ok := canon.m[s]
	if !ok {
		c = s
		canon.m[s] = c
	}
	return textstore.TextOf(c)
}

var textType = reflect.TypeFor[textstore.Text]()

// Canon rewrites in place every Text reachable from ptr (a pointer):
// through structs (unexported fields too), pointers, slices, arrays,
// interfaces and map values (a map value that holds a text is replaced).
// It returns ptr.
func Canon[T any](ptr *T) *T {
	seen := map[uintptr]bool{}
	walk(reflect.ValueOf(ptr).Elem(), seen)
	return ptr
}

// settable makes an addressable value settable even when it was reached
// through an unexported field.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func walk(v reflect.Value, seen map[uintptr]bool) {
	if v.Type() == textType {
		if v = settable(v); v.CanSet() {
			t := *(*textstore.Text)(unsafe.Pointer(v.UnsafeAddr()))
			v.Set(reflect.ValueOf(Text(t)))
		}
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		walk(v.Elem(), seen)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			walk(e, seen)
			return
		}
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		walk(c, seen)
		if v = settable(v); v.CanSet() {
			v.Set(c)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			walk(settable(v.Field(i)), seen)
		}
	case reflect.Slice:
		// every element, each time (idempotent): windows of one array
		// may be of any extent
		for i := range v.Len() {
			walk(v.Index(i), seen)
		}
	case reflect.Array:
		for i := range v.Len() {
			walk(settable(v.Index(i)), seen)
		}
	case reflect.Map:
		if v.IsNil() || !holdsText(v.Type().Elem(), map[reflect.Type]bool{}) {
			return
		}
		v = settable(v)
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			walk(c, seen)
			v.SetMapIndex(k, c)
		}
	}
}

// holdsText reports whether a value of type t can reach a Text.
func holdsText(t reflect.Type, on map[reflect.Type]bool) bool {
	if t == textType {
		return true
	}
	if on[t] {
		return false
	}
	on[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsText(t.Elem(), on)
	case reflect.Map:
		return holdsText(t.Elem(), on)
	case reflect.Interface:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsText(t.Field(i).Type, on) {
				return true
			}
		}
	}
	return false
}
