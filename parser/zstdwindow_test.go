package parser

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// zstdThrough decodes data through zstdWindow (size given as known or
// not) and returns the text, the windows the frames declared after it,
// and the decoder's error.
func zstdThrough(t testing.TB, data []byte, size int64) ([]byte, []int64, error) {
	t.Helper()
	zw := newZstdWindow(bufio.NewReader(bytes.NewReader(data)), size)
	var seen bytes.Buffer
	zr, err := zstd.NewReader(io.TeeReader(zw, &seen), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out, err := io.ReadAll(zr)
	return out, frameWindows(seen.Bytes()), err
}

// frameWindows lists the window each frame of data declares (-1 for a
// single-segment frame), walking frames as RFC 8878 lays them out, up to
// where data is cut or stops being zstd.
func frameWindows(data []byte) []int64 {
	var ws []int64
	skip := func(n int) bool {
		if n > len(data) {
			data = nil
			return false
		}
		data = data[n:]
		return true
	}
	for len(data) >= 8 {
		magic := binary.LittleEndian.Uint32(data)
		if magic&zstdSkippableMask == zstdSkippableMagic {
			skip(8 + int(binary.LittleEndian.Uint32(data[4:8])))
			continue
		}
		if magic != zstdFrameMagic {
			break
		}
		fhd := data[4]
		n := 5
		if fhd&0x20 != 0 {
			ws = append(ws, -1)
		} else {
			ws = append(ws, zstdWindowSize(data[5]))
			n++
		}
		n += [4]int{0, 1, 2, 4}[fhd&3]
		fcs := [4]int{0, 2, 4, 8}[fhd>>6]
		if fcs == 0 && fhd&0x20 != 0 {
			fcs = 1
		}
		for ok := skip(n + fcs); ok && len(data) >= 3; {
			bh := uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16
			size := int(bh >> 3)
			if (bh>>1)&3 == 1 {
				size = 1
			}
			if ok = skip(3 + size); bh&1 != 0 {
				break
			}
		}
		if fhd&0x04 != 0 {
			skip(4)
		}
	}
	return ws
}

// declareWindow sets the window descriptor of data's first frame (which
// must have one) to wd: what `zstd --long=31` writes is wd 21<<3.
func declareWindow(t testing.TB, data []byte, wd byte) []byte {
	t.Helper()
	if data[4]&0x20 != 0 {
		t.Fatal("single-segment frame: no window descriptor")
	}
	data = bytes.Clone(data)
	data[5] = wd
	return data
}

// zstdStream is text written through a streaming encoder (no content
// size in the header, as `zstd --long=31 < file` writes).
func zstdStream(t testing.TB, text []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, append([]zstd.EOption{zstd.WithSingleSegment(false), zstd.WithEncoderConcurrency(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(text)
	w.Close()
	return buf.Bytes()
}

// zstdWhole is text encoded at once (the content size in the header, as
// `zstd --long=31 file` writes).
func zstdWhole(t testing.TB, text []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	w, err := zstd.NewWriter(nil, append([]zstd.EOption{zstd.WithSingleSegment(false), zstd.WithEncoderConcurrency(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(text, nil)
}

// longDistance is n random bytes twice over: the second half decodes only
// from matches n bytes back.
func longDistance(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return append(b, b...)
}

// Each frame's window is lowered to what its content can use, and the
// text decoded is the same byte for byte.
func TestZstdWindowLowered(t *testing.T) {
	log := []byte(strings.Repeat(stormLine(1, "10.0.3.15"), 40))
	// over one block: the streaming encoder writes no content size
	logLong := []byte(strings.Repeat(stormLine(1, "10.0.3.15"), 1000))
	far := longDistance(3 << 20)
	skippable := []byte{0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 'a', 'b', 'c'}
	// windows of 2 GiB where zstdWindow lowers them, 64 MiB where it
	// cannot (the decoder allocates what is declared)
	const twoGiB, big = 21 << 3, 16 << 3
	testRewrites(t, []rewriteCase{
		{"content size known", declareWindow(t, zstdWhole(t, log), twoGiB), false, log, []int64{zstdMinWindow}},
		{"stream, size of the file known", declareWindow(t, zstdStream(t, log), twoGiB), true, log, []int64{zstdMinWindow}},
		{"stream, nothing known", declareWindow(t, zstdStream(t, logLong), big), false, logLong, []int64{64 << 20}},
		{"window already small", zstdStream(t, log), true, log, []int64{zstdWindowSize(zstdStream(t, log)[5])}},
		{"matches 3 MiB back, content size known", declareWindow(t, zstdWhole(t, far, zstd.WithWindowSize(8<<20)), twoGiB), false, far, []int64{8 << 20}},
		{"matches 3 MiB back, stream", declareWindow(t, zstdStream(t, far, zstd.WithWindowSize(8<<20)), big), true, far, []int64{64 << 20}},
		{"checksum, two frames and a skippable one",
			bytes.Join([][]byte{declareWindow(t, zstdStream(t, logLong, zstd.WithEncoderCRC(true)), big), skippable, declareWindow(t, zstdWhole(t, log, zstd.WithEncoderCRC(false)), twoGiB)}, nil),
			false, append(bytes.Clone(logLong), log...), []int64{64 << 20, zstdMinWindow}},
		{"runs of one byte (RLE blocks)", declareWindow(t, zstdStream(t, bytes.Repeat([]byte{'x'}, 1<<20)), twoGiB), true, bytes.Repeat([]byte{'x'}, 1<<20), []int64{4 << 20}}, // 115 bytes: at most 29 blocks
	}, zstdThrough)
}

// A 2 GiB window declared by a frame of a few hundred bytes costs the
// memory of its content, not of its window: the decoder allocated the
// window whole (and in a used heap, zeroed it: 8 s in the fuzz run).
func TestZstdLongWindowMemory(t *testing.T) {
	data := declareWindow(t, zstdStream(t, []byte(stormLine(1, "10.0.3.15"))), 21<<3)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := ParseReader(bytes.NewReader(data), "long.log.zst", Options{})
	runtime.ReadMemStats(&after)
	if len(r.Events) != 1 {
		t.Fatalf("%d events, want 1", len(r.Events))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MiB reading a %d-byte file", got>>20, len(data))
	}
}

// Broken or foreign data passes through: the decoder's error is the same
// with zstdWindow as without, and nothing hangs.
func TestZstdWindowPassesBrokenData(t *testing.T) {
	good := declareWindow(t, zstdStream(t, []byte(stormLine(1, "10.0.3.15"))), 16<<3) // directly, 2 GiB would be allocated
	testBrokenPassThrough(t, map[string][]byte{
		"cut in the header":   good[:7],
		"cut in a block":      good[:len(good)-3],
		"reserved block type": append(bytes.Clone(good[:6]), 0x07, 0, 0),
		"reserved header bit": append(append(bytes.Clone(good[:4]), good[4]|0x08), good[5:]...),
		"trailing junk":       append(bytes.Clone(good), "junk"...),
		"magic alone":         good[:4],
	}, zstdThrough, func(data []byte) error {
		zr, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(zstdMaxWindow))
		if err != nil {
			return err
		}
		defer zr.Close()
		_, err = io.ReadAll(zr)
		return err
	})
}

// FuzzZstdWindow: text encoded any way decodes the same through
// zstdWindow, and any bytes at all neither panic nor hang it.
func FuzzZstdWindow(f *testing.F) {
	f.Add([]byte(stormLine(1, "10.0.3.15")), uint8(0), byte(21<<3), []byte{})
	f.Add(bytes.Repeat([]byte("ab"), 5000), uint8(3), byte(0), []byte{0x28, 0xb5, 0x2f, 0xfd, 0x04})
	f.Fuzz(func(t *testing.T, text []byte, how uint8, wd byte, junk []byte) {
		var data []byte
		opts := []zstd.EOption{zstd.WithEncoderCRC(how&4 != 0)}
		if how&1 != 0 {
			data = zstdWhole(t, text, opts...)
		} else {
			data = zstdStream(t, text, opts...)
		}
		if how&2 != 0 && data[4]&0x20 == 0 && zstdWindowSize(wd) >= zstdWindowSize(data[5]) && wd>>3 <= 16 {
			data = declareWindow(t, data, wd) // a larger window is always valid
		}
		var size int64
		if how&8 != 0 {
			size = int64(len(data))
		}
		checkRewrite(t, zstdThrough, data, size, text, junk)
	})
}
