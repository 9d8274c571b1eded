package parser

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// `zstd --long=31` writes frames that declare a window of up to 2 GiB,
// past the decoder's default limit of 512 MiB: they are read, not
// reported corrupt (issue 21 item 15).
func TestZstdLongWindow(t *testing.T) {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithSingleSegment(false), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(stormLine(1, "10.0.3.15")))
	w.Close()
	data := buf.Bytes()
	// magic (4 bytes), frame header descriptor, then the window
	// descriptor: exponent 21 is a 2 GiB window (windowLog 31)
	if data[4]&0x20 != 0 {
		t.Fatal("single-segment frame: no window descriptor to set")
	}
	data[5] = 21 << 3
	r := ParseReader(bytes.NewReader(data), "long.log.zst", Options{})
	for _, p := range r.Input.Problems {
		if strings.Contains(p.Message, "zstd") {
			t.Errorf("problem: %s", p.Message)
		}
	}
	if r.Input.Truncated || len(r.Events) != 1 {
		t.Errorf("truncated %v, %d events; want the one line read", r.Input.Truncated, len(r.Events))
	}
}
