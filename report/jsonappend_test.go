package report

import (
	"bytes"
	"io"
	"math/rand"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	goccy "github.com/goccy/go-json"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// hostileStrings are log-derived texts that need escaping, or look as if
// they might: control characters, ANSI escapes, invalid UTF-8, line and
// paragraph separators, HTML characters, quotes and backslashes.
var hostileStrings = []string{
	"", "plain", "disk-abc", "<b>&amp;</b>", "quote \" backslash \\ slash /",
	"ctl \x00\x01\x07\x08\x0c\x1f\x7f \t\r\n", "esc \x1b[31mred\x1b[0m \x1b]8;;http://x\x07",
	"c1 \u009b31m \u0085", "bad utf8 \xff\xfe \xc3", "surrogate \xed\xa0\x80", "line sep \u2028 para \u2029",
	"é 中 🙂", "\ufffd", "bidi \u202egnp.exe", "node|b`x", "db/<script>alert(1)</script>",
}

// TestAppendJSONStringMatchesEncoders: the hand-written string encoding is
// the encoders' (both encoding/json and the one the writers use), on
// hostile strings, every single byte and random byte soup.
func TestAppendJSONStringMatchesEncoders(t *testing.T) {
	ss := append([]string{}, hostileStrings...)
	for c := 0; c < 256; c++ {
		ss = append(ss, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"z")
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("ab\"\\<>&\x00\x1b\n\t\x7f\x80\xc3\xa9\xe2\x80\xa8\xff/ ")
	for range 2000 {
		b := make([]byte, rng.Intn(12))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		ss = append(ss, string(b))
	}
	for _, s := range ss {
		var std bytes.Buffer
		if err := encodeJSON(&std, s); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(std.Bytes(), []byte("\n"))
		fast, err := appendIndented(nil, s, "")
		if err != nil {
			t.Fatal(err)
		}
		got := appendJSONString([]byte("x"), s)
		if !bytes.Equal(got[1:], want) || !bytes.Equal(fast, want) || got[0] != 'x' {
			t.Errorf("%q: appendJSONString %s, writers' encoder %s, encoding/json %s", s, got[1:], fast, want)
		}
	}
}

// hostileVolumes are volumes with every field empty, nil or hostile.
func hostileVolumes() []*timeline.Volume {
	t0 := time.Date(2021, 1, 13, 8, 27, 15, 120000000, time.FixedZone("CST", 8*3600))
	vols := []*timeline.Volume{
		{}, // every list nil, no events, zero times
		{Events: []parser.Event{parser.Draft{Kind: parser.AttachFailed, Count: -3}.Event()}},
		{UniqueName: "u", Multi: true},
	}
	vols[1].SetNames([]string{})
	vols[1].SetNodes([]string{})
	vols[1].SetKey("key-only")
	vols[2].SetKey("k")
	vols[1].SetSpan(t0, time.Time{})
	vols[2].SetSpan(time.Time{}, t0.Add(time.Nanosecond))
	kinds := parser.Kinds()
	for i, s := range hostileStrings {
		other := hostileStrings[(i+3)%len(hostileStrings)]
		v := &timeline.Volume{
			UniqueName: other, PV: s, Handle: other,
			Multi: i%2 == 0,
		}
		v.SetNodes([]string{s})
		v.SetPods([]string{other, s, "p"})
		v.SetKey(s)
		v.SetDriver(s)
		v.SetAttachments([]string{other})
		v.SetSpan(t0.Add(time.Duration(i)*time.Hour), t0.Add(time.Duration(i)*1500*time.Millisecond))
		if i%3 == 0 {
			v.UniqueName = ""
		}
		v.SetNames([]string{s, other})
		for j, k := range []parser.Kind{
			parser.AttachFailed, parser.DetachFailed, parser.MountDeviceFailed, parser.SetupFailed,
			parser.WaitForAttachFailed, parser.MountTimeout, parser.AttachStarted, kinds[i%len(kinds)], 0,
			parser.AttachFailed, parser.Unknown, kinds[(i*7)%len(kinds)],
		} {
			v.Events = append(v.Events, parser.Draft{Kind: k, Count: parser.Int32((i + j) % 4), Time: parser.StampOf(t0)}.Event())
		}
		vols = append(vols, v)
	}
	return vols
}

// TestAppendVolumeMatchesEncoder: appendVolume writes what encoding
// toWireVolume writes, for hostile volumes and for the hand seed, at the
// depth the documents use and at the top level.
func TestAppendVolumeMatchesEncoder(t *testing.T) {
	vols := append(hostileVolumes(), handSeed(true).Timeline.Volumes...)
	vols = append(vols, handSeed(false).Timeline.Volumes...)
	for _, depth := range []int{0, 1, arrayDepth, 5} {
		for i, v := range vols {
			want, err := appendIndented(nil, toWireVolume(v), strings.Repeat("  ", depth))
			if err != nil {
				t.Fatal(err)
			}
			var std bytes.Buffer
			if depth == 0 {
				if err := encodeJSON(&std, toWireVolume(v)); err != nil {
					t.Fatal(err)
				}
				if s := bytes.TrimSuffix(std.Bytes(), []byte("\n")); !bytes.Equal(s, want) {
					t.Errorf("volume %d: encoders disagree:\n%s\n%s", i, s, want)
				}
			}
			got := appendVolume([]byte("prefix"), v, objectAt(depth))
			if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
				t.Errorf("depth %d, volume %d:\n got %s\nwant %s", depth, i, got[len("prefix"):], want)
			}
		}
	}
}

// TestVolumesJSONMatchesWholeValue: the volumes document, hand-written
// volumes included, is the encoding of the whole wireVolumes value, on one
// goroutine and on several (enough volumes to be written by batches).
func TestVolumesJSONMatchesWholeValue(t *testing.T) {
	base := hostileVolumes()
	var vols []*timeline.Volume
	for len(vols) < 3*arrayBatch+5 {
		vols = append(vols, base...)
	}
	doc := wireVolumes{Schema: SchemaVolumes, Volumes: []wireVolume{}}
	for _, v := range vols {
		doc.Volumes = append(doc.Volumes, toWireVolume(v))
	}
	var want bytes.Buffer
	// the document's DEL bytes escaped, as every JSON output's (delEscaper)
	if err := encodeJSON(delEscaper{&want}, doc); err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 4} {
		got := renderOn(t, procs, func(w io.Writer) error { return VolumesJSON(w, vols, Options{}) })
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("GOMAXPROCS %d: volumes document differs from the whole value", procs)
		}
	}
}

