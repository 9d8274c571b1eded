package report

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// corpusEvents are hostile events and every event of the real logs and
// incidents, repeated up to three batches.
func corpusEvents(t testing.TB) []parser.Event {
	evs := hostileEvents()
	results := fixtureResults()
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
	o.list(nil, "names", 1, func(b []byte, _ int, _ string) []byte { return b })
	if !y.failed {
		t.Error("a list in a YAML object did not mark the writer failed")
	}
	y.failed = false
	o.mapKey(nil, "k")
	if !y.failed {
		t.Error("a key from data in a YAML object did not mark the writer failed")
	}
	y.failed = false
	o.mapInt(nil, "? complex\nkey", 1)
	if !y.failed {
		t.Error("a key the encoder writes as a complex key did not mark the writer failed")
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

// yamlCorpusVolumes are hostile volumes given objects, kubelet intervals
// and overlaps of hostile strings, and the volumes of the real logs and
// incidents (real, also alone).
func yamlCorpusVolumes(t testing.TB) (all, real []*timeline.Volume) {
	t0 := time.Date(2021, 1, 13, 8, 27, 15, 0, time.UTC)
	vols := hostileVolumes()
	for i, v := range vols {
		s, o := hostileStrings[i%len(hostileStrings)], hostileStrings[(i+5)%len(hostileStrings)]
		if i%2 == 0 {
			v.SetObjects([]timeline.Object{{Kind: "VolumeAttachment", Name: s, Source: o, Text: s + "\n" + o}, {Kind: o}})
		}
		if i%3 == 0 {
			v.SetKubelet([]timeline.Interval{timeline.NewInterval(s, timeline.Attached, t0, time.Time{}, -1, -1)})
			v.Intervals = []timeline.Interval{timeline.NewInterval(o, timeline.Uncertain, t0, t0.Add(time.Minute), -1, -1)}
		}
		if i%4 == 1 {
			v.SetOverlaps([]timeline.Overlap{{Start: t0, Nodes: []string{s, o}, States: map[string]timeline.State{s: timeline.Attached, o: timeline.Uncertain}}})
		}
		v.Events = append(v.Events, hostileEvents()[i%len(hostileEvents())])
	}
	results := fixtureResults()
	real = timeline.Build(results, timeline.Options{}).Volumes
	vols = append(vols, real...)
	for len(vols) < 3*arrayBatch { // enough to be written in batches on every core
		vols = append(vols, vols...)
	}
	return vols, real
}

// TestDocYAMLMatchesConverter: analyze, timeline and volumes -o yaml,
// their volumes written by hand, are what the converter makes of their
// JSON, for the hand seeds, hostile volumes and the real logs and
// incidents, plain, redacted and with the tool and filters heads; and no
// value of the real logs needed the converter (hostile overlaps do: a
// node name the encoder writes as a complex key).
func TestDocYAMLMatchesConverter(t *testing.T) {
	vols, real := yamlCorpusVolumes(t)
	tl := &timeline.Timeline{Volumes: vols}
	analyses := []*Analysis{handSeed(false), handSeed(true), {Timeline: tl}, nil}
	var b bytes.Buffer
	before := yamlFallbacks.Load()
	if err := TimelineYAML(&b, &timeline.Timeline{Volumes: real}, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := yamlFallbacks.Load() - before; n > 0 {
		t.Errorf("%d values of the real logs were converted from JSON: the YAML layout could not write them", n)
	}
	for _, o := range []Options{{}, {Redact: true}, provenanceOptions()} {
		for i, a := range analyses {
			checkYAMLDoc(t, "analyze", i, o, func(w io.Writer) error { return AnalysisYAML(w, a, o) },
				func(w io.Writer) error { return yamlOf(RenderFunc[*Analysis](JSON)).Render(w, a, o) })
			var tlv *timeline.Timeline
			if a != nil {
				tlv = a.Timeline
			}
			checkYAMLDoc(t, "timeline", i, o, func(w io.Writer) error { return TimelineYAML(w, tlv, nil, o) },
				func(w io.Writer) error {
					return yamlOf(RenderFunc[int](func(w io.Writer, _ int, o Options) error { return TimelineJSON(w, tlv, nil, o) })).Render(w, 0, o)
				})
			var vs []*timeline.Volume
			if tlv != nil {
				vs = tlv.Volumes
			}
			checkYAMLDoc(t, "volumes", i, o, func(w io.Writer) error { return VolumesYAML(w, vs, o) },
				func(w io.Writer) error { return yamlOf(RenderFunc[[]*timeline.Volume](VolumesJSON)).Render(w, vs, o) })
		}
	}
}

func checkYAMLDoc(t *testing.T, view string, i int, o Options, got, want func(io.Writer) error) {
	t.Helper()
	var g, w bytes.Buffer
	if err := want(&w); err != nil {
		t.Fatal(err)
	}
	if err := got(&g); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g.Bytes(), w.Bytes()) {
		gl, wl := strings.Split(g.String(), "\n"), strings.Split(w.String(), "\n")
		for k := range min(len(gl), len(wl)) {
			if gl[k] != wl[k] {
				t.Fatalf("%s, case %d, %+v: line %d:\n got %q\nwant %q", view, i, o, k+1, gl[k], wl[k])
			}
		}
		t.Fatalf("%s, case %d, %+v: %d lines, want %d", view, i, o, len(gl), len(wl))
	}
}

// TestYAMLItemFallback: an element the YAML layout cannot write (here a
// list, which it leaves to JSON) is written as the converter writes its
// JSON, between items it can.
func TestYAMLItemFallback(t *testing.T) {
	vols := hostileVolumes()
	elem := func(dst []byte, i int, at jsonObject) ([]byte, error) {
		dst = at.open(dst)
		dst = at.str(dst, "name", vols[i].PV)
		if i%2 == 1 {
			dst = at.list(dst, "list", 2, func(b []byte, j int, _ string) []byte { return strconv.AppendInt(b, int64(j), 10) })
		}
		return at.close(dst), nil
	}
	doc := func(out *objectWriter) error {
		out.field("schema", "s")
		out.arrayOf("items", len(vols), elem)
		return out.close()
	}
	var want, got bytes.Buffer
	if err := yamlOf(RenderFunc[int](func(w io.Writer, _ int, _ Options) error { return doc(newObjectWriter(w)) })).Render(&want, 0, Options{}); err != nil {
		t.Fatal(err)
	}
	before := yamlFallbacks.Load()
	if err := doc(newYAMLObjectWriter(&got)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("got\n%s\nwant\n%s", got.Bytes(), want.Bytes())
	}
	if n, odd := yamlFallbacks.Load()-before, int64(len(vols)/2); n != odd {
		t.Errorf("%d fall-backs, want %d (the elements with a list)", n, odd)
	}
}

// FuzzVolumeYAML: a volume of any names, objects, intervals, overlaps and
// events is written as an item as the converter writes its JSON there.
func FuzzVolumeYAML(f *testing.F) {
	for i, s := range hostileStrings {
		f.Add(s, hostileStrings[(i+1)%len(hostileStrings)], uint8(i))
	}
	f.Add("multi\nline\n\n", "\ttab\nframe", uint8(255))
	f.Add("2024-08-12T04:48:01.734016Z", "yes", uint8(7))
	f.Add("- a", "? b: c", uint8(0))
	f.Fuzz(func(t *testing.T, a, b string, bits uint8) {
		t0 := time.Unix(int64(bits)*1e5, int64(bits))
		v := &timeline.Volume{UniqueName: a, PV: b, Handle: a, Multi: bits&1 != 0}
		v.SetNames([]string{a, b, a + b})
		v.SetNodes([]string{b})
		v.SetPods([]string{a})
		v.SetKey(b)
		v.SetDriver(a)
		if bits&2 != 0 {
			v.SetAttachments([]string{b})
			v.SetObjects([]timeline.Object{{Kind: a, Name: b, Source: a, Text: b}})
		}
		if bits&4 != 0 {
			v.Intervals = []timeline.Interval{timeline.NewInterval(a, timeline.State(bits%4), t0, t0.Add(time.Second), -1, -1)}
			v.SetKubelet([]timeline.Interval{timeline.NewInterval(b, timeline.State(bits%3), t0, time.Time{}, -1, -1)})
		}
		if bits&8 != 0 {
			v.SetOverlaps([]timeline.Overlap{{Start: t0, Nodes: []string{a, b}, States: map[string]timeline.State{a: 1, b: 2}}})
		}
		d := parser.Draft{Kind: parser.Kinds()[int(bits)%len(parser.Kinds())], Volume: a, PV: b, Node: b, Error: a + "\n" + b, Count: int32(bits)}
		if bits&16 != 0 {
			d.Time = parser.StampOf(t0)
		}
		v.Events = []parser.Event{d.Event()}
		for _, timelineDoc := range []bool{false, true} {
			elem := func(dst []byte, _ int, at jsonObject) ([]byte, error) {
				if timelineDoc {
					return appendTimelineVol(dst, v, at)
				}
				return appendVolume(dst, v, at), nil
			}
			js, err := elem(nil, 0, objectAt(arrayDepth))
			if err != nil {
				t.Skip()
			}
			var want bytes.Buffer
			bw := bufio.NewWriter(&want)
			c := newYAMLWriter(bw, nil)
			if c.readJSON(js) != nil || c.piece(nil, asElement) != nil {
				t.Skip() // nothing to compare with
			}
			bw.Flush()
			got, err := appendYAMLItem([]byte("prefix"), 0, elem, newYAMLWriter(nil, nil))
			if err != nil || !bytes.Equal(got[len("prefix"):], want.Bytes()) {
				t.Fatalf("timeline=%v: got\n%s (%v)\nwant\n%s", timelineDoc, got[len("prefix"):], err, want.Bytes())
			}
		}
	})
}
