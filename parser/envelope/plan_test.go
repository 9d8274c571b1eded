package envelope

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"
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
		got, prec, ok := o.time(timeField{path: "t"})
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
		if _, _, ok := o.time(timeField{path: p}); ok && p != "n" {
			t.Errorf("time read %s", p)
		}
	}
}

// varyLayouts changes the layout of some JSON Lines records of in: keys
// swapped, a member dropped, a member added (an object, or the same name
// as a string, a path goes into), a key duplicated or escaped.
func varyLayouts(in []byte, from, to string) []byte {
	lines := bytes.SplitAfter(in, []byte("\n"))
	for i, l := range lines {
		switch i % 11 {
		case 3:
			l = bytes.Replace(l, []byte(`"`+from+`"`), []byte(`"`+to+`"`), 1)
		case 5:
			l = bytes.Replace(l, []byte(`{`), []byte(`{"kubernetes":{"pod_name":"p-`+strconv.Itoa(i)+`","labels":{"component":"kcm"}},`), 1)
		case 6:
			l = bytes.Replace(l, []byte(`{`), []byte(`{"kubernetes":"flat",`), 1)
		case 7:
			l = bytes.Replace(l, []byte(`{`), []byte(`{"p\u006fd":"escaped","`+to+`":"twice",`), 1)
		case 8:
			l = bytes.Replace(l, []byte(`}`), []byte(`,"`+to+`":"again"}`), 1)
		case 9:
			l = bytes.Replace(l, []byte(`{`), []byte(`{"kubernetes":{"pod_name":"p\u002d1","labels":{"comp\u006fnent":"x"}},`), 1)
		}
		lines[i] = l
	}
	return bytes.Join(lines, nil)
}

// TestPlansMatchFull: the JSON Lines envelopes read a generated export,
// and one whose records change layout along it, with field plans as
// encoding/json's maps read them, record by record, skimming or not.
func TestPlansMatchFull(t *testing.T) {
	for _, ex := range jsonLinesExports(t, 256<<10) {
		compareFast(t, ex.envelope, ex.in)
		for _, swap := range [][2]string{{"_time", "_msg"}, {"line", "labels"}, {"message", "kubernetes"}, {"MESSAGE", "_HOSTNAME"}} {
			compareFast(t, ex.envelope, varyLayouts(ex.in, swap[0], swap[1]))
		}
	}
}

// TestPlanLayouts: a plan serves the records laid out as the one it was
// made of, and only those.
func TestPlanLayouts(t *testing.T) {
	fm := elasticsearchDoc.fields
	var c planCache
	rec := func(line string) (*fieldPlan, bool) {
		o := rawOf(t, line, nil)
		if p := c.lookup(fm, o.b, o.fields); p != nil {
			return p, true
		}
		return c.build(fm, o.b, o.fields), false
	}
	a := `{"message":"m","kubernetes":{"pod_name":"a","host":"n"},"@timestamp":"2024-08-12T03:14:15Z"}`
	p, hit := rec(a)
	if hit || p == nil || p.slow {
		t.Fatalf("first record: plan %v, hit %v", p, hit)
	}
	for _, same := range []string{a, `{"message":"other","kubernetes":{"pod_name":"b","host":"m"},"@timestamp":1}`} {
		if q, hit := rec(same); !hit || q != p {
			t.Fatalf("%s: not served by the plan", same)
		}
	}
	for i, other := range []string{
		`{"kubernetes":{"pod_name":"a","host":"n"},"message":"m","@timestamp":"2024-08-12T03:14:15Z"}`,
		`{"message":"m","kubernetes":{"host":"n","pod_name":"a"},"@timestamp":"2024-08-12T03:14:15Z"}`,
		`{"message":"m","kubernetes":"a","@timestamp":"2024-08-12T03:14:15Z"}`,
		`{"message":"m","kubernetes":{"pod_name":"a","host":"n","x":1},"@timestamp":"2024-08-12T03:14:15Z"}`,
	} {
		if q, hit := rec(other); hit && q == p {
			t.Fatalf("%s: served by the plan of %s", other, a)
		}
		if q, hit := rec(a); i < maxPlans-1 && (!hit || q != p) {
			t.Fatalf("after %s: the first layout's plan was dropped", other)
		}
	}
}

// TestHeadOf: the head of a message is its ASCII bytes before the first
// escape, at most skimHeadMax, wherever the escape or the first non-ASCII
// byte falls.
func TestHeadOf(t *testing.T) {
	ref := func(s []byte) []byte {
		n := min(len(s), skimHeadMax)
		for i, c := range s[:n] {
			if c == '\\' || c >= 0x80 {
				return s[:i]
			}
		}
		return s[:n]
	}
	base := bytes.Repeat([]byte("I0812 03:14:15.619804 1 x.go:1] abcdefgh"), 5)
	for n := 0; n <= len(base); n += 7 {
		for at := -1; at < min(n, skimHeadMax+2); at++ {
			for _, c := range []string{"\\", "\xc3\xa9", "\xff"} {
				s := bytes.Clone(base[:n])
				if at >= 0 {
					s = append(s[:at:at], append([]byte(c), s[at:]...)...)
				}
				if got, want := headOf(s), ref(s); !bytes.Equal(got, want) {
					t.Fatalf("headOf(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}

// TestStringStop: stringStop finds the first '"', '\\' or control byte
// wherever it falls in the words it reads.
func TestStringStop(t *testing.T) {
	for n := 0; n < 40; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{'"', '\\', 0, 0x1f, '\n'} {
				b := bytes.Repeat([]byte{'a'}, n)
				for i := range b {
					b[i] = "ab!~\x7f\x80\xff\x20#"[i%9]
				}
				if at >= 0 {
					b[at] = c
				}
				for j := 0; j <= n; j++ {
					want := n
					if at >= j {
						want = at
					}
					if got := stringStop(b, j); got != want {
						t.Fatalf("stringStop(%q, %d) = %d, want %d", b, j, got, want)
					}
				}
			}
		}
	}
}

// TestRawTimeAsParse: rawObject.time reads epoch numbers (JSON numbers
// and strings of digits, any unit) and zulu strings as timeField.parse
// reads the member's text, and leaves the rest to it.
func TestRawTimeAsParse(t *testing.T) {
	read := 0
	for _, unit := range []time.Duration{0, time.Millisecond, time.Second} {
		for _, v := range []string{
			`1723432455`, `1723432455619`, `1723432455619804`, `1723432455619804123`, `"1723432455619804"`, `1723432455.5`,
			`"1723432455.619804"`, `12345678901234567890`, `-1723432455`, `1.7e9`, `"1723432455 "`, `" 1723432455"`, `"17234\u00332455"`,
			`"2024-08-12T03:14:15.619804Z"`, `"2024-08-12T03:14:15.619"`, `"2024-08-12 03:14:15"`, `0`, `"0"`, `true`, `null`, `{"a":1}`, `"1723432455."`,
		} {
			o := rawOf(t, `{"t":`+v+`}`, &rawCache{})
			tf := timeField{path: "t", unit: unit}
			got, prec, ok := o.time(tf)
			if !ok {
				continue
			}
			read++
			s, k := o.field("t")
			want, src, wprec, wok := tf.parse(s, k.text())
			if !wok || src != TimeZoned || prec != wprec || !reflect.DeepEqual(got, want) {
				t.Errorf("%s unit %v: time %v %v, parse %v %v %v %v", v, unit, got, prec, want, src, wprec, wok)
			}
		}
	}
	if read < 20 {
		t.Fatalf("time read only %d of the values", read)
	}
}