// renderOn is what render writes with GOMAXPROCS procs.
func renderOn(t *testing.T, procs int, render func(io.Writer) error) []byte {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var out bytes.Buffer
	if err := render(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestPlainJSONEveryByteEverywhere: the word-at-a-time checks flag
// exactly the strings with a byte JSON escapes (or that is not ASCII),
// with a byte that is not printable ASCII (printableASCII), and with one
// Sanitize changes (isClean), wherever in the string that byte is;
// appendJSONString writes what the encoder writes.
func TestPlainJSONEveryByteEverywhere(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
		printable := c >= 0x20 && c <= 0x7e
		for n := 1; n <= 35; n++ {
			for pos := 0; pos < n; pos++ {
				b := []byte(strings.Repeat("a", n))
				b[pos] = byte(c)
				if got := plainJSON(string(b)); got != want {
					t.Fatalf("plainJSON(%q) = %v, want %v", b, got, want)
				}
				if got := printableASCII(string(b)); got != printable {
					t.Fatalf("printableASCII(%q) = %v, want %v", b, got, printable)
				}
				if got, want := isClean(string(b)), printable || c == '\t' || c == '\n'; got != want {
					t.Fatalf("isClean(%q) = %v, want %v", b, got, want)
				}
				if pos == n/2 {
					std, _ := appendIndented(nil, string(b), "")
					if got := appendJSONString(nil, string(b)); !bytes.Equal(got, std) {
						t.Fatalf("%q: appendJSONString %s, encoder %s", b, got, std)
					}
				}
			}
		}
	}
}

// TestAppendTSMatchesFormat: the hand-written timestamps are the time
// package's RFC 3339 (nanoseconds, UTC), on edge dates, fractions with and
// without trailing zeros, other zones, monotonic readings and random times
// from before 1970 to after 9999.
func TestAppendTSMatchesFormat(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	if ny == nil {
		ny = time.FixedZone("EST", -5*3600)
	}
	times := []time.Time{
		time.Unix(0, 0), time.Unix(0, 1), time.Unix(-1, 999999999), time.Unix(year10000-1, 999999999), time.Unix(year10000, 0),
		time.Date(2000, 2, 29, 23, 59, 59, 100000000, time.UTC), time.Date(2100, 2, 28, 12, 0, 0, 120000, time.UTC),
		time.Date(2100, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2024, 8, 12, 0, 52, 51, 30042000, time.UTC), time.Date(2021, 1, 13, 8, 27, 15, 120000000, ny),
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC), time.Now(), time.Now().In(ny),
	}
	rng := rand.New(rand.NewSource(1))
	for range 200000 {
		sec := rng.Int63n(400e9) - 100e9
		ns := []int64{0, rng.Int63n(1e9), rng.Int63n(1e3) * 1e6, rng.Int63n(1e6) * 1e3}[rng.Intn(4)]
		times = append(times, time.Unix(sec, ns))
	}
	for _, tm := range times {
		want := tm.UTC().Format(time.RFC3339Nano)
		if got := string(appendTS([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("appendTS(%v) = %q, want %q", tm, got[1:], want)
		}
		if got := ts(tm); got != want {
			t.Fatalf("ts(%v) = %q, want %q", tm, got, want)
		}
	}
}

// fixtureResults are the real logs and the incidents, parsed.
func fixtureResults() []parser.Result {
	var paths []string
	for _, glob := range []string{"../testdata/real-logs/*.log", "../testdata/incidents/*/*.log", "../testdata/incidents/*/*.txt"} {
		m, _ := filepath.Glob(glob)
		paths = append(paths, m...)
	}
	results, _ := parser.ParseAll(paths, parser.Options{})
	return results
}

// hostileEvents are events whose every field is set, from hostile strings
// (escapes, quotes, invalid UTF-8, DEL, HTML), with spans, retries,
// levels, echoes and describe rows among them.
func hostileEvents() []parser.Event {
	t0 := time.Date(2021, 1, 13, 8, 27, 15, 120000000, time.UTC)
	var evs []parser.Event
	for i, s := range hostileStrings {
		o := hostileStrings[(i+1)%len(hostileStrings)]
		d := parser.Draft{Kind: parser.Kinds()[i%len(parser.Kinds())], Volume: s, PV: o, Handle: s, Attachment: o,
			Node: s, Pod: o, Error: s, Code: o, Detail: s, Reason: o, Count: int32(i - 1), PID: int32(i * 7), EchoOf: int32(i % 3),
			Component: parser.Component(i % 4), Origin: parser.Origin(i % 3), Relative: i%2 == 1, Source: parser.Source{Line: int32(i)}}
		if i%2 == 0 {
			d.Time = parser.StampOf(t0.Add(time.Duration(i) * time.Second))
		}
		if i%3 == 0 {
			d.Span = time.Duration(i) * 1500 * time.Millisecond
			d.Level = "IWEF"[i%4]
			d.Retry = &parser.Retry{Backoff: time.Duration(i+1) * time.Second}
		}
		evs = append(evs, d.Event())
	}
	return evs
}

// TestAppendTimelineVolMatchesEncoder: the hand-written timeline volume
// (intervals, kubelet intervals, overlaps, every event) is what the
// encoder writes for toWireTimelineVol, at every depth, for hostile
// volumes and events and for every volume of the real logs and incidents.
func TestAppendTimelineVolMatchesEncoder(t *testing.T) {
	vols := append(hostileVolumes(), handSeed(true).Timeline.Volumes...)
	hostile := &timeline.Volume{UniqueName: "h", Events: hostileEvents()}
	vols = append(vols, hostile)
	results := fixtureResults()
	tl := timeline.Build(results, timeline.Options{})
	vols = append(vols, tl.Volumes...)
	var kubelet, overlaps, events int
	for _, v := range vols {
		kubelet += len(v.Kubelet())
		overlaps += len(v.Overlaps())
		events += len(v.Events)
	}
	if kubelet == 0 || overlaps == 0 || events < 500 {
		t.Fatalf("the volumes have %d kubelet intervals, %d overlaps, %d events", kubelet, overlaps, events)
	}
	for _, depth := range []int{0, 1, arrayDepth, 5} {
		for i, v := range vols {
			want, err := appendIndented(nil, toWireTimelineVol(v), strings.Repeat("  ", depth))
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendTimelineVol([]byte("prefix"), v, objectAt(depth))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
				t.Fatalf("depth %d, volume %d (%s):\n got %s\nwant %s", depth, i, v.UniqueName, got[len("prefix"):], want)
			}
		}
	}
}

// TestAppendEventCompactMatchesEncoder: a line of JSON Lines written by
// hand is the encoder's line for toWireEvent, for hostile events and every
// event of the real logs and incidents.
func TestAppendEventCompactMatchesEncoder(t *testing.T) {
	evs := hostileEvents()
	results := fixtureResults()
	for _, r := range results {
		evs = append(evs, r.Events...)
	}
	for i := range evs {
		var want bytes.Buffer
		enc := goccy.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(toWireEvent(evs[i])); err != nil {
			t.Fatal(err)
		}
		got := append(appendEvent([]byte("prefix"), &evs[i], jsonObject{compact: true}), '\n')
		if !bytes.Equal(got[len("prefix"):], want.Bytes()) {
			t.Fatalf("event %d:\n got %s\nwant %s", i, got[len("prefix"):], want.Bytes())
		}
	}
}

// TestAppendFindingMatchesEncoder: appendFinding writes what encoding the
// wireFinding writes, for the seed's findings, hostile ones (every string
// hostile), and the shapes the encoder writes differently — nil and empty
// lists, no incident and incident 0, no evidence, cluster-state checks —
// at the depth the document uses and at others.
func TestAppendFindingMatchesEncoder(t *testing.T) {
	var ws []wireFinding
	for _, a := range []*Analysis{handSeed(false), hostileAnalysis()} {
		inc := incidentOf(a.Result)
		byName := volumesByName(a.Timeline, a.Result.Findings)
		for i, f := range a.Result.Findings {
			ws = append(ws, toWireFinding(i, f, inc, byName))
		}
	}
	zero := 0
	for i, s := range hostileStrings {
		ws = append(ws, wireFinding{Index: i, Rule: s, Severity: s, Volume: s, PV: s, Handle: s, Driver: s, Input: s,
			Nodes: []string{s, "n"}, Pods: []string{}, Start: s, End: s, Count: -i, Code: s, Summary: s, Explanation: s, Next: s,
			Incident: &zero, Evidence: []wireEvidence{{Path: s, Line: i, Time: s, Text: s, Note: s, SourceKind: s}, {}},
			Checks: []wireCheck{{Check: s, Verdict: s, Text: s}}})
	}
	ws = append(ws, wireFinding{}, wireFinding{Evidence: []wireEvidence{}, Nodes: []string{}, Checks: []wireCheck{}})
	if len(ws) < len(hostileStrings)+4 {
		t.Fatalf("only %d findings to write", len(ws))
	}
	for _, depth := range []int{0, arrayDepth, 4} {
		for i := range ws {
			want, err := appendIndented(nil, ws[i], strings.Repeat("  ", depth))
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendFinding([]byte("prefix"), &ws[i], objectAt(depth))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
				t.Errorf("depth %d, finding %d:\n got %s\nwant %s", depth, i, got[len("prefix"):], want)
			}
		}
	}
}

