package state

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Problem is one complaint about a state input, at a 1-based line when
// Line > 0. An input with problems still contributes the objects that
// could be read.
type Problem struct {
	Path    string
	Line    int
	Message string
}

// String is "path:line: message".
func (p Problem) String() string {
	return Source{Path: p.Path, Line: p.Line}.String() + ": " + p.Message
}

// File describes one state input after reading.
type File struct {
	Path    string
	Role    string // RoleState or RoleEvents
	Format  string // json, yaml, describe
	Objects int    // objects read from it
	// Taken is when the dump was taken at the earliest: the latest time
	// written in it (TakenFrom says which field), or the file's
	// modification time when it holds none. Zero when unknown.
	Taken     time.Time
	TakenFrom string // managedFields, heartbeat, event, creationTimestamp, mtime
}

// ReadFile reads one state file into s; the file's modification time is
// its Taken time when its objects carry no time.
func (s *Snapshot) ReadFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if data, err = Gunzip(data); err != nil {
		return err
	}
	f := s.Add(path, data)
	if f.Taken.IsZero() {
		if st, err := os.Stat(path); err == nil {
			f.Taken, f.TakenFrom = st.ModTime().UTC(), "mtime"
		}
	}
	return nil
}

// Gunzip returns data decompressed when it starts with the gzip magic
// number (a kubectl dump piped through gzip), else data itself. A
// truncated stream keeps what could be read.
func Gunzip(data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	out, err := io.ReadAll(zr)
	if len(out) > 0 && (err == nil || errors.Is(err, io.ErrUnexpectedEOF)) {
		return out, nil
	}
	return out, err
}

// Add reads one state input (kubectl get -o json or -o yaml, a List, several
// YAML documents, concatenated JSON objects, or kubectl describe of PV, PVC,
// Node and VolumeAttachment) into s and returns its File entry (valid until
// the next Add: it points into s.Files). Problems are
// appended to s.Problems; the objects before and after a bad one are kept.
func (s *Snapshot) Add(path string, data []byte) *File {
	before := s.count()
	p0 := len(s.Problems)
	r := reader{s: s, path: path, data: data, lines: newLineIndex(data)}
	switch format(data) {
	case "json":
		r.format = "json"
		r.readJSON()
	case "describe":
		r.format = "describe"
		r.readDescribe()
	default:
		r.format = "yaml"
		r.readYAML()
	}
	r.flushUnknown()
	s.idx = nil
	f := File{Path: path, Format: r.format, Objects: s.count() - before, Role: RoleState}
	if r.kinds["Event"] > 0 && r.kinds["Event"] == f.Objects {
		f.Role = RoleEvents
	}
	if f.Objects == 0 && len(s.Problems) == p0 && r.lists == 0 {
		s.Problems = append(s.Problems, Problem{Path: path, Message: "no Kubernetes objects found"})
	}
	f.Taken, f.TakenFrom = r.taken, r.takenFrom
	s.Files = append(s.Files, f)
	return &s.Files[len(s.Files)-1]
}

// format tells JSON, describe and YAML apart by the first meaningful byte.
func format(data []byte) string {
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		t = bytes.TrimPrefix(t, []byte("\xef\xbb\xbf"))
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		switch {
		case t[0] == '{' || t[0] == '[':
			return "json"
		case bytes.HasPrefix(t, []byte("Name:")):
			return "describe"
		}
		return "yaml"
	}
	return "yaml"
}

// reader reads one input.
type reader struct {
	s      *Snapshot
	path   string
	format string
	data   []byte
	lines  lineIndex
	kinds  map[string]int

	unknown      map[string]int // kind → objects skipped
	unknownFirst map[string]int // kind → first line

	taken     time.Time
	takenFrom string
	inList    bool // reading the items of a List or an array
	lists     int  // Lists read whole (an empty one is a dump of nothing, not a problem)
}

