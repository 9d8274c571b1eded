package report

// YAML: the JSON model as YAML (kubectl's -o yaml), the same fields in the
// same order, block style.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	yaml "go.yaml.in/yaml/v3"
)

// yamlOf renders with the JSON renderer r and rewrites its output as YAML
// while it renders: a document for each JSON value, so JSON Lines become a
// stream of YAML documents.
func yamlOf[V any](r RenderFunc[V]) Renderer[V] {
	return RenderFunc[V](func(w io.Writer, v V, o Options) error {
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			err := r(pw, v, o)
			pw.CloseWithError(err) // nil: EOF
			done <- err
		}()
		err := jsonToYAML(w, pr)
		pr.CloseWithError(errYAMLStopped) // the renderer stops at its next write
		rerr := <-done
		switch {
		case err != nil:
			return err // the conversion's (or the renderer's, which ended it)
		case rerr != nil && !errors.Is(rerr, errYAMLStopped):
			return rerr
		}
		return nil
	})
}

// errYAMLStopped ends the JSON renderer's writes once the conversion has
// stopped (on its own error, or at the end).
var errYAMLStopped = errors.New("yaml: conversion stopped")

// jsonToYAML converts JSON values (one document, or JSON Lines) read from
// r to YAML, a document each, separated by "---".
//
// The YAML encoder works on a tree of the whole value (yaml.Node); for a
// large cluster's report that tree was most of the run's memory and time
// (1 GiB of churn, 35k volumes, 35 MB of JSON: 20 s and 1.6 GB). So a
// document that is an object is converted a field at a time, and a field
// that is an array an element at a time, each written as the encoder
// writes it inside the whole: the output is byte for byte what the
// encoder makes of the whole document (TestYAMLStreamedAsWhole). A piece
// is written by the fast emitter (yamlfast.go), which asks the encoder
// only for the strings it must quote; where it cannot, the encoder writes
// the piece from its tree. Trees are built from the JSON's tokens, not by
// the YAML parser reading the JSON: that parser refuses characters YAML
// does not allow in a stream (C1 controls), which JSON strings may hold
// and the encoder escapes.
func jsonToYAML(w io.Writer, r io.Reader) error {
	return eachDocument(w, r, (*yamlWriter).document)
}

// eachDocument reads the JSON values r holds and writes a YAML document
// for each with doc (given the value's first token), "---" between them.
func eachDocument(w io.Writer, r io.Reader, doc func(y *yamlWriter, first jsontext.Token) error) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	dec := newJSONDecoder(r)
	y := newYAMLWriter(bw, dec)
	for n := 0; ; n++ {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString("---\n")
		}
		if err := doc(y, tok); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// document converts the JSON value whose first token is tok: an object a
// field at a time, anything else as one piece.
func (y *yamlWriter) document(tok jsontext.Token) error {
	if tok.Kind() == '{' {
		return y.object()
	}
	if err := y.read(tok); err != nil {
		return err
	}
	return y.piece(nil, asDocument)
}

// yamlWriter writes YAML converted from the JSON dec reads, a piece at a
// time: a JSON value is read into toks, then written by the fast emitter
// (yamlfast.go), or when it cannot, by the encoder from a tree of it.
type yamlWriter struct {
	w       *bufio.Writer
	dec     *jsontext.Decoder
	toks    []jsonTok            // the piece being converted
	out     bytes.Buffer         // the fast emitter's YAML of the piece
	buf     bytes.Buffer         // the encoder's YAML of a piece or a scalar
	scalars map[string]yamlText  // strings the encoder was asked for (yamlfast.go)
	keys    map[string]string    // keys the encoder was asked for
	nodes   map[string]yaml.Node // numbers, booleans and null as the YAML parser reads them
	// failed is set by the YAML appenders (yamlappend.go) when they cannot
	// write what they were given: the value is converted instead
	failed bool
}

func newYAMLWriter(w *bufio.Writer, dec *jsontext.Decoder) *yamlWriter {
	return &yamlWriter{w: w, dec: dec, scalars: map[string]yamlText{}, keys: map[string]string{}, nodes: map[string]yaml.Node{}}
}

