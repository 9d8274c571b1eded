package parser

import (
	"reflect"
	"testing"
	"time"
)

// hasPointers reports whether values of t hold pointers the garbage
// collector must follow.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// TestEvMetaHasNoPointers keeps the metadata pages out of the collector's
// scans and flattenAll's copy free of write barriers.
func TestEvMetaHasNoPointers(t *testing.T) {
	if hasPointers(reflect.TypeFor[evMeta]()) {
		t.Fatal("evMeta holds a pointer: keep it pointer-free (see instant)")
	}
	if !hasPointers(reflect.TypeFor[time.Time]()) {
		t.Fatal("hasPointers misses time.Time's *Location")
	}
}

func TestInstantKeepsTheInstant(t *testing.T) {
	est := time.FixedZone("EST", -5*3600)
	for _, tm := range []time.Time{
		time.Date(2024, 8, 12, 3, 14, 11, 301223999, time.UTC),
		time.Date(2021, 1, 13, 16, 27, 21, 123000000, est),
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), // one nanosecond after the zero time
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, est),
	} {
		i := instantOf(tm)
		if !i.set {
			t.Fatalf("%v: not set", tm)
		}
		if got, want := i.time(), tm.UTC(); !got.Equal(want) || got.Location() != time.UTC || got != want {
			t.Errorf("instantOf(%v).time() = %v, want %v", tm, got, want)
		}
	}
	if instantOf(time.Time{}).set {
		t.Error("the zero time is set")
	}
}
