package parser

import (
	"bytes"
	"slices"
	"testing"
)

// rewriteCase is compressed data decoded through a header rewriter
// (zstdWindow, xzDict): the text it must decode to, and the window each
// frame or block must declare after the rewrite.
type rewriteCase struct {
	name string
	data []byte
	size bool // the compressed size is known
	text []byte
	want []int64
}

// testRewrites decodes each case through through (which returns the text,
// the windows declared after the rewrite, and the decoder's error).
func testRewrites(t *testing.T, cases []rewriteCase, through func(testing.TB, []byte, int64) ([]byte, []int64, error)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			size := int64(0)
			if c.size {
				size = int64(len(c.data))
			}
			got, windows, err := through(t, c.data, size)
			if err != nil {
				t.Fatalf("decoding: %v", err)
			}
			if !bytes.Equal(got, c.text) {
				t.Errorf("text differs: %d bytes, want %d", len(got), len(c.text))
			}
			if !slices.Equal(windows, c.want) {
				t.Errorf("windows %v, want %v", windows, c.want)
			}
		})
	}
}

// testBrokenPassThrough decodes each broken input through a rewriter
// (through) and without it (direct): the decoder must fail with the
// rewriter where it fails without, and not hang.
func testBrokenPassThrough(t *testing.T, cases map[string][]byte, through func(testing.TB, []byte, int64) ([]byte, []int64, error), direct func([]byte) error) {
	t.Helper()
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := through(t, data, int64(len(data)))
			if want := direct(data); (err == nil) != (want == nil) {
				t.Errorf("through the rewriter: %v; directly: %v", err, want)
			}
		})
	}
}

// checkRewrite is the fuzz targets' check: data (text compressed, of size
// bytes when size > 0) decodes to text through the rewriter, and junk goes
// through it without a panic or a hang.
func checkRewrite(t *testing.T, through func(testing.TB, []byte, int64) ([]byte, []int64, error), data []byte, size int64, text, junk []byte) {
	t.Helper()
	got, _, err := through(t, data, size)
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	if !bytes.Equal(got, text) {
		t.Fatalf("text differs: %d bytes, want %d", len(got), len(text))
	}
	through(t, junk, int64(len(junk)))
}