// A jsonTok is one token of a JSON value: a delimiter ('{', '}', '[',
// ']'), a string ('s') or a literal ('l': a number, true, false or null,
// as written).
type jsonTok struct {
	kind byte
	s    string
}

// newJSONDecoder reads JSON values from r, one after another. The
// tokenizer is the prototype of Go's encoding/json/v2 (jsontext):
// encoding/json's Token allocated for every token and an error for every
// value of JSON Lines, which made it most of a conversion's time. Names are
// not checked for duplicates: the JSON is the renderers', whose objects
// come from structs and maps.
func newJSONDecoder(r io.Reader) *jsontext.Decoder {
	return jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true))
}

// readJSON reads the JSON value js into y.toks.
func (y *yamlWriter) readJSON(js []byte) error {
	dec := y.dec
	defer func() { y.dec = dec }()
	y.dec = newJSONDecoder(bytes.NewReader(js))
	tok, err := y.dec.ReadToken()
	if err != nil {
		return err
	}
	return y.read(tok)
}

// read reads the JSON value whose first token is tok into y.toks.
func (y *yamlWriter) read(tok jsontext.Token) error {
	y.toks = y.toks[:0]
	depth := 0
	for {
		switch k := tok.Kind(); k {
		case '{', '[':
			y.toks = append(y.toks, jsonTok{kind: byte(k)})
			depth++
		case '}', ']':
			y.toks = append(y.toks, jsonTok{kind: byte(k)})
			depth--
		case '"':
			y.toks = append(y.toks, jsonTok{kind: 's', s: tok.String()})
		case '0', 't', 'f', 'n':
			y.toks = append(y.toks, jsonTok{kind: 'l', s: tok.String()}) // as written
		default:
			return fmt.Errorf("yaml: unexpected %v in JSON", tok)
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = y.dec.ReadToken(); err != nil {
			return err
		}
	}
}

// How a piece is placed (piece).
const (
	asDocument = iota // a document of its own
	asField           // a field of the top-level object (key)
	asElement         // an element of the sequence of a top-level field
)

// piece writes the value in y.toks placed as at says (the field key for
// asField): by the fast emitter, or, where it gives up, by the encoder
// from a tree of the value.
func (y *yamlWriter) piece(key *string, at int) error {
	y.out.Reset()
	if y.fast(key, at) {
		y.w.Write(y.out.Bytes())
		return nil
	}
	v, _, err := y.tree(0)
	if err != nil {
		return err
	}
	switch at {
	case asField:
		return y.write(keyed(*key, v), 0)
	case asElement:
		return y.write(seq(v), 2)
	}
	return y.write(v, 0)
}

// object converts the rest of the top-level JSON object whose "{" was
// read, a field at a time, an array's elements one by one.
func (y *yamlWriter) object() error {
	empty := true
	for y.dec.PeekKind() != '}' {
		empty = false
		key, err := y.key()
		if err != nil {
			return err
		}
		tok, err := y.dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() == '[' {
			err = y.array(key)
		} else if err = y.read(tok); err == nil {
			err = y.piece(&key, asField)
		}
		if err != nil {
			return err
		}
	}
	if _, err := y.dec.ReadToken(); err != nil { // }
		return err
	}
	if empty {
		y.w.WriteString("{}\n")
	}
	return nil
}

// array converts the rest of the array, field key's value, whose "[" was
// read, an element at a time: the encoder writes a map's sequence two
// columns in, "- " before each element.
func (y *yamlWriter) array(key string) error {
	if y.dec.PeekKind() == ']' {
		if _, err := y.dec.ReadToken(); err != nil {
			return err
		}
		y.toks = append(y.toks[:0], jsonTok{kind: '['}, jsonTok{kind: ']'})
		return y.piece(&key, asField)
	}
	k, ok := y.keyText(key)
	if !ok {
		return fmt.Errorf("yaml: cannot stream the field %q", key)
	}
	y.w.WriteString(k)
	y.w.WriteString(":\n")
	for y.dec.PeekKind() != ']' {
		tok, err := y.dec.ReadToken()
		if err != nil {
			return err
		}
		if err := y.read(tok); err != nil {
			return err
		}
		if err := y.piece(nil, asElement); err != nil {
			return err
		}
	}
	_, err := y.dec.ReadToken() // ]
	return err
}

// write encodes v and writes it with its lines col spaces in.
func (y *yamlWriter) write(v *yaml.Node, col int) error {
	y.buf.Reset()
	if err := y.encode(v); err != nil {
		return err
	}
	_, err := y.w.Write(appendIndentedLines(nil, y.buf.String(), col))
	return err
}

// encode appends v to y.buf as the encoder writes it in a document of its
// own (block style, two-space indent).
func (y *yamlWriter) encode(v *yaml.Node) error {
	enc := yaml.NewEncoder(&y.buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// key reads an object's key.
func (y *yamlWriter) key() (string, error) {
	tok, err := y.dec.ReadToken()
	if err != nil {
		return "", err
	}
	if tok.Kind() != '"' {
		return "", fmt.Errorf("yaml: a JSON object's key is %v", tok)
	}
	return tok.String(), nil
}

// tree is the value at y.toks[i:] as the YAML parser would read it, in
// block style (str), and the index after it.
func (y *yamlWriter) tree(i int) (*yaml.Node, int, error) {
	t := y.toks[i]
	switch t.kind {
	case '[':
		n := seq()
		for i++; y.toks[i].kind != ']'; {
			v, next, err := y.tree(i)
			if err != nil {
				return nil, 0, err
			}
			n.Content, i = append(n.Content, v), next
		}
		return n, i + 1, nil
	case '{':
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i++; y.toks[i].kind != '}'; {
			k := y.toks[i].s
			v, next, err := y.tree(i + 1)
			if err != nil {
				return nil, 0, err
			}
			n.Content, i = append(n.Content, str(k), v), next
		}
		return n, i + 1, nil
	case 's':
		return str(t.s), i + 1, nil
	case 'l':
		n, err := y.literal(t.s)
		return n, i + 1, err
	}
	return nil, 0, fmt.Errorf("yaml: unexpected %q in JSON", t.kind)
}

// literal is the node the YAML parser reads from lit, a JSON number,
// boolean or null (it resolves the tag); a few thousand are remembered.
func (y *yamlWriter) literal(lit string) (*yaml.Node, error) {
	if n, ok := y.nodes[lit]; ok {
		return &n, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(lit), &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("yaml: JSON scalar %q", lit)
	}
	n := *doc.Content[0]
	n.Style, n.Line, n.Column = 0, 0, 0
	if len(y.nodes) < 4096 {
		y.nodes[lit] = n
	}
	return &n, nil
}

// str is a string's node, in block style (stringStyle).
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: stringStyle(s)}
}

// stringStyle is how s is written: with a line break as a literal block,
// else as the encoder chooses (it quotes what must be quoted), but
// double-quoted, its breaks escaped, when
//   - it starts with a tab (a Go stack trace's frame): the encoder writes
//     that literal block without an indentation indicator, which YAML
//     parsers, its own included, refuse ("found a tab character where an
//     indentation space is expected");
//   - it holds a break other than "\n" (U+0085, U+2028, U+2029): the
//     encoder breaks the line there and indents what follows to the
//     depth it writes at, which then depends on where the string is.
func stringStyle(s string) yaml.Style {
	switch {
	case strings.ContainsAny(s, "\u0085\u2028\u2029"), strings.HasPrefix(s, "\t") && strings.Contains(s, "\n"):
		return yaml.DoubleQuotedStyle
	case strings.Contains(s, "\n"):
		return yaml.LiteralStyle
	}
	return 0
}

// seq is a sequence of vs.
func seq(vs ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: vs}
}

// keyed is the mapping of key to v.
func keyed(key string, v *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str(key), v}}
}

// appendIndentedLines appends the lines of s, each that is not empty after
// col spaces: the encoder leaves a literal block's empty lines empty at
// any depth.
func appendIndentedLines(b []byte, s string, col int) []byte {
	for s != "" {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line = s[:i+1]
		}
		if len(line) > 1 {
			b = appendSpaces(b, col)
		}
		b = append(b, line...)
		s = s[len(line):]
	}
	return b
}
