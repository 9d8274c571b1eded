package envelope

import (
	"fmt"
	"reflect"
	"testing"
)

// rawOf reads a JSON object line as rawItem does, sharing cache.
func rawOf(t *testing.T, line string, cache *rawCache) *rawObject {
	t.Helper()
	var fields []rawField
	if end, res := skimObject([]byte(line), 0, 0, &fields); res != skimOK || end != len(line) {
		t.Fatalf("%s: not one object", line)
	}
	return &rawObject{b: []byte(line), fields: fields, c: cache}
}

// TestZuluTimeAsParseTime: every time zuluTime reads from the bytes is
// what parseTime reads from the text, the second kept from the record
// before included; the rest it leaves to parseTime.
func TestZuluTimeAsParseTime(t *testing.T) {
	var cache rawCache
	read := 0
	for _, s := range []string{
		"2024-08-12T03:14:15.619804Z", "2024-08-12T03:14:15.619805Z", "2024-08-12T03:14:15Z", "2024-08-12T03:14:15.1Z",
		"2024-08-12T03:14:15.123456789Z", "2024-08-12T03:14:15.1234567891Z", "2024-08-12T03:14:15.Z", "2024-08-12T03:14:15.12a4Z",
		"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2024-04-31T00:00:00Z", "2024-12-31T23:59:59.999Z", "2024-13-01T00:00:00Z",
		"2024-00-01T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z",
		"2024-08-12 03:14:15Z", "2024-08-12T03:14:15z", "2024-08-12T03:14:15+00:00", "2024-08-12T03:14:15.5+02:00",
		" 2024-08-12T03:14:15Z", "2024-08-12T03:14:15Z ", "+024-08-12T03:14:15Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
		"2024-8-12T03:14:15.00Z", "2024-08-12T03:14:15.619804Z",
	} {
		o := rawOf(t, fmt.Sprintf(`{"t":%q}`, s), &cache)
		got, prec, ok := o.zuluTime("t")
		if !ok {
			continue
		}
		read++
		want, src, wprec, wok := parseTime(s, 0, TimeNoZone)
		if !wok || src != TimeZoned || prec != wprec || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: zuluTime %v %v, parseTime %v %v %v %v", s, got, prec, want, src, wprec, wok)
		}
	}
	if read < 10 {
		t.Fatalf("zuluTime read only %d of the times", read)
	}
	o := rawOf(t, `{"t":"2024-08-12T03:14:15\u002e5Z","n":20240812}`, &cache)
	for _, p := range []string{"t", "n", "x"} {
		if _, _, ok := o.zuluTime(p); ok {
			t.Errorf("zuluTime read %s", p)
		}
	}
}
