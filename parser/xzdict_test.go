package parser

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// xzThrough decodes data through xzDict (size given as known or not) and
// returns the text, the dictionaries its blocks declared after it, and
// the decoder's error.
func xzThrough(t testing.TB, data []byte, size int64) ([]byte, []int64, error) {
	t.Helper()
	var seen bytes.Buffer
	xr, err := xz.NewReader(io.TeeReader(newXZDict(bufio.NewReader(bytes.NewReader(data)), size), &seen))
	if err != nil {
		return nil, nil, err
	}
	out, err := io.ReadAll(xr)
	return out, xzBlockDicts(seen.Bytes()), err
}

// xzBlockHeaders returns the offsets of the block headers of data's first
// stream, found from its index (the records' unpadded sizes).
func xzBlockHeaders(data []byte) []int {
	if len(data) < 2*xzStreamHeader {
		return nil
	}
	footer := data[len(data)-xzStreamHeader:]
	indexSize := (int(binary.LittleEndian.Uint32(footer[4:8])) + 1) * 4
	if indexSize > len(data)-2*xzStreamHeader {
		return nil
	}
	index := data[len(data)-xzStreamHeader-indexSize:]
	n, i, ok := xzVLI(index, 1)
	if !ok {
		return nil
	}
	var offs []int
	at := xzStreamHeader
	for range n {
		var unpadded int64
		if unpadded, i, ok = xzVLI(index, i); !ok || unpadded > int64(len(data)) {
			return nil
		}
		if _, i, ok = xzVLI(index, i); !ok {
			return nil
		}
		offs = append(offs, at)
		at += int((unpadded + 3) &^ 3) // the check's size is a multiple of 4
	}
	return offs
}

// xzBlockDicts lists the LZMA2 dictionary each block of data's first
// stream declares.
func xzBlockDicts(data []byte) []int64 {
	var dicts []int64
	for _, at := range xzBlockHeaders(data) {
		if at >= len(data) || at+(int(data[at])+1)*4 > len(data) {
			break
		}
		hdr := data[at : at+(int(data[at])+1)*4]
		dicts = append(dicts, lzma2DictSize(hdr[xzDictAt(hdr)]))
	}
	return dicts
}

// xzDictAt is the offset of the LZMA2 dictionary byte in block header hdr
// (a single filter, sizes or not).
func xzDictAt(hdr []byte) int {
	i := 2
	if hdr[1]&0x40 != 0 {
		_, i, _ = xzVLI(hdr, i)
	}
	if hdr[1]&0x80 != 0 {
		_, i, _ = xzVLI(hdr, i)
	}
	return i + 2 // filter ID 0x21, properties size 1
}

