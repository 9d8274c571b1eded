package parser

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
	var starts []int
	for s := 0; s < len(data); {
		starts = append(starts, s)
		i := bytes.IndexByte(data[s:], '\n')
		if i < 0 {
			break
		}
		s += i + 1
	}
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
			for _, max := range []int{DefaultMaxLineBytes, 33, 40, 64} {
				got := bareKlogRun(data, s, hit, max, mon, ref)
				want := bareKlogRunReference(data, s, hit, max, mon)
				if got != want {
					t.Fatalf("line %d (hit %d, max %d) of %q:\n got %+v\nwant %+v", k, hit, max, data, got, want)
				}
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
