package parser

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// bareKlogRunReference is bareKlogRun without the kernel: each line found
// with IndexByte and checked with plainKlog (bareKlogLine).
func bareKlogRunReference(data []byte, s, hit, max, mon int) bareRun {
	r := bareRun{prev: -1, last: -1}
	for s < hit {
		e, ce, ok := bareKlogLine(data, s, hit, max, mon)
		if !ok {
			break
		}
		r.n++
		r.prev, r.last, r.end, r.ce = r.last, s, e, ce
		s = e
	}
	return r
}

// checkBareKlogRun compares bareKlogRun with the reference from every line
// of data that follows a plain bare klog line (the reference line), for
// hits at the end, inside and between lines, and several line limits.
func checkBareKlogRun(t *testing.T, data []byte, rng *rand.Rand) {
	t.Helper()
	starts := lineStarts(data)
	for k := 1; k < len(starts); k++ {
		ref, s := starts[k-1], starts[k]
		line := bytes.TrimSuffix(bytes.TrimSuffix(data[ref:s], []byte("\n")), []byte("\r"))
		mon, ok := plainKlog(line)
		if !ok {
			continue
		}
		hits := []int{len(data), s, s + 1}
		if len(data) > s {
			hits = append(hits, s+rng.IntN(len(data)-s+1))
		}
		if k+1 < len(starts) {
			hits = append(hits, starts[k+1], starts[k+1]-1)
		}
		for _, hit := range hits {
			for _, max := range []int{DefaultMaxLineBytes, 33, 40, 64, s - ref - 1, s - ref - 2} {
				got := bareKlogRun(data, s, hit, max, mon, ref)
				want := bareKlogRunReference(data, s, hit, max, mon)
				if got != want {
					t.Fatalf("line %d (hit %d, max %d) of %q:\n got %+v\nwant %+v", k, hit, max, data, got, want)
				}
				checkBareKlogKernel(t, data, len(data), s, hit, max, ref)
			}
		}
	}
}

// klogLines builds n klog lines from seed: minutes and seconds that
// change, fractions and thread ids of every width, CRLF, short lines,
// continuation lines, other months and levels, and invalid fields.
func klogLines(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	min, sec := 10, 0
	for range n {
		if rng.IntN(8) == 0 {
			min = (min + 1) % 60
		}
		sec = (sec + rng.IntN(3)) % 62 // 60 and 61 too
		lvl := string("IIIWEFXiGHMVD"[rng.IntN(13)])
		mon := "08"
		if rng.IntN(20) == 0 {
			mon = "09"
		}
		frac := ""
		switch rng.IntN(4) {
		case 0:
			frac = "." + strings.Repeat("7", rng.IntN(20))
		case 1, 2:
			frac = ".123456"
		}
		pid := fmt.Sprintf("%*d", rng.IntN(12), rng.IntN(100000))
		msg := strings.Repeat("x", rng.IntN(120))
		line := fmt.Sprintf("%s%s12 03:%02d:%02d%s %s event.go:291] %s", lvl, mon, min, sec, frac, pid, msg)
		switch rng.IntN(24) {
		case 0:
			line = line[:rng.IntN(len(line))] // cut anywhere
		case 1:
			line = "  continued " + msg
		case 2:
			line += "\r"
		case 3:
			line = strings.Replace(line, ":", "-", 1)
		case 4:
			line = strings.Replace(line, "03:", "3a:", 1)
		case 5: // minute out of range or not a number
			line = line[:9] + []string{"60", "99", "1x", "x1"}[rng.IntN(4)] + line[11:]
		case 6: // second out of range
			line = line[:12] + []string{"70", "99", "61", "6x", "1x", "5:"}[rng.IntN(6)] + line[14:]
		case 8: // no colon before the second
			line = line[:11] + string("- 0"[rng.IntN(3)]) + line[12:]
		case 7: // something else where the fraction's dot goes
			if len(line) > 15 {
				line = line[:14] + string("x,:5 "[rng.IntN(5)]) + line[15:]
			}
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func TestBareKlogRunMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		data := klogLines(rng, 1+rng.IntN(60))
		if i%3 == 0 {
			data = bytes.TrimSuffix(data, []byte("\n")) // no final newline
		}
		checkBareKlogRun(t, data, rng)
	}
	// the generated log, every era
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 256 << 10, Era: era, Seed: 7}); err != nil {
			t.Fatal(err)
		}
		checkBareKlogRun(t, buf.Bytes(), rng)
	}
}