// xzEncode is text in xz, with blocks of blockSize bytes (0: one block)
// and the check given.
func xzEncode(t testing.TB, text []byte, blockSize int64, check byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	dict := 64 << 10 // the encoder's memory follows it, for each block
	if len(text) > dict {
		dict = 1 << 20
	}
	w, err := xz.WriterConfig{DictCap: dict, BlockSize: blockSize, CheckSum: check, NoCheckSum: check == xz.None}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// xzDeclare sets every block's dictionary code to code (its header's
// CRC32 written again), as `xz --lzma2=dict=…` would have declared it.
func xzDeclare(t testing.TB, data []byte, code byte) []byte {
	t.Helper()
	data = bytes.Clone(data)
	offs := xzBlockHeaders(data)
	if len(offs) == 0 {
		t.Fatal("no block found")
	}
	for _, at := range offs {
		hdr := data[at : at+(int(data[at])+1)*4]
		hdr[xzDictAt(hdr)] = code
		binary.LittleEndian.PutUint32(hdr[len(hdr)-4:], crc32.ChecksumIEEE(hdr[:len(hdr)-4]))
	}
	return data
}

// xzWithUncompressedSize writes each block's uncompressed size into its
// header, in the header's padding (its size and the index unchanged), as
// xz -T writes it.
func xzWithUncompressedSize(t testing.TB, data []byte, sizes []int64) []byte {
	t.Helper()
	data = bytes.Clone(data)
	for k, at := range xzBlockHeaders(data) {
		hdr := data[at : at+(int(data[at])+1)*4]
		if hdr[1] != 0 {
			t.Fatalf("block header %x has sizes already", hdr)
		}
		var vli []byte
		for v := sizes[k]; ; v >>= 7 {
			if v < 0x80 {
				vli = append(vli, byte(v))
				break
			}
			vli = append(vli, byte(v)|0x80)
		}
		filters := slices.Clone(hdr[2:5]) // 0x21, 1, dictionary
		if 2+len(vli)+len(filters) > len(hdr)-4 {
			t.Fatalf("no room for a %d-byte size in %x", len(vli), hdr)
		}
		body := append(append([]byte{hdr[0], 0x80}, vli...), filters...)
		clear(hdr[:len(hdr)-4])
		copy(hdr, body)
		binary.LittleEndian.PutUint32(hdr[len(hdr)-4:], crc32.ChecksumIEEE(hdr[:len(hdr)-4]))
	}
	return data
}

// Each block's dictionary is lowered to what its data can use, and the
// text decoded is the same byte for byte.
func TestXZDictLowered(t *testing.T) {
	log := []byte(strings.Repeat(stormLine(1, "10.0.3.15"), 40))
	far := longDistance(300 << 10)          // matches 300 KiB back
	const fourGiB, oneGiB, big = 40, 37, 24 // big: 16 MiB, where nothing is known
	small := func(n int64) int64 { return lzma2DictSize(lowerDictCode(40, n)) }
	oneBlock := xzDeclare(t, xzEncode(t, log, 0, xz.CRC64), fourGiB)
	// random text past the reader's buffer (4096 bytes in xzThrough)
	farText := longDistance(6 << 10)
	blocks := make([]int64, (len(log)+4095)/4096) // each holds 4 KiB of text at most
	for i := range blocks {
		blocks[i] = xzMinDict
	}
	testRewrites(t, []rewriteCase{
		{"4 GiB, its chunks read ahead", oneBlock, true, log, []int64{small(int64(len(log)))}},
		{"4 GiB, its chunks read ahead, size not known", oneBlock, false, log, []int64{small(int64(len(log)))}},
		{"beyond the read buffer, nothing known", xzDeclare(t, xzEncode(t, farText, 0, xz.CRC32), big), false, farText, []int64{16 << 20}},
		{"uncompressed size in the header", xzWithUncompressedSize(t, xzDeclare(t, xzEncode(t, log, 0, xz.CRC64), oneGiB), []int64{int64(len(log))}), false, log, []int64{small(int64(len(log)))}},
		{"matches 300 KiB back, size in the header", xzWithUncompressedSize(t, xzDeclare(t, xzEncode(t, far, 0, xz.SHA256), oneGiB), []int64{int64(len(far))}), false, far, []int64{small(int64(len(far)))}},
		{"several blocks, no check", xzDeclare(t, xzEncode(t, log, 4096, xz.None), fourGiB), true, log, blocks},
	}, xzThrough)
}

// lzma2Yield sums the chunks it sees and bounds those it does not by the
// bytes left: 2 MiB for every 10.
func TestLZMA2Yield(t *testing.T) {
	lzma := []byte{0xe0, 0x00, 0xff, 0x00, 0x04, 1, 2, 3, 4, 5, 6} // yields 256, takes 6+5
	raw := []byte{0x01, 0x00, 0x02, 'a', 'b', 'c'}                 // yields 3, takes 6
	for _, c := range []struct {
		name  string
		b     []byte
		avail int64
		want  int64
	}{
		{"the end seen", slices.Concat(lzma, raw, []byte{0}), math.MaxInt64, 259},
		{"nothing but the end", []byte{0}, math.MaxInt64, 0},
		{"cut after a chunk, size known", slices.Concat(lzma, raw), 37, 259 + (37-17)/10*2<<20 + 2<<20},
		{"cut inside a chunk, size known", slices.Concat(lzma, raw[:4]), 100, 256 + (100-11)/10*2<<20 + 2<<20},
		{"cut, size not known", slices.Concat(lzma, raw), math.MaxInt64, -1},
		{"not a chunk, size known", []byte{0x05}, 20, (20/10 + 1) * 2 << 20},
	} {
		if got := lzma2Yield(c.b, c.avail); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// A 4 GiB dictionary declared by a block of a few hundred bytes costs the
// memory of its data: the decoder allocated the dictionary whole (and in a
// used heap, zeroed it: three such files in a directory, 14 s and 3 GiB).
func TestXZLongDictMemory(t *testing.T) {
	data := xzDeclare(t, xzEncode(t, []byte(stormLine(1, "10.0.3.15")), 0, xz.CRC64), 40)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := ParseReader(bytes.NewReader(data), "big-dict.log.xz", Options{})
	runtime.ReadMemStats(&after)
	if len(r.Events) != 1 {
		t.Fatalf("%d events, want 1 (problems %v)", len(r.Events), r.Input.Problems)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("allocated %d MiB reading a %d-byte file", got>>20, len(data))
	}
}

// Broken or foreign data passes through: the decoder fails with xzDict
// where it fails without, and nothing hangs.
func TestXZDictPassesBrokenData(t *testing.T) {
	good := xzDeclare(t, xzEncode(t, []byte(stormLine(1, "10.0.3.15")), 0, xz.CRC64), 22) // 4 MiB: directly, 4 GiB would be allocated
	hdr := xzBlockHeaders(good)[0]
	testBrokenPassThrough(t, map[string][]byte{
		"cut in the stream header": good[:8],
		"cut in the block header":  good[:hdr+5],
		"cut in a chunk":           good[:hdr+20],
		"cut in the index":         good[:len(good)-14],
		"reserved block flag":      append(append(bytes.Clone(good[:hdr+1]), 0x04), good[hdr+2:]...),
		"block header's CRC32":     append(append(bytes.Clone(good[:hdr+8]), good[hdr+8]^1), good[hdr+9:]...),
		"trailing junk":            append(bytes.Clone(good), "junk"...),
		"magic alone":              good[:6],
	}, xzThrough, func(data []byte) error {
		xr, err := xz.NewReader(bytes.NewReader(data))
		if err != nil {
			return err
		}
		_, err = io.ReadAll(xr)
		return err
	})
}

// FuzzXZDict: text encoded in any block size and check decodes the same
// through xzDict whatever dictionary its blocks declare, and any bytes at
// all neither panic nor hang it.
func FuzzXZDict(f *testing.F) {
	f.Add([]byte(stormLine(1, "10.0.3.15")), uint16(0), byte(40), uint8(1), []byte{})
	f.Add(bytes.Repeat([]byte("ab"), 5000), uint16(700), byte(24), uint8(0), []byte{0xfd, '7', 'z', 'X', 'Z', 0, 0, 4})
	f.Fuzz(func(t *testing.T, text []byte, block uint16, code byte, how uint8, junk []byte) {
		checks := []byte{xz.None, xz.CRC32, xz.CRC64, xz.SHA256}
		blockSize := int64(block) // at most 4 blocks
		if blockSize > 0 {
			blockSize = max(blockSize, int64(len(text))/4+1)
		}
		data := xzEncode(t, text, blockSize, checks[how%4])
		if code = code % 41; lzma2DictSize(code) >= 1<<20 && (code <= 26 || how&4 != 0) {
			data = xzDeclare(t, data, code) // a larger dictionary is always valid
		}
		var size int64
		if how&4 != 0 {
			size = int64(len(data)) // a bound is known: no huge dictionary is allocated
		}
		checkRewrite(t, xzThrough, data, size, text, junk)
	})
}
