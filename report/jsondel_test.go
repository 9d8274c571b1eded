package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestDelEscaper: DEL bytes anywhere in the JSON text, first, last, in a
// row, come out as \u007f, the rest unchanged, and the text still decodes
// to the same string.
func TestDelEscaper(t *testing.T) {
	for _, in := range []string{"", "plain", "\x7f", "a\x7fb", "\x7f\x7fé\x7f", "ip-10\x7f-1.compute.internal\x7f"} {
		q, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		n, err := delEscaper{&out}.Write(q)
		if err != nil || n != len(q) {
			t.Fatalf("%q: wrote %d of %d, %v", in, n, len(q), err)
		}
		if bytes.IndexByte(out.Bytes(), 0x7f) >= 0 {
			t.Fatalf("%q: a DEL got through: %q", in, out.Bytes())
		}
		if want := bytes.ReplaceAll(q, []byte{0x7f}, []byte(`\u007f`)); !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%q: got %q, want %q", in, out.Bytes(), want)
		}
		var back string
		if err := json.Unmarshal(out.Bytes(), &back); err != nil || back != in {
			t.Fatalf("%q: decodes to %q, %v", in, back, err)
		}
	}
}
