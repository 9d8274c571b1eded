package envelope

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// fuzzSeeds adds the start of every fixture of the envelope (all when
// envelope is "") to f.
func fuzzSeeds(f *testing.F, envelope string) {
	for _, sf := range seedFiles[:2] {
		for _, fx := range fixtures {
			if envelope == "" || fx.envelope == envelope {
				b := readFixture(f, fx.path(sf))
				f.Add(b[:min(len(b), 4096)])
			}
		}
	}
}

// checkDecode holds Decode to its contract on any input: no error but the
// reader's, valid UTF-8 messages, positions within the lines read,
// Records counting what was yielded, and no time exactly when NoTime says.
func checkDecode(t *testing.T, name string, in []byte) {
	var n, noTime int
	st, err := Decode(name, bytes.NewReader(in), func(r Record) error {
		n++
		if !utf8.ValidString(r.Msg) {
			t.Fatalf("message not UTF-8: %q", r.Msg)
		}
		if r.Pos < 1 || r.Pos > st0(in) {
			t.Fatalf("position %d outside the input's %d lines", r.Pos, st0(in))
		}
		if r.Time.IsZero() != (r.TimeSource == TimeNone) {
			t.Fatalf("time %v with source %q", r.Time, r.TimeSource)
		}
		if r.Time.IsZero() {
			noTime++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if st.Records != n || st.NoTime != noTime || st.ProblemCount < len(st.Problems)-1 {
		t.Fatalf("stats %+v for %d records (%d without time)", st, n, noTime)
	}
}

// st0 is the number of lines of in (a last line without "\n" counts).
func st0(in []byte) int {
	n := bytes.Count(in, []byte("\n"))
	if len(in) > 0 && in[len(in)-1] != '\n' {
		n++
	}
	return max(n, 1)
}

// FuzzDocument: every JSON envelope on any bytes, as a document or lines.
func FuzzDocument(f *testing.F) {
	for _, e := range []string{"gcp", "cloudwatch", "azure", "loki", "elasticsearch"} {
		fuzzSeeds(f, e)
	}
	f.Add([]byte(`{"events":[{"timestamp":1,"message":"x"}`))
	f.Add([]byte(`{"data":{"result":[{"values":[["1","x"]],"stream":{}}]}}`))
	f.Add([]byte(`{"tables":[{"columns":[{"name":"Message"}],"rows":[["x"],[1,2]]}]}`))
	f.Add([]byte(`{"events":[{"timestamp":1,"message":"x"}e t]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, e := range []string{"gcp", "cloudwatch", "azure", "loki", "elasticsearch"} {
			checkDecode(t, e, in)
		}
	})
}

// FuzzLines: the line envelopes and text shapes on any bytes.
func FuzzLines(f *testing.F) {
	for _, e := range []string{"victorialogs", "journald-json", "journald-export"} {
		fuzzSeeds(f, e)
	}
	for _, fx := range fixtures {
		if fx.ext == "txt" || fx.ext == "csv" {
			b := readFixture(f, fx.path(seedFiles[0]))
			f.Add(b[:min(len(b), 4096)])
		}
	}
	f.Add([]byte("MESSAGE\n\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, e := range Names() {
			checkDecode(t, e, in)
		}
	})
}

// FuzzDetect: Detect never panics and names a registered envelope.
func FuzzDetect(f *testing.F) {
	fuzzSeeds(f, "")
	f.Fuzz(func(t *testing.T, in []byte) {
		name, score := Detect(in)
		if name == "" {
			if score != 0 {
				t.Fatalf("no envelope but score %d", score)
			}
			return
		}
		if _, ok := Lookup(name); !ok || score < MinScore || score > 100 {
			t.Fatalf("Detect = %q, %d", name, score)
		}
	})
}

// TestReadErrorPassedOn: a failing reader is the error, in both modes.
func TestReadErrorPassedOn(t *testing.T) {
	boom := errors.New("boom")
	for _, name := range []string{"gcp", "victorialogs", "cloudwatch", "journald-export", "elasticsearch"} {
		r := io.MultiReader(bytes.NewReader([]byte("[{\"textPayload\":\"x\",\"timestamp\":\"2024-08-12T03:10:00Z\"},\n")), iotest.ErrReader(boom))
		if _, err := Decode(name, r, func(Record) error { return nil }); !errors.Is(err, boom) {
			t.Errorf("%s: err = %v, want boom", name, err)
		}
	}
}

// TestYieldErrorStops: the error yield returns ends decoding and is returned.
func TestYieldErrorStops(t *testing.T) {
	stop := errors.New("enough")
	b := readFixture(t, fixtures[0].path(seedFiles[0]))
	n := 0
	_, err := Decode("gcp", bytes.NewReader(b), func(Record) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d records, want %v after 1", err, n, stop)
	}
}