func (r *reader) problem(line int, format string, args ...any) {
	r.s.Problems = append(r.s.Problems, Problem{Path: r.path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// object decodes one object's JSON that starts at line.
func (r *reader) object(data []byte, line int) {
	var o wireObject
	if err := json.Unmarshal(data, &o); err != nil {
		r.problem(line, "object: %v", jsonMessage(err))
		return
	}
	r.decoded(&o, data, line)
}

// decoded files a decoded object head and its JSON into the snapshot.
func (r *reader) decoded(o *wireObject, data []byte, line int) {
	what := o.Kind
	if what == "" {
		r.problem(line, "object without kind (skipped)")
		return
	}
	if o.Metadata == nil || o.Metadata.Name == "" {
		r.problem(line, "%s without metadata.name (skipped)", what)
		return
	}
	src := Source{Path: r.path, Line: line, Format: r.format}
	c := converter{}
	known, err := c.decodeKind(r.s, o, data, src)
	if !known {
		if r.unknown == nil {
			r.unknown, r.unknownFirst = map[string]int{}, map[string]int{}
		}
		if r.unknown[what] == 0 {
			r.unknownFirst[what] = line
		}
		r.unknown[what]++
		return
	}
	if err != nil {
		r.problem(line, "%s %s: %v (skipped)", what, o.Metadata.Name, jsonMessage(err))
		return
	}
	for _, b := range c.bad {
		r.problem(line, "%s %s: %s", what, o.Metadata.Name, b)
	}
	if r.kinds == nil {
		r.kinds = map[string]int{}
	}
	r.kinds[what]++
	if r.inList {
		if r.s.listed == nil {
			r.s.listed = map[string]bool{}
		}
		r.s.listed[what] = true
	}
	r.observe(r.s.last(what))
}

// flushUnknown reports the skipped kinds, one problem per kind at its first object.
func (r *reader) flushUnknown() {
	kinds := make([]string, 0, len(r.unknown))
	for k := range r.unknown {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool { return r.unknownFirst[kinds[i]] < r.unknownFirst[kinds[j]] })
	for _, k := range kinds {
		n := r.unknown[k]
		if n == 1 {
			r.problem(r.unknownFirst[k], "kind %s is not read (skipped)", k)
		} else {
			r.problem(r.unknownFirst[k], "kind %s is not read (%d objects skipped, the first here)", k, n)
		}
	}
}

// observe moves the file's Taken time forward with the times an object carries.
func (r *reader) observe(m *Meta, extra []timed) {
	if m == nil {
		return
	}
	ts := append([]timed{{m.Managed, "managedFields"}, {m.Created, "creationTimestamp"}, {m.Deleted, "deletionTimestamp"}}, extra...)
	for _, t := range ts {
		if t.t.After(r.taken) {
			r.taken, r.takenFrom = t.t, t.from
		}
	}
}

type timed struct {
	t    time.Time
	from string
}

// jsonMessage makes encoding/json's errors read as one clause.
func jsonMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "json: ")
}

// readJSON reads one or more JSON values: objects, Lists, or arrays of objects.
func (r *reader) readJSON() {
	dec := json.NewDecoder(bytes.NewReader(r.data))
	for {
		start := skipJSONSpace(r.data, int(dec.InputOffset()))
		if start >= len(r.data) {
			return
		}
		var err error
		switch r.data[start] {
		case '{':
			err = r.jsonTop(dec, start)
		case '[':
			err = r.jsonArray(dec)
		default:
			r.problem(r.lines.line(start), "not a JSON object: %q", clip(r.data[start:], 20))
			return
		}
		if err != nil {
			r.jsonFail(dec, err)
			return
		}
	}
}

// jsonFail reports a JSON syntax error or truncation at its line.
func (r *reader) jsonFail(dec *json.Decoder, err error) {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		r.problem(r.lines.line(int(syn.Offset)-1), "JSON syntax error: %s; the rest of the file is not read", syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		r.problem(r.lines.line(len(r.data)-1), "truncated JSON: the input ends inside a value")
	default:
		r.problem(r.lines.line(int(dec.InputOffset())), "JSON: %s; the rest of the file is not read", jsonMessage(err))
	}
}

// jsonTop reads one top-level object: a List's items one by one (so a
// truncated List keeps the items before the cut), or a single object.
func (r *reader) jsonTop(dec *json.Decoder, start int) error {
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	var head wireObject
	var items bool
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if key == "items" {
			items = true
			if err := r.jsonItems(dec); err != nil {
				return err
			}
			r.lists++
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		switch key {
		case "kind":
			_ = json.Unmarshal(raw, &head.Kind)
		case "apiVersion":
			_ = json.Unmarshal(raw, &head.APIVersion)
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return err
	}
	if !items {
		r.object(r.data[start:dec.InputOffset()], r.lines.line(start))
	}
	return nil
}

// jsonItems reads the array value of "items".
func (r *reader) jsonItems(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t == nil { // "items": null
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("items is not an array")
	}
	return r.jsonElements(dec)
}

// jsonArray reads a top-level array of objects (jq '.items' output).
func (r *reader) jsonArray(dec *json.Decoder) error {
	if _, err := dec.Token(); err != nil { // [
		return err
	}
	return r.jsonElements(dec)
}

// jsonElements reads array elements up to and including the closing "]".
func (r *reader) jsonElements(dec *json.Decoder) error {
	r.inList = true
	defer func() { r.inList = false }()
	for dec.More() {
		at := skipJSONSpace(r.data, int(dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		r.object(raw, r.lines.line(at))
	}
	_, err := dec.Token() // ]
	return err
}

// skipJSONSpace skips white space and the commas between values.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r' || b[i] == ',' || b[i] == ':') {
		i++
	}
	return i
}

func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// readYAML reads YAML documents. Each "---" document is parsed on its own,
// so a syntax error loses only its document.
func (r *reader) readYAML() {
	for _, doc := range splitDocuments(r.data) {
		var n yaml.Node
		if err := yaml.Unmarshal(doc.text, &n); err != nil {
			line, msg := yamlError(err)
			if line > 0 {
				line += doc.line - 1
			} else {
				line = doc.line
			}
			r.problem(line, "YAML: %s; the document is not read", msg)
			continue
		}
		if n.Kind == 0 || len(n.Content) == 0 {
			continue // empty document
		}
		r.yamlValue(n.Content[0], doc.line-1)
	}
}

// yamlValue reads a document's root: a mapping (object or List) or a
// sequence of objects. offset turns node lines into file lines.
func (r *reader) yamlValue(n *yaml.Node, offset int) {
	r.inList = n.Kind == yaml.SequenceNode || mappingValue(n, "items") != nil
	defer func() { r.inList = false }()
	switch n.Kind {
	case yaml.SequenceNode:
		for _, it := range n.Content {
			r.yamlObject(it, offset)
		}
		return
	case yaml.MappingNode:
	default:
		r.problem(n.Line+offset, "YAML document is not an object")
		return
	}
	if items := mappingValue(n, "items"); items != nil { // a List
		if items.Kind == yaml.SequenceNode {
			r.lists++
			for _, it := range items.Content {
				r.yamlObject(it, offset)
			}
		} else if items.ShortTag() != "!!null" {
			r.problem(items.Line+offset, "items is not a list")
		}
		return
	}
	r.yamlObject(n, offset)
}

// yamlObject converts one object node to JSON and decodes it.
func (r *reader) yamlObject(n *yaml.Node, offset int) {
	line := n.Line + offset
	v, err := jsonValue(n, 0)
	if err != nil {
		r.problem(line, "YAML: %v (skipped)", err)
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		r.problem(line, "YAML: %v (skipped)", err)
		return
	}
	r.object(data, line)
}

// mappingValue returns the value node of key in a mapping node, or nil.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// jsonValue converts a YAML node to a value encoding/json can marshal:
// mapping keys become strings (as sigs.k8s.io/yaml does), timestamps stay
// as written.
func jsonValue(n *yaml.Node, depth int) (any, error) {
	if depth > 100 {
		return nil, fmt.Errorf("line %d: nested too deeply", n.Line)
	}
	switch n.Kind {
	case yaml.AliasNode:
		return jsonValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := jsonValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := jsonValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!timestamp", "!!binary":
			return n.Value, nil
		case "!!null":
			return nil, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserProblems are the problems of the YAML parser (not the
// scanner); yaml.v3 prints their line 0-based.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected key": true,
	"did not find expected node content": true, "found undefined tag handle": true,
	"did not find expected <stream-start>": true, "found duplicate %TAG directive": true,
}

// yamlError splits "yaml: line N: msg" into a 1-based N and msg.
func yamlError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			n++
		}
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// document is one YAML document and the file line its text starts at.
type document struct {
	text []byte
	line int
}

// splitDocuments cuts YAML at "---" and "..." marker lines.
func splitDocuments(data []byte) []document {
	var docs []document
	start, startLine, line := 0, 1, 1
	for i := 0; i <= len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		l := bytes.TrimRight(data[i:end], "\r")
		if isDocMarker(l) {
			docs = append(docs, document{data[start:i], startLine})
			start, startLine = end+1, line+1
			if bytes.HasPrefix(l, []byte("--- ")) { // "--- value": the marker line starts the document
				start, startLine = i+3, line
			}
		}
		i, line = end+1, line+1
	}
	if start < len(data) {
		docs = append(docs, document{data[start:], startLine})
	}
	return docs
}

func isDocMarker(l []byte) bool {
	return string(l) == "---" || string(l) == "..." || bytes.HasPrefix(l, []byte("--- "))
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int // offsets of line starts

func newLineIndex(b []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (x lineIndex) line(off int) int {
	return sort.Search(len(x), func(i int) bool { return x[i] > off })
}
