package parser

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// jsonLinesKernelModel is what jsonLinesKernel returns, line by line: from
// s, the lines starting jsonHead (their first 8 bytes in p) whose newline
// is before hit and among the bytes the kernel scans (64 at a time from s,
// while they lie in p and start before hit), with 9 to max bytes before
// it, room of them at most. (The kernel's contract lets it stop sooner;
// it does not, and the tests hold it to that.)
func jsonLinesKernelModel(p []byte, s, hit, max, room int) (starts []int, end int) {
	cov := s
	for cov+64 <= len(p) && cov < hit {
		cov += 64
	}
	end = s
	for cur := s; len(starts) < room && cur+8 <= len(p) && bytes.HasPrefix(p[cur:], []byte(jsonHead)); {
		i := -1
		if cov > cur {
			i = bytes.IndexByte(p[cur:cov], '\n')
		}
		if i < 0 || cur+i >= hit || i > max || i < 9 {
			break
		}
		starts = append(starts, cur)
		cur += i + 1
		end = cur
	}
	return starts, end
}

// checkJSONLinesKernel compares the kernel on buf[:n] from s with the
// model.
func checkJSONLinesKernel(t testing.TB, buf []byte, n, s, hit, max, room int) {
	t.Helper()
	if !useJSONKernel || s > n || hit < s || hit > n {
		return
	}
	var starts [64]int
	room = min(room, len(starts))
	count, end := jsonLinesKernel(unsafe.SliceData(buf), n, s, hit, max, &starts[0], room)
	want, wantEnd := jsonLinesKernelModel(buf[:n], s, hit, max, room)
	if count != len(want) || end != wantEnd || !slicesEqual(starts[:count], want) {
		t.Fatalf("kernel from %d (n %d, hit %d, max %d, room %d) over %q…:\n got %d lines %v, end %d\nwant %d lines %v, end %d",
			s, n, hit, max, room, buf[s:min(n, s+300)], count, starts[:count], end, len(want), want, wantEnd)
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// jsonRunLines builds n JSON logger lines as the kernel takes them in
// long runs: of every length (a few bytes to several windows), CRLF, and
// now and then one it does not take (no jsonHead, too short).
func jsonRunLines(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for range n {
		// the message's length: from, up to
		sizes := [...][2]int{{0, 10000}, {0, 40}, {0, 40}, {100, 400}, {100, 400}, {100, 400}, {100, 400}}
		z := sizes[rng.IntN(len(sizes))]
		body := strings.Repeat("m", z[0]+rng.IntN(z[1]-z[0]))
		line := fmt.Sprintf(`{"ts":1723420800%03d.%03d,"msg":"%s"}`, rng.IntN(1000), rng.IntN(1000), body)
		switch rng.IntN(30) {
		case 0:
			line = line[:rng.IntN(len(line)+1)]
		case 1:
			line += "\r"
		case 2:
			line = strings.Replace(line, `"ts"`, `"tS"`, 1)
		case 3:
			line = `{"ts":1`
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func TestJSONLinesKernelMatchesModel(t *testing.T) {
	if !useJSONKernel {
		t.Skip("no kernel on this CPU")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range 60 {
		var data []byte
		switch i % 4 {
		case 0: // short lines: several newlines in 64 bytes, pos filling up
			var b bytes.Buffer
			for range 200 + rng.IntN(800) {
				fmt.Fprintf(&b, "{\"ts\":1%s\n", strings.Repeat("1", 7+rng.IntN(12)))
			}
			data = b.Bytes()
		default:
			data = jsonRunLines(rng, 10+rng.IntN(60))
		}
		starts := lineStarts(data)
		// the hits and line limits around s's line and the windows
		probes := func(s, n int) (hits, maxes []int) {
			hits = []int{n, s, s + rng.IntN(n-s+1)}
			for _, w := range []int{63, 64, 65, 127, 128, 4095, 4096, 4097, 8192} {
				hits = append(hits, min(n, s+w))
			}
			if k := starts[rng.IntN(len(starts))]; k >= s && k <= n {
				hits = append(hits, k)
			}
			maxes = []int{DefaultMaxLineBytes, 8, 9, 10, 64, 4095, 4096, rng.IntN(12000)}
			if e := bytes.IndexByte(data[s:], '\n'); e >= 0 {
				maxes = append(maxes, e, e-1, e+1)
			}
			return hits, maxes
		}
		for range 30 {
			s := starts[rng.IntN(len(starts))]
			n := len(data)
			if rng.IntN(2) == 0 { // p cut anywhere after s
				n = s + rng.IntN(len(data)-s+1)
			}
			hits, maxes := probes(s, n)
			for _, hit := range hits {
				for _, max := range maxes {
					for _, room := range []int{64, 1, 2, 1 + rng.IntN(63)} {
						checkJSONLinesKernel(t, data, n, s, hit, max, room)
					}
				}
			}
		}
	}
}

// TestJSONLinesKernelReadsOnlyP runs the kernel over lines that end at a
// page the process may not read: a load past p[:n] faults.
func TestJSONLinesKernelReadsOnlyP(t *testing.T) {
	if !useJSONKernel {
		t.Skip("no kernel on this CPU")
	}
	page := syscall.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 3*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skip(err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[2*page:], syscall.PROT_NONE); err != nil {
		t.Skip(err)
	}
	rng := rand.New(rand.NewPCG(17, 18))
	for range 300 {
		lines := jsonRunLines(rng, 40)
		n := min(len(lines), 2*page-rng.IntN(3))
		lines = lines[len(lines)-n:]
		if k := bytes.IndexByte(lines, '\n'); k >= 0 {
			lines = lines[k+1:] // from a line start
		}
		buf := mem[2*page-len(lines) : 2*page]
		copy(buf, lines)
		for _, s := range lineStarts(buf) {
			for _, hit := range []int{len(buf), s + rng.IntN(len(buf)-s+1)} {
				checkJSONLinesKernel(t, buf, len(buf), s, hit, DefaultMaxLineBytes, 64)
			}
		}
	}
}

// TestJSONLinesKernelHeadBytes puts every byte value at every offset of
// the head and the newline's neighbourhood of a line in a run.
func TestJSONLinesKernelHeadBytes(t *testing.T) {
	line := `{"ts":1723420800018.756,"caller":"a/b.go:1","msg":"x"}` + "\n"
	data := []byte(strings.Repeat(line, 4) + strings.Repeat("y", 64))
	at := 2 * len(line)
	for _, i := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, len(line) - 2, len(line) - 1, len(line)} {
		for c := range 256 {
			d := bytes.Clone(data)
			d[at+i] = byte(c)
			checkJSONLinesKernel(t, d, len(d), 0, 4*len(line), DefaultMaxLineBytes, 64)
			checkAnalyzeBlock(t, fmt.Sprintf("byte %d = %#x", i, c), d[:4*len(line)])
		}
	}
}

func FuzzJSONLinesKernel(f *testing.F) {
	rng := rand.New(rand.NewPCG(19, 20))
	for range 8 {
		f.Add(jsonRunLines(rng, 12), uint16(0), uint16(0), uint16(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut, hit, max uint16) {
		n := len(data) - int(cut)%(len(data)+1)
		for _, s := range lineStarts(data[:n]) {
			for _, h := range []int{n, min(n, s+int(hit))} {
				for _, m := range []int{DefaultMaxLineBytes, int(max)} {
					checkJSONLinesKernel(t, data, n, s, h, m, 64)
				}
			}
		}
	})
}
