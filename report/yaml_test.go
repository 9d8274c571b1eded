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

	yaml "go.yaml.in/yaml/v3"
)

// yamlWhole is what jsonToYAML writes, made the simple way: the encoder
// given a tree of each whole document. The streamed conversion is held to
// it.
func yamlWhole(w io.Writer, js []byte) error {
	bw := bufio.NewWriter(w)
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	y := &yamlWriter{w: bw, dec: dec, scalars: map[string]yaml.Node{}}
	for n := 0; ; n++ {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		v, err := y.value(tok)
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString("---\n")
		}
		if err := y.write(v, ""); err != nil {
			return err
		}
	}
	return bw.Flush()
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

// TestYAMLMemoryFollowsElement: converting a document of many volumes
// takes memory for the JSON and one element, not for a tree of all of
// them (a tree of 35k volumes took 1.6 GB).
func TestYAMLMemoryFollowsElement(t *testing.T) {
	vol := `{"volume":"kubernetes.io/csi/ebs.csi.aws.com^vol-0123456789abcdef0","pv":"pvc-8d1d9560-d277-4cd4-a4e6-e6fd6e9b8703","nodes":["ip-10-0-10-234.ec2.internal"],"events":3,"first":"2024-08-12T00:00:19.970641Z","kinds":{"attach-started":1,"attach-succeeded":2}}`
	js := []byte(`{"schema":"kcmtrace/volumes/v1","volumes":[` + strings.Repeat(vol+",", 19999) + vol + `]}`)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := jsonToYAML(io.Discard, bytes.NewReader(js)); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// TotalAlloc counts every allocation: a tree of the whole document
	// is ~100 times the JSON; element by element, the garbage is about
	// as much per element, but never held at once: the peak is bounded
	// by what the collector lets pile up, which the heap's size shows
	if peak := after.HeapSys; peak > before.HeapSys+uint64(16*len(js)) {
		t.Errorf("heap grew from %d to %d MiB converting %d KiB of JSON", before.HeapSys>>20, peak>>20, len(js)>>10)
	}
}

// FuzzYAMLStreamed: any strings, as keys and values at every depth the
// streaming splits at, convert to what the whole document's encoder
// writes.
func FuzzYAMLStreamed(f *testing.F) {
	for i, s := range hostileStrings {
		f.Add(s, hostileStrings[(i+1)%len(hostileStrings)])
	}
	f.Add("multi\nline\n\n", " lead")
	f.Add("- a", "? b")
	f.Add("|", ">-")
	f.Fuzz(func(t *testing.T, k, v string) {
		doc := map[string]any{
			k:     v,
			"arr": []any{v, map[string]any{k: []any{v, k}}, []any{k}, map[string]any{}},
			"obj": map[string]any{k: map[string]any{v: v}},
		}
		js, err := json.Marshal(doc)
		if err != nil {
			t.Skip()
		}
		checkYAMLStreamed(t, "fuzz", js)
		line, _ := json.Marshal([]any{k, v})
		checkYAMLStreamed(t, "fuzz lines", append(append(js, '\n'), line...))
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