func FuzzBareKlogRun(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 8 {
		f.Add(klogLines(rng, 6), uint64(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, seed uint64) {
		checkBareKlogRun(t, data, rand.New(rand.NewPCG(seed, seed)))
	})
}

// TestBareKlogKernelTakesLines: where the kernel runs, it takes the common
// lines itself (a kernel that never takes a line would pass the comparison
// above).
func TestBareKlogKernelTakesLines(t *testing.T) {
	if !useBareKernel {
		t.Skip("no kernel on this CPU")
	}
	line := "I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\"\n"
	// the kernel reads whole 32-byte chunks, within p[:n] only: the
	// bytes after hit let it reach the last line's newline
	lines := strings.Repeat(line, 20)
	data := []byte(lines + strings.Repeat("y", 64))
	ref := data[:len(line)]
	n, prev, last, end := bareKlogKernel(&data[0], len(data), len(line), len(lines), DefaultMaxLineBytes,
		binary.LittleEndian.Uint64(ref[1:]), uint64(binary.LittleEndian.Uint16(ref[9:])))
	if n != 19 || prev != 18*len(line) || last != 19*len(line) || end != len(lines) {
		t.Fatalf("kernel took %d lines (prev %d, last %d, end %d); want 19 (%d, %d, %d)", n, prev, last, end, 18*len(line), 19*len(line), len(lines))
	}
}

// bareKlogKernelModel is what bareKlogKernel returns, line by line: it
// takes each line of p from s whose header's 32 bytes lie in p, whose
// header is a bare klog header of the reference's minute (ref8, ref2) with
// the thread id's digit among those 32 bytes, and whose newline is before
// hit with at most max bytes before it. (The kernel's contract lets it stop
// sooner, at any line it is not sure of; the kernel does not, and the
// tests hold it to that: a kernel that gives up early is slow, not wrong.)
func bareKlogKernelModel(p []byte, s, hit, max int, ref8, ref2 uint64) (count, prev, last, end int) {
	prev, last, end = -1, -1, s
	lim := min(hit, len(p))
	for cur := s; cur+32 <= len(p) && cur < lim; {
		h := p[cur : cur+32]
		switch h[0] {
		case 'I', 'W', 'E', 'F':
		default:
			return
		}
		if binary.LittleEndian.Uint64(h[1:]) != ref8 || uint64(binary.LittleEndian.Uint16(h[9:])) != ref2 || h[11] != ':' {
			return
		}
		if s1, s2 := h[12]-'0', h[13]-'0'; s1 > 6 || s2 > 9 || s1 == 6 && s2 != 0 {
			return
		}
		j := 14
		if h[14] == '.' {
			for j = 15; j < 32 && isDigit(h[j]); j++ {
			}
		}
		k := j
		for k < 32 && h[k] == ' ' {
			k++
		}
		if k >= 32 || !isDigit(h[k]) {
			return
		}
		i := bytes.IndexByte(p[cur:lim], '\n')
		if i < 0 || uint(i) > uint(max) {
			return
		}
		count++
		prev, last = last, cur
		cur += i + 1
		end = cur
	}
	return
}

// checkBareKlogKernel compares the kernel on buf[:n] from s with the model
// (where the kernel runs), the reference line at ref.
func checkBareKlogKernel(t *testing.T, buf []byte, n, s, hit, max, ref int) {
	t.Helper()
	if !useBareKernel || ref+11 > n || s > n {
		return
	}
	p := buf[:n]
	ref8, ref2 := binary.LittleEndian.Uint64(p[ref+1:]), uint64(binary.LittleEndian.Uint16(p[ref+9:]))
	c, pr, l, e := bareKlogKernel(unsafe.SliceData(buf), n, s, hit, max, ref8, ref2)
	wc, wp, wl, we := bareKlogKernelModel(p, s, hit, max, ref8, ref2)
	if c != wc || pr != wp || l != wl || e != we {
		t.Fatalf("kernel from %d (n %d, hit %d, max %d) over %q…, reference %q:\n got %d lines (prev %d, last %d, end %d)\nwant %d lines (prev %d, last %d, end %d)",
			s, n, hit, max, p[s:min(n, we+200)], p[ref:ref+11], c, pr, l, e, wc, wp, wl, we)
	}
}

// klogRunLines builds n klog lines of one minute, as the kernel takes them
// in long runs: lines of every length (a few bytes to several windows),
// fractions of every width or none, seconds up to 60, thread ids that end
// before or after the header's 32 bytes, CRLF, and now and then a line
// the kernel does not take (another minute, a bad second, no header).
func klogRunLines(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for range n {
		lvl := string("IIIIIIWEF"[rng.IntN(9)])
		sec := fmt.Sprintf("%02d", rng.IntN(60))
		switch rng.IntN(40) {
		case 0:
			sec = "60"
		case 1:
			sec = []string{"61", "70", "6x", "x0", "5:", "\x0000"[:2]}[rng.IntN(6)]
		}
		frac := ""
		switch rng.IntN(10) {
		case 0:
		case 1:
			frac = "." + strings.Repeat("9", rng.IntN(20))
		default:
			frac = fmt.Sprintf(".%06d", rng.IntN(1000000))
		}
		pid := fmt.Sprintf("%*d", rng.IntN(10), rng.IntN(100000))
		if rng.IntN(4) == 0 {
			pid = fmt.Sprintf("%7d", 1)
		}
		var msg string
		switch rng.IntN(6) {
		case 0:
			msg = strings.Repeat("m", rng.IntN(8))
		case 1, 2:
			msg = strings.Repeat("m", rng.IntN(120))
		case 3, 4:
			msg = strings.Repeat("m", 100+rng.IntN(300))
		default:
			msg = strings.Repeat("m", rng.IntN(5000))
		}
		line := fmt.Sprintf("%s0812 03:10:%s%s %s %s", lvl, sec, frac, pid, msg)
		switch rng.IntN(60) {
		case 0:
			line = strings.Replace(line, "03:10", "03:11", 1)
		case 1:
			line = "   " + msg
		case 2:
			line = ""
		case 3, 4:
			line += "\r"
		case 5:
			line = "I0812 03:10:00 1" // as short as a taken line gets
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// lineStarts lists the line starts of data.
func lineStarts(data []byte) []int {
	var starts []int
	for s := 0; s < len(data); {
		starts = append(starts, s)
		i := bytes.IndexByte(data[s:], '\n')
		if i < 0 {
			break
		}
		s += i + 1
	}
	return starts
}

// TestBareKlogKernelMatchesModel runs the kernel over long runs, with hits
// and line limits around lines and windows, and p cut anywhere.
func TestBareKlogKernelMatchesModel(t *testing.T) {
	if !useBareKernel {
		t.Skip("no kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const ref = 0
	head := []byte("I0812 03:10:00.000000       1 reference\n")
	for i := range 120 {
		var data []byte
		switch i % 4 {
		case 0: // many short lines: several newlines in 64 bytes
			var b bytes.Buffer
			for range 300 + rng.IntN(300) {
				fmt.Fprintf(&b, "I0812 03:10:%02d%s 1%s\n", rng.IntN(60), []string{"", ".5", ".123456"}[rng.IntN(3)], strings.Repeat("x", rng.IntN(3)))
			}
			data = b.Bytes()
		default:
			data = klogRunLines(rng, 20+rng.IntN(80))
		}
		data = append(append([]byte{}, head...), data...)
		starts := lineStarts(data)
		for range 40 {
			s := starts[1+rng.IntN(len(starts)-1)]
			if rng.IntN(3) == 0 {
				s = len(head)
			}
			n := len(data)
			switch rng.IntN(4) {
			case 0:
				n = s + rng.IntN(len(data)-s+1)
			case 1: // near a line end
				n = min(len(data), max(s, starts[rng.IntN(len(starts))]+rng.IntN(80)-40))
			}
			hits := []int{n, len(data), s + rng.IntN(len(data)-s+1), starts[rng.IntN(len(starts))]}
			for _, w := range []int{64, 128, 2048, 4096, 6144} {
				for _, d := range []int{-1, 0, 1} {
					hits = append(hits, s+w+d)
				}
			}
			l := starts[rng.IntN(len(starts))]
			e := bytes.IndexByte(data[l:], '\n')
			maxes := []int{DefaultMaxLineBytes, 15, 16, 40, 2047, 2048, 2049, rng.IntN(3000)}
			if e >= 0 {
				maxes = append(maxes, e, e-1, e+1)
			}
			for _, hit := range hits {
				for _, max := range maxes {
					checkBareKlogKernel(t, data, n, s, hit, max, ref)
				}
			}
		}
		checkBareKlogRun(t, data[:min(len(data), 3000)], rng)
	}
}

// TestBareKlogKernelHeaderBytes puts every byte value at every offset of
// a header in a run and checks the kernel and bareKlogRun on it.
func TestBareKlogKernelHeaderBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, line := range []string{
		"I0812 03:10:00.000001       1 event.go:291] \"Event occurred\"\n",
		"W0812 03:10:59.1234   4242 x.go:1] y\n",
		"E0812 03:10:60 1 z\r\n",
		"F0812 03:10:07.123456789012 12345 abcdefghijklmnopqrstuvwxyz\n",
	} {
		ref := []byte("I0812 03:10:00.000000       1 reference\n")
		data := append(ref, strings.Repeat(line, 3)...)
		mon, _ := plainKlog(ref[:len(ref)-1])
		at := len(ref) + len(line) // the second of the three
		for i := range 32 {
			for c := range 256 {
				d := bytes.Clone(data)
				d[at+i] = byte(c)
				for _, hit := range []int{len(d), len(d) - 1 - rng.IntN(len(line))} {
					got := bareKlogRun(d, len(ref), hit, DefaultMaxLineBytes, mon, 0)
					want := bareKlogRunReference(d, len(ref), hit, DefaultMaxLineBytes, mon)
					if got != want {
						t.Fatalf("byte %d = %#x in %q (hit %d):\n got %+v\nwant %+v", i, c, d, hit, got, want)
					}
					checkBareKlogKernel(t, d, len(d), len(ref), hit, DefaultMaxLineBytes, 0)
				}
			}
		}
	}
}

func FuzzBareKlogKernel(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 8 {
		f.Add(klogRunLines(rng, 12), uint16(0), uint16(0), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut, hit, max uint16) {
		starts := lineStarts(data)
		if len(starts) < 2 {
			return
		}
		n := len(data) - int(cut)%(len(data)+1)
		for _, s := range starts[1:] {
			for _, h := range []int{n, s + int(hit)} {
				for _, m := range []int{DefaultMaxLineBytes, int(max)} {
					checkBareKlogKernel(t, data, n, s, h, m, 0)
				}
			}
		}
	})
}
