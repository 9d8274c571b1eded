package report

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// corpusEvents are hostile events and every event of the real logs and
// incidents, repeated up to three batches.
func corpusEvents(t testing.TB) []parser.Event {
	evs := hostileEvents()
	var paths []string
	for _, glob := range []string{"../testdata/real-logs/*.log", "../testdata/incidents/*/*.log", "../testdata/incidents/*/*.txt"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	results, _ := parser.ParseAll(paths, parser.Options{})
	for _, r := range results {
		evs = append(evs, r.Events...)
	}
	if len(evs) < 500 {
		t.Fatalf("%d events", len(evs))
	}
	for len(evs) < 3*eventBatch { // enough to be rendered in batches on every core
		evs = append(evs, evs...)
	}
	return evs
}

// TestEventYAMLMatchesConverter: events -o yaml written by hand is what the
// converter makes of events -o jsonl, whole (documents, separators, the
// batches on every core, redacted or not) and event by event, for hostile
// events and every event of the real logs and incidents; and none of
// them needs the converter (a fall-back would hide a slow path).
func TestEventYAMLMatchesConverter(t *testing.T) {
	evs := corpusEvents(t)
	for _, o := range []Options{{}, {Redact: true}} {
		var want, got bytes.Buffer
		if err := yamlOf(RenderFunc[[]parser.Event](EventsJSONL)).Render(&want, evs, o); err != nil {
			t.Fatal(err)
		}
		if err := EventsYAML(&got, evs, o); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("redact=%v: EventsYAML differs from the converter's YAML of EventsJSONL (%d vs %d bytes)", o.Redact, got.Len(), want.Len())
		}
	}
	y := newYAMLWriter(nil, nil)
	for i := range evs {
		var want bytes.Buffer
		if err := jsonToYAML(&want, bytes.NewReader(appendEvent(nil, &evs[i], jsonObject{compact: true}))); err != nil {
			t.Fatal(err)
		}
		y.failed = false
		got := appendEvent([]byte("prefix"), &evs[i], jsonObject{yaml: y})
		if y.failed {
			t.Errorf("event %d: the YAML appender fell back to the converter", i)
		}
		if !bytes.Equal(got[len("prefix"):], want.Bytes()) {
			t.Fatalf("event %d:\n got %q\nwant %q", i, got[len("prefix"):], want.Bytes())
		}
	}
}

// TestEventYAMLFallback: what a YAML object cannot write (a list, a key
// from data) marks the writer failed, and appendEventYAML then writes the
// converter's YAML of the value instead.
func TestEventYAMLFallback(t *testing.T) {
	y := newYAMLWriter(nil, nil)
	o := jsonObject{yaml: y}
	o.strings(nil, "names", []string{"a"})
	if !y.failed {
		t.Error("a list in a YAML object did not mark the writer failed")
	}
	y.failed = false
	o.mapKey(nil, "k")
	if !y.failed {
		t.Error("a key from data in a YAML object did not mark the writer failed")
	}
	ev := hostileEvents()[3]
	var want bytes.Buffer
	if err := jsonToYAML(&want, bytes.NewReader(appendEvent(nil, &ev, jsonObject{compact: true}))); err != nil {
		t.Fatal(err)
	}
	y.failed = false
	got, err := appendEventYAML(nil, &ev, y)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("appendEventYAML = %q, %v; want %q", got, err, want.Bytes())
	}
}

// FuzzEventYAML: an event of any strings, counts and spans is written as
// the converter writes its JSON.
func FuzzEventYAML(f *testing.F) {
	for i, s := range hostileStrings {
		f.Add(s, hostileStrings[(i+1)%len(hostileStrings)], int32(i), int64(i)*1e9)
	}
	f.Add("multi\nline\n\n", "\ttab\nframe", int32(-3), int64(-1))
	f.Add("2024-08-12T04:48:01.734016Z", "yes", int32(1<<30), int64(90*time.Minute))
	f.Add("- a", "? b: c", int32(0), int64(0))
	f.Fuzz(func(t *testing.T, a, b string, n int32, span int64) {
		d := parser.Draft{Kind: parser.Kinds()[int(uint32(n))%len(parser.Kinds())], Volume: a, PV: b, Handle: a,
			Attachment: b, Node: a, Pod: b, Error: a, Code: b, Detail: a + "\n" + b, Reason: b, Count: n, PID: n,
			EchoOf: n, Span: time.Duration(span), Source: parser.Source{Line: n}, Level: byte(n)}
		if n%2 == 0 {
			d.Time = parser.StampOf(time.Unix(int64(n), int64(n)))
		}
		if n%3 == 0 {
			d.Retry = &parser.Retry{Backoff: time.Duration(span)}
		}
		ev := d.Event()
		var want bytes.Buffer
		if err := jsonToYAML(&want, bytes.NewReader(appendEvent(nil, &ev, jsonObject{compact: true}))); err != nil {
			t.Skip() // nothing to compare with
		}
		got, err := appendEventYAML([]byte("prefix"), &ev, newYAMLWriter(nil, nil))
		if err != nil || !bytes.Equal(got[len("prefix"):], want.Bytes()) {
			t.Fatalf("got %q, %v\nwant %q", got[len("prefix"):], err, want.Bytes())
		}
	})
}
