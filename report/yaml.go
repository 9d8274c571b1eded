package report

// YAML: the JSON model as YAML (kubectl's -o yaml), the same fields in the
// same order, block style.

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// yamlOf renders with the JSON renderer r and rewrites its output as YAML.
// JSON Lines become a stream of YAML documents.
func yamlOf[V any](r RenderFunc[V]) Renderer[V] {
	return RenderFunc[V](func(w io.Writer, v V, o Options) error {
		var js bytes.Buffer
		if err := r(&js, v, o); err != nil {
			return err
		}
		return jsonToYAML(w, js.Bytes())
	})
}

// jsonToYAML converts one JSON document, or JSON Lines, to YAML.
func jsonToYAML(w io.Writer, js []byte) error {
	bw := bufio.NewWriter(w)
	dec := yaml.NewDecoder(bytes.NewReader(js))
	first := true
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		blockStyle(&doc)
		if !first {
			bw.WriteString("---\n")
		}
		first = false
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

// blockStyle drops JSON's flow style and quotes (the encoder quotes what
// must be quoted); multi-line strings become literal blocks.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, "\n") {
		n.Style = yaml.LiteralStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}
