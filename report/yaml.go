package report

// YAML: the JSON model as YAML (kubectl's -o yaml), the same fields in the
// same order, block style.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

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
// encoder makes of the whole document (TestYAMLStreamedAsWhole). The
// trees are built from encoding/json's tokens, not by the YAML parser
// reading the JSON: that parser refuses characters YAML does not allow
// in a stream (C1 controls), which JSON strings may hold and the encoder
// escapes.
func jsonToYAML(w io.Writer, r io.Reader) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	dec := json.NewDecoder(r)
	dec.UseNumber()
	y := &yamlWriter{w: bw, dec: dec, scalars: map[string]yaml.Node{}}
	for n := 0; ; n++ {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteString("---\n")
		}
		if tok == json.Delim('{') {
			err = y.object()
		} else {
			var v *yaml.Node
			if v, err = y.value(tok); err == nil {
				err = y.write(v, "")
			}
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// yamlWriter writes YAML converted from the JSON dec reads, a piece at a
// time.
type yamlWriter struct {
	w       *bufio.Writer
	dec     *json.Decoder
	buf     bytes.Buffer         // one piece, as the encoder wrote it
	scalars map[string]yaml.Node // numbers, booleans and null as the YAML parser reads them
}

// object converts the rest of the top-level JSON object whose "{" was
// read, a field at a time, an array's elements one by one.
func (y *yamlWriter) object() error {
	empty := true
	for y.dec.More() {
		empty = false
		key, err := y.key()
		if err != nil {
			return err
		}
		tok, err := y.dec.Token()
		if err != nil {
			return err
		}
		if tok == json.Delim('[') {
			err = y.array(key)
		} else {
			var v *yaml.Node
			if v, err = y.value(tok); err == nil {
				err = y.write(keyed(key, v), "")
			}
		}
		if err != nil {
			return err
		}
	}
	if _, err := y.dec.Token(); err != nil { // }
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
	if !y.dec.More() {
		if _, err := y.dec.Token(); err != nil { // ]
			return err
		}
		return y.write(keyed(key, seq()), "")
	}
	// the key as the encoder writes it: as it does before an empty
	// sequence
	y.buf.Reset()
	if err := y.encode(keyed(key, seq())); err != nil {
		return err
	}
	line, ok := strings.CutSuffix(y.buf.String(), ": []\n")
	if !ok || strings.Contains(line, "\n") {
		return fmt.Errorf("yaml: cannot stream the field %q", key)
	}
	y.w.WriteString(line)
	y.w.WriteString(":\n")
	for y.dec.More() {
		tok, err := y.dec.Token()
		if err != nil {
			return err
		}
		v, err := y.value(tok)
		if err != nil {
			return err
		}
		if err := y.write(seq(v), "  "); err != nil {
			return err
		}
	}
	_, err := y.dec.Token() // ]
	return err
}

// write encodes v and writes it with indent before each line.
func (y *yamlWriter) write(v *yaml.Node, indent string) error {
	y.buf.Reset()
	if err := y.encode(v); err != nil {
		return err
	}
	writeIndented(y.w, y.buf.Bytes(), indent)
	return nil
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
	tok, err := y.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("yaml: a JSON object's key is %v", tok)
	}
	return k, nil
}

// value reads the rest of the JSON value whose first token is tok, as the
// YAML parser would read it, in block style: a string with a line break
// as a literal block.
func (y *yamlWriter) value(tok json.Token) (*yaml.Node, error) {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			n := seq()
			for y.dec.More() {
				tok, err := y.dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := y.value(tok)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, v)
			}
			_, err := y.dec.Token() // ]
			return n, err
		case '{':
			n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			for y.dec.More() {
				k, err := y.key()
				if err != nil {
					return nil, err
				}
				tok, err := y.dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := y.value(tok)
				if err != nil {
					return nil, err
				}
				n.Content = append(n.Content, str(k), v)
			}
			_, err := y.dec.Token() // }
			return n, err
		}
		return nil, fmt.Errorf("yaml: unexpected %v in JSON", t)
	case string:
		return str(t), nil
	case json.Number:
		return y.scalar(string(t))
	case bool:
		return y.scalar(strconv.FormatBool(t))
	case nil:
		return y.scalar("null")
	}
	return nil, fmt.Errorf("yaml: unexpected %v in JSON", tok)
}

// scalar is the node the YAML parser reads from lit, a JSON number,
// boolean or null (it resolves the tag); a few thousand are remembered.
func (y *yamlWriter) scalar(lit string) (*yaml.Node, error) {
	if n, ok := y.scalars[lit]; ok {
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
	if len(y.scalars) < 4096 {
		y.scalars[lit] = n
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

// writeIndented writes b with indent before each line that is not empty:
// the encoder leaves a literal block's empty lines empty at any depth.
func writeIndented(w *bufio.Writer, b []byte, indent string) {
	if indent == "" {
		w.Write(b)
		return
	}
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line = b[:i+1]
		}
		if len(line) > 1 {
			w.WriteString(indent)
		}
		w.Write(line)
		b = b[len(line):]
	}
}
