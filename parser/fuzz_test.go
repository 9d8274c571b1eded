package parser

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to the envelope and message sides. It is
// seeded with every line of the shipped logs (and a few whole files).
// Invariants: no panic, every physical line accounted for, events point at
// lines that exist, times are UTC.
func FuzzParse(f *testing.F) {
	for _, path := range testInputs(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) < 4096 {
			f.Add(data) // whole small files; big ones make minimisation slow
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" && !strings.HasPrefix(line, "# ") {
				f.Add([]byte(line + "\n"))
			}
		}
	}
	for _, fx := range wrapperFixtures(f) {
		for i, line := range strings.Split(string(fx.data), "\n") {
			if i < 8 && line != "" {
				f.Add([]byte(line + "\n"))
			}
		}
	}
	f.Add(gzHeaderOnly)
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParseReader(bytes.NewReader(data), "fuzz.log", Options{MaxLineBytes: 4096, now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
		in := res.Input
		if u := in.Unaccounted(); u != 0 {
			t.Fatalf("%d lines unaccounted: %+v", u, in)
		}
		if n := bytes.Count(data, []byte("\n")); in.Lines > n+1 || (len(data) > 0 && !in.Truncated && in.Lines < n && !isCompressed(data)) {
			t.Fatalf("read %d lines from %d newlines", in.Lines, n)
		}
		if in.Events != len(res.Events) {
			t.Fatalf("Input.Events %d, %d events", in.Events, len(res.Events))
		}
		for _, ev := range res.Events {
			if ev.Source.Line < 1 || ev.Source.Line > in.Lines {
				t.Fatalf("event at line %d of %d", ev.Source.Line, in.Lines)
			}
			if !ev.Time.IsZero() && ev.Time.Location() != time.UTC {
				t.Fatalf("time %v not UTC", ev.Time)
			}
		}
	})
}

var gzHeaderOnly = []byte{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff}