// TestFindingsJSONInBatches: an analyze document with enough findings to
// be written in batches on every core (heavyBatch) is the same on one
// goroutine and on several, and holds every finding once, in order.
func TestFindingsJSONInBatches(t *testing.T) {
	a := hostileAnalysis()
	base := a.Result.Findings
	for len(a.Result.Findings) < 3*heavyBatch+5 {
		a.Result.Findings = append(a.Result.Findings, base...)
	}
	var outs [][]byte
	for _, procs := range []int{1, 4} {
		outs = append(outs, renderOn(t, procs, func(w io.Writer) error { return JSON(w, a, Options{}) }))
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("the document differs with 1 and 4 cores")
	}
	var doc wireAnalyze
	if err := goccy.Unmarshal(outs[0], &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Findings) != len(a.Result.Findings) {
		t.Fatalf("%d findings decoded, %d written", len(doc.Findings), len(a.Result.Findings))
	}
	for i, f := range doc.Findings {
		if f.Index != i || f.Rule != Sanitize(a.Result.Findings[i].Rule) {
			t.Fatalf("finding %d: index %d, rule %q", i, f.Index, f.Rule)
		}
	}
}

// FuzzAppendJSONString: the hand-written string encoding (plain, printable
// ASCII escaped here, or the encoder's) is the encoders' for any bytes.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s)
	}
	f.Add(`E0812 00:00:01.000000 1 csi_attacher.go:104] "attach failed" err="rpc error: code = Internal desc = \"disk\\busy\""`)
	f.Fuzz(func(t *testing.T, s string) {
		want, err := appendIndented(nil, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("%q: appendJSONString %s, encoder %s", s, got[1:], want)
		}
	})
}
