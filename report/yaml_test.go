package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	yaml "go.yaml.in/yaml/v3"
)

// yamlWhole is what jsonToYAML writes, made the simple way: the encoder
// given a tree of each whole document. The streamed conversion is held to
// it.
func yamlWhole(w io.Writer, js []byte) error {
	return eachDocument(w, bytes.NewReader(js), func(y *yamlWriter, first jsontext.Token) error {
		if err := y.read(first); err != nil {
			return err
		}
		v, _, err := y.tree(0)
		if err != nil {
			return err
		}
		return y.write(v, 0)
	})
}

// yamlParsed is the YAML of the previous implementation: the YAML parser
// reads each JSON document (JSON is YAML) into the tree the encoder
// writes, in block style. It refuses what YAML does not allow in a stream
// (C1 controls); where it does not, the trees built from JSON's tokens
// must write the same.
func yamlParsed(w io.Writer, js []byte) error {
	bw := bufio.NewWriter(w)
	dec := json.NewDecoder(bytes.NewReader(js))
	for first := true; ; first = false {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(raw, &doc); err != nil {
			return err
		}
		var block func(n *yaml.Node)
		block = func(n *yaml.Node) {
			n.Style = 0
			if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
				n.Style = stringStyle(n.Value)
			}
			for _, c := range n.Content {
				block(c)
			}
		}
		block(&doc)
		if !first {
			bw.WriteString("---\n")
		}
		enc := yaml.NewEncoder(bw)
		enc.SetIndent(2)
		if err := enc.Encode(&doc); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// checkYAMLStreamed fails unless jsonToYAML writes what yamlWhole does
// for js, and what it writes is YAML that holds the JSON's values.
func checkYAMLStreamed(t *testing.T, name string, js []byte) {
	t.Helper()
	var got, want bytes.Buffer
	if err := yamlWhole(&want, js); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := jsonToYAML(&got, bytes.NewReader(js)); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, js)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%s: streamed YAML differs from the whole document's:\n%s\nwant:\n%s\nJSON:\n%s", name, got.Bytes(), want.Bytes(), js)
	}
	var parsed bytes.Buffer
	if err := yamlParsed(&parsed, js); err == nil && !bytes.Equal(parsed.Bytes(), want.Bytes()) {
		t.Fatalf("%s: the YAML parser's tree of the JSON writes\n%s\nthe tree of its tokens\n%s", name, parsed.Bytes(), want.Bytes())
	}
	// every document decodes to the JSON value it came from
	dec := json.NewDecoder(bytes.NewReader(js))
	ydec := yaml.NewDecoder(&got)
	for {
		var jv any
		if err := dec.Decode(&jv); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		var yv any
		if err := ydec.Decode(&yv); err != nil {
			t.Fatalf("%s: YAML does not decode: %v\n%s", name, err, got.Bytes())
		}
		jb, _ := json.Marshal(jv)
		yb, err := json.Marshal(yv)
		if err != nil || !bytes.Equal(jb, yb) {
			t.Fatalf("%s: YAML decodes to %s, JSON was %s (%v)", name, yb, jb, err)
		}
	}
}

// TestYAMLStreamedAsWhole: every view's YAML, streamed a field and an
// element at a time, is byte for byte the encoder's YAML of the whole
// document, on the hand seed, the hostile seed and hostile volumes.
func TestYAMLStreamedAsWhole(t *testing.T) {
	for _, hostile := range []bool{false, true} {
		a := handSeed(hostile)
		a.Timeline.Volumes = append(a.Timeline.Volumes, hostileVolumes()...)
		o := Options{Width: 100}
		for name, f := range map[string]renderFn{
			"analyze":  func(b *bytes.Buffer) error { return JSON(b, a, o) },
			"redacted": func(b *bytes.Buffer) error { return JSON(b, a, Options{Redact: true}) },
			"timeline": func(b *bytes.Buffer) error { return TimelineJSON(b, a.Timeline, nil, o) },
			"volumes":  func(b *bytes.Buffer) error { return VolumesJSON(b, a.Timeline.Volumes, o) },
			"events":   func(b *bytes.Buffer) error { return EventsJSONL(b, a.Timeline.Volumes[0].Events, o) },
			"rules":    func(b *bytes.Buffer) error { return RulesJSON(b, a.Rules, o) },
			"no rules": func(b *bytes.Buffer) error { return RulesJSON(b, nil, o) },
		} {
			checkYAMLStreamed(t, name, render(t, f))
		}
	}
	for _, js := range []string{
		`{}`, `[]`, `"s"`, `1`, `null`, `{"a":[]}`, `{"a":{}}`, `{"a":[[]]}`, `{"a":[{}]}`,
		`{"a":[[1,[2,{"b":[]}]],{"c":{"d":[{}]}}]}`, `{"a":1}{"b":[2]}` + "\n" + `[3]`,
		`{"":[1], "true":[2], "x: y":[{"- z":"? w"}], "# c":[[" lead", "trail ", "multi\nline\n\n\nend\n"]]}`,
		`{"a":["  indented\nlines", "\ttab\n", "\t", "\tx\ny", "\n\n\tx", "x\n\tat y.go:1\n", "\n", "line\n\n", "é\n中", "cr\r\nlf", "trail \nx"]}`,
	} {
		checkYAMLStreamed(t, js, []byte(js))
	}
}

