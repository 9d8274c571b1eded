package parser

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// genJSONCandidates generates size bytes of JSON-era log (seed 1) and
// returns its candidate lines (mayMatter).
func genJSONCandidates(tb testing.TB, size int64) [][]byte {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := loggen.Generate(&buf, loggen.Config{Size: size, Era: loggen.JSON, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if mayMatter(line) {
			out = append(out, line)
		}
	}
	return out
}

// BenchmarkDecodeJSONLogGenerated decodes the candidate lines of a
// generated 16 MiB JSON-era log, one line per iteration.
func BenchmarkDecodeJSONLogGenerated(b *testing.B) {
	lines := genJSONCandidates(b, 16<<20)
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n / len(lines)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		var rec record
		if err := decodeJSONLog(lines[i], &rec); err != nil {
			b.Fatal(err)
		}
		if i++; i == len(lines) {
			i = 0
		}
	}
}

// The decoding functions of jsonlog.go as they were before the speed pass
// (one string per key and value, every string scanned byte by byte, twice
// for values): decodeJSONLogFast must fill a record exactly as they do.

// jsonFastStringReference decodes the JSON string whose opening quote is at p[i]
// when it is valid UTF-8 with only short escapes; it returns the string
// and the offset after the closing quote.
func jsonFastStringReference(p []byte, i int) (string, int, bool) {
	if i >= len(p) || p[i] != '"' {
		return "", 0, false
	}
	start := i + 1
	esc := false
	j := start
	for ; j < len(p); j++ {
		c := p[j]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", 0, false
		}
		if c == '\\' {
			esc = true
			j++
			if j >= len(p) {
				return "", 0, false
			}
			switch p[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default:
				return "", 0, false // \u or invalid
			}
		}
	}
	if j >= len(p) || !utf8.Valid(p[start:j]) {
		return "", 0, false
	}
	if !esc {
		return string(p[start:j]), j + 1, true
	}
	return unescapeShort(p[start:j]), j + 1, true
}

// jsonSkipValueReference is the first jsonSkipValue: strings read byte by
// byte (stringEndReference), the rest as jsonSkipValueWith has it.
func jsonSkipValueReference(p []byte, i, depth int) (int, bool) {
	return jsonSkipValueWith(p, i, depth, stringEndReference)
}

// stringEndReference is the first jsonSkipValue's string reading.
func stringEndReference(p []byte, i int) (int, bool) {
	for j := i + 1; j < len(p); j++ {
		switch c := p[j]; {
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return 0, false
		case c == '\\':
			j++
			if j >= len(p) {
				return 0, false
			}
			switch p[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p) || !isHex(p[j+1]) || !isHex(p[j+2]) || !isHex(p[j+3]) || !isHex(p[j+4]) {
					return 0, false
				}
				j += 4
			default:
				return 0, false
			}
		}
	}
	return 0, false
}

// checkJSONLogFastReference compares decodeJSONLogFast with
// decodeJSONLogSlow (its definition) on p, with an empty record and with
// one holding pairs already, and jsonSkipValue and jsonFastString with
// their references at every offset.
func checkJSONLogFastReference(t *testing.T, p []byte) {
	t.Helper()
	for _, pre := range [][]kv{nil, {{Key: "a", Value: "b"}}} {
		got := record{KV: slices.Clone(pre)}
		want := record{KV: slices.Clone(pre)}
		if !decodeJSONLogFast(p, &got) {
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: not handled, but the record changed: %+v", p, got)
			}
			continue
		}
		if err := decodeJSONLogSlow(p, &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: decodeJSONLogFast %+v, decodeJSONLogSlow %+v (%v)", p, got, want, err)
		}
	}
	for i := range p {
		ge, gok := jsonSkipValue(p, i, 0)
		we, wok := jsonSkipValueReference(p, i, 0)
		if ge != we || gok != wok {
			t.Fatalf("jsonSkipValue(%q, %d) = %d, %v; reference %d, %v", p, i, ge, gok, we, wok)
		}
		if p[i] != '"' {
			continue
		}
		gs, gn, gok := jsonFastString(p, i, &jsonLine{p: p})
		ws, wn, wok := jsonFastStringReference(p, i)
		if gs != ws || gn != wn || gok != wok {
			t.Fatalf("jsonFastString(%q, %d) = %q, %d, %v; reference %q, %d, %v", p, i, gs, gn, gok, ws, wn, wok)
		}
	}
}

// jsonSpeedCorpus is the JSON lines to compare the decoders on: the seeds
// of FuzzDecodeJSONLogFast, the JSON lines of the test inputs, the
// candidate lines of a generated JSON-era log and variants of them cut
// short or with special bytes at each 8-byte boundary.
func jsonSpeedCorpus(t testing.TB) [][]byte {
	t.Helper()
	var out [][]byte
	for _, s := range jsonLogSeeds {
		out = append(out, []byte(s))
	}
	out = append(out, testJSONLines(t)...)
	gen := genJSONCandidates(t, 1<<20)
	out = append(out, gen...)
	for k, l := range gen[:min(len(gen), 40)] {
		for i := k % 8; i < len(l); i += 8 {
			out = append(out, l[:i])
			for _, c := range []byte{'"', '\\', 0x1f, 0x80, 0xc3, 'u'} {
				v := slices.Clone(l)
				v[i] = c
				out = append(out, v)
			}
		}
	}
	return out
}

func TestDecodeJSONLogFastMatchesReference(t *testing.T) {
	for _, p := range jsonSpeedCorpus(t) {
		checkJSONLogFastReference(t, p)
	}
}

// FuzzDecodeJSONLogFastReference compares decodeJSONLogFast, jsonFastString
// and jsonSkipValue with decodeJSONLogSlow and their references.
func FuzzDecodeJSONLogFastReference(f *testing.F) {
	for _, p := range jsonSpeedCorpus(f)[:2000] {
		f.Add(p)
	}
	f.Fuzz(checkJSONLogFastReference)
}
