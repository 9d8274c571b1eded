package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var (
	schemaOnce sync.Once
	schemas    map[string]*jsonschema.Schema
	schemaErr  error
)

// compiledSchemas compiles every embedded schema, keyed by schema id.
func compiledSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		schemas = map[string]*jsonschema.Schema{}
		for _, id := range []string{SchemaAnalyze, SchemaEvents, SchemaTimeline, SchemaVolumes} {
			f := SchemaFile(id)
			b, err := Schemas.ReadFile(f)
			if err != nil {
				schemaErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				schemaErr = err
				return
			}
			url := "mem:///" + f
			if err := c.AddResource(url, doc); err != nil {
				schemaErr = err
				return
			}
			s, err := c.Compile(url)
			if err != nil {
				schemaErr = err
				return
			}
			schemas[id] = s
		}
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	return schemas
}

// validateJSON validates one JSON document against the schema it names.
func validateJSON(t *testing.T, name string, b []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m, _ := doc.(map[string]any)
	id, _ := m["schema"].(string)
	s := compiledSchemas(t)[id]
	if s == nil {
		t.Fatalf("%s: unknown schema %q", name, id)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not validate against %s: %v", name, id, err)
	}
}

// validateJSONL validates every line against the events schema.
func validateJSONL(t *testing.T, name string, b []byte) {
	t.Helper()
	s := compiledSchemas(t)[SchemaEvents]
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		n++
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
		if err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%s:%d does not validate: %v", name, n, err)
			return
		}
	}
}

// TestGoldenJSONValidates validates every committed JSON golden against the schema.
func TestGoldenJSONValidates(t *testing.T) {
	n := 0
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(path, ".json"):
			validateJSON(t, path, b)
			n++
		case strings.HasSuffix(path, ".jsonl"):
			validateJSONL(t, path, b)
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no JSON goldens found")
	}
}

// TestSchemaRejects pins that the schema is strict enough to matter.
func TestSchemaRejects(t *testing.T) {
	var b bytes.Buffer
	if err := JSON(&b, handSeed(false), Options{}); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := compiledSchemas(t)[SchemaAnalyze]
	bad := []func(map[string]any){
		func(d map[string]any) { d["findings"] = nil },
		func(d map[string]any) { d["schema"] = "kcmtrace/analyze/v2" },
		func(d map[string]any) { d["findings"].([]any)[0].(map[string]any)["severity"] = "fatal" },
		func(d map[string]any) { d["findings"].([]any)[0].(map[string]any)["start"] = "yesterday" },
		func(d map[string]any) { delete(d["inputs"].([]any)[0].(map[string]any), "year_source") },
	}
	for i, mutate := range bad {
		var d map[string]any
		_ = json.Unmarshal(b.Bytes(), &d)
		mutate(d)
		raw, _ := json.Marshal(d)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if s.Validate(v) == nil {
			t.Errorf("mutation %d validated", i)
		}
	}
}

// TestSchemaDropped: an input the run's event budget cut short says how
// many events it dropped (inputs[].dropped, which validates), an input
// that dropped none leaves the key out (the goldens stay as they were),
// and the schema takes no count below one.
func TestSchemaDropped(t *testing.T) {
	a := handSeed(false)
	a.Timeline.Inputs[0].Dropped, a.Timeline.Inputs[0].Truncated = 1234, true
	var b bytes.Buffer
	if err := JSON(&b, a, Options{}); err != nil {
		t.Fatal(err)
	}
	validateJSON(t, "dropped", b.Bytes())
	var doc struct {
		Inputs []map[string]any `json:"inputs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if d, ok := doc.Inputs[0]["dropped"]; d != 1234.0 || doc.Inputs[0]["truncated"] != true {
		t.Errorf("inputs[0]: dropped %v (present %v), truncated %v; want 1234, true", d, ok, doc.Inputs[0]["truncated"])
	}
	if d, ok := doc.Inputs[1]["dropped"]; ok {
		t.Errorf("inputs[1] dropped nothing but has dropped: %v", d)
	}
	var full map[string]any
	_ = json.Unmarshal(b.Bytes(), &full)
	full["inputs"].([]any)[0].(map[string]any)["dropped"] = 0
	raw, _ := json.Marshal(full)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if compiledSchemas(t)[SchemaAnalyze].Validate(v) == nil {
		t.Error("dropped: 0 validated")
	}
}