// TestEventsYAMLIsAStream: `events -o yaml` writes one document per event
// (JSON Lines were handed whole to the YAML decoder, which refused a
// second document without "---").
func TestEventsYAMLIsAStream(t *testing.T) {
	evs := handSeed(false).Timeline.Volumes[0].Events
	var out bytes.Buffer
	if err := EventFormats.For("yaml").Render(&out, evs, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n---\n") + 1; n != len(evs) {
		t.Errorf("%d YAML documents for %d events", n, len(evs))
	}
}

// manyVolumesJSON is a volumes document of n volumes as a large
// cluster's report has them (names, a node, a pod, times, counts).
func manyVolumesJSON(n int) []byte {
	vol := `{"volume":"kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0","pv":"pvc-8d1d9560-d277-4cd4-a4e6-e6fd6e9b8703","names":["csi-37d9ce31a43dc26d1591faceb5a19ef08db838eeacda982704be9d6139d7373a","vol-0123456789abcdef0"],"nodes":["10.0.10.234"],"pods":["ingress-nginx/mailer-nl66-2"],"multi":false,"events":3,"first":"2024-08-12T00:00:19.970641Z","last":"2024-08-12T00:00:22.438567Z","failures":{"attach":0,"detach":0,"mount":0},"kinds":{"attach-started":1,"attach-succeeded":2}}`
	return []byte(`{"schema":"kcmtrace/volumes/v1","volumes":[` + strings.Repeat(vol+",", n-1) + vol + `]}`)
}

// BenchmarkYAML converts the JSON of 10k volumes (MB/s of JSON).
func BenchmarkYAML(b *testing.B) {
	js := manyVolumesJSON(10000)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if err := jsonToYAML(io.Discard, bytes.NewReader(js)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestYAMLMemoryFollowsElement: converting a document of many volumes
// takes memory for one element at a time, not for a tree of all of them
// (a tree of 35k volumes took 1.6 GB).
func TestYAMLMemoryFollowsElement(t *testing.T) {
	js := manyVolumesJSON(20000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := jsonToYAML(io.Discard, bytes.NewReader(js)); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// a tree of the whole document holds ~50 times the JSON at once;
	// element by element nothing is held
	if grown := int64(after.HeapSys) - int64(before.HeapSys); grown > int64(len(js)) {
		t.Errorf("the heap grew by %d MiB converting %d MiB of JSON", grown>>20, len(js)>>20)
	}
}

// FuzzYAMLStreamed: any strings, as keys and values at every depth and
// in every place the streaming and the fast emitter tell apart (a field,
// an element, an element's entries and items, nested sequences, empty
// containers), and any number, convert to what the whole document's
// encoder writes.
func FuzzYAMLStreamed(f *testing.F) {
	for i, s := range hostileStrings {
		f.Add(s, hostileStrings[(i+1)%len(hostileStrings)], float64(i))
	}
	f.Add("multi\nline\n\n", " lead", 1e300)
	f.Add("- a", "? b", -0.5)
	f.Add("|", ">-", 0.0)
	f.Add("Truely", "nullx", 12345678901234567890.0)
	f.Add("a/b^c=d(e)", "2024-08-12T04:48:01.734016Z", 1.5)
	f.Add(strings.Repeat("k", 129), "2024-13-45T25:61:61Z", 3.0)
	f.Fuzz(func(t *testing.T, k, v string, num float64) {
		// as the JSON writes them, so that keys distinct here stay distinct
		k, v = strings.ToValidUTF8(k, "\uFFFD"), strings.ToValidUTF8(v, "\uFFFD")
		doc := map[string]any{
			k:     v,
			"n":   num,
			"arr": []any{v, num, map[string]any{k: []any{v, k, []any{}, map[string]any{}}, v: map[string]any{k: num}}, []any{k, []any{v, []any{k}}}, map[string]any{}},
			"obj": map[string]any{k: map[string]any{v: v}, "e": []any{}},
		}
		js, err := json.Marshal(doc)
		if err != nil {
			t.Skip()
		}
		checkYAMLStreamed(t, "fuzz", js)
		line, _ := json.Marshal([]any{k, []any{v, num}, map[string]any{v: []any{k}}})
		str, _ := json.Marshal(v)
		checkYAMLStreamed(t, "fuzz lines", append(append(append(append(js, '\n'), line...), '\n'), str...))
	})
}

// TestYAMLErrors: a failing writer's error is what the conversion returns
// (the renderer is stopped, not left blocked on the pipe), and so is the
// renderer's own.
func TestYAMLErrors(t *testing.T) {
	a := handSeed(false)
	y := AnalysisFormats.For("yaml")
	if err := y.Render(failWriter{}, a, Options{}); !errors.Is(err, errFailWriter) {
		t.Errorf("a failing writer: %v, want %v", err, errFailWriter)
	}
	bad := yamlOf(RenderFunc[int](func(w io.Writer, _ int, _ Options) error {
		io.WriteString(w, `{"a": [1, `)
		return errFailWriter
	}))
	if err := bad.Render(io.Discard, 0, Options{}); !errors.Is(err, errFailWriter) {
		t.Errorf("a failing renderer: %v, want %v", err, errFailWriter)
	}
}

var errFailWriter = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFailWriter }
