package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// encodeJSON is the reference: the whole value through encoding/json with
// the indentation and escaping the writers promise. The writers encode with
// github.com/goccy/go-json, so the tests below also prove the two encoders
// write the same bytes.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// TestStreamedJSONMatchesWholeValue: JSON writes the analyze document field
// by field; decoding it into wireAnalyze (the documented shape) and encoding
// that in one piece must give the same bytes, so streaming changes nothing a
// reader can see.
func TestStreamedJSONMatchesWholeValue(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "analyze*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no analyze goldens: %v", err)
	}
	for _, f := range files {
		streamed, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc wireAnalyze
		dec := json.NewDecoder(bytes.NewReader(streamed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var whole bytes.Buffer
		if err := encodeJSON(&whole, doc); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole.Bytes(), streamed) {
			t.Errorf("%s: streamed output differs from encoding the whole value", f)
		}
	}
}

// TestStreamedTimelineAndVolumesJSON: the same check for the timeline and
// volumes documents.
func TestStreamedTimelineAndVolumesJSON(t *testing.T) {
	for _, c := range []struct {
		glob string
		doc  func() any
	}{
		{glob: "timeline*.json", doc: func() any { return new(wireTimeline) }},
		{glob: "volumes*.json", doc: func() any { return new(wireVolumes) }},
	} {
		files, _ := filepath.Glob(filepath.Join("testdata", "*", c.glob))
		if len(files) == 0 {
			t.Fatalf("no %s goldens", c.glob)
		}
		for _, f := range files {
			streamed, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			doc := c.doc()
			dec := json.NewDecoder(bytes.NewReader(streamed))
			dec.DisallowUnknownFields()
			if err := dec.Decode(doc); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var whole bytes.Buffer
			if err := encodeJSON(&whole, doc); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(whole.Bytes(), streamed) {
				t.Errorf("%s: streamed output differs from encoding the whole value", f)
			}
		}
	}
}

func TestObjectWriterEmptyAndNested(t *testing.T) {
	var got bytes.Buffer
	o := newObjectWriter(&got)
	o.field("a", "x<y>")
	o.array("empty", 0, nil)
	o.array("list", 2, func(i int) any { return map[string][]int{"k": {i, i}} })
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	type doc struct {
		A     string             `json:"a"`
		Empty []int              `json:"empty"`
		List  []map[string][]int `json:"list"`
	}
	if err := encodeJSON(&want, doc{A: "x<y>", Empty: []int{}, List: []map[string][]int{{"k": {0, 0}}, {"k": {1, 1}}}}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}

// TestObjectWriterLargeArrays: arrays long enough to be encoded by batches
// on several goroutines come out exactly as the whole value would, and an
// element that cannot be encoded stops the writer with its error.
func TestObjectWriterLargeArrays(t *testing.T) {
	for _, n := range []int{2*arrayBatch - 1, 2 * arrayBatch, 5*arrayBatch + 7} {
		elems := make([]map[string]any, n)
		for i := range elems {
			elems[i] = map[string]any{"i": i, "s": "<&>", "nested": []int{i, i + 1}}
		}
		var got bytes.Buffer
		o := newObjectWriter(&got)
		o.array("xs", n, func(i int) any { return elems[i] })
		o.field("after", true)
		if err := o.close(); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := encodeJSON(&want, struct {
			Xs    []map[string]any `json:"xs"`
			After bool             `json:"after"`
		}{elems, true}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("n=%d: streamed array differs from the whole value", n)
		}
	}
	bad := 3*arrayBatch + 5
	var got bytes.Buffer
	o := newObjectWriter(&got)
	o.array("xs", 10*arrayBatch, func(i int) any {
		if i == bad {
			return map[string]any{"f": func() {}}
		}
		return i
	})
	if err := o.close(); err == nil {
		t.Error("an unencodable element did not fail the writer")
	}
}

// TestEncodersAgreeOnHostileStrings: log text reaches the JSON encoder as
// it was in the log; the fast encoder must escape it exactly as
// encoding/json does.
func TestEncodersAgreeOnHostileStrings(t *testing.T) {
	for _, s := range []string{
		"plain", "<b>&amp;</b>", "quote \" backslash \\ slash /",
		"ctl \x00\x01\x1f\x7f \t\r\n", "esc \x1b[31mred\x1b[0m \x1b]8;;http://x\x07",
		"bad utf8 \xff\xfe \xc3", "line sep \u2028 para \u2029", "é 中 🙂", "\ufffd",
	} {
		v := map[string]any{"s": s, "list": []string{s, s}, "n": 1.5}
		var want bytes.Buffer
		if err := encodeJSON(&want, v); err != nil {
			t.Fatal(err)
		}
		got, err := appendIndented(nil, v, "")
		if err != nil {
			t.Fatal(err)
		}
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, w)
		}
	}
}
