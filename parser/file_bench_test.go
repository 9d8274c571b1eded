package parser

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/benchfiles"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkParseFiles parses the files named in KCMTRACE_BENCH_FILES
// (comma-separated, e.g. the logs scripts/bench.sh generates) with ParseAll;
// it is skipped when the variable is unset.
func BenchmarkParseFiles(b *testing.B) {
	paths := benchfiles.Paths(b)
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		n += fi.Size()
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := ParseAll(paths, Options{}); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkIndexToken scans 8 MiB of generated KCM log for every token
// occurrence, as analyzeBlock does, with the SIMD kernel (where there is
// one) and with the scalar fallback.
func BenchmarkIndexToken(b *testing.B) {
	var data []byte
	for _, blk := range blocksOfGeneratedLog(b) {
		if data = append(data, blk...); len(data) >= 8<<20 {
			break
		}
	}
	for _, c := range []struct {
		name  string
		index func([]byte) int
	}{{"teddy", indexToken}, {"scalar", indexTokenScalar}} {
		if c.name == "teddy" && !useTeddy {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				hits := 0
				for s := 0; s < len(data); {
					i := c.index(data[s:])
					if i < 0 {
						break
					}
					hits++
					// skip to the next line, as analyzeBlock does after a hit
					if j := bytes.IndexByte(data[s+i:], '\n'); j >= 0 {
						s += i + j + 1
					} else {
						break
					}
				}
				if hits == 0 {
					b.Fatal("no hits")
				}
			}
		})
	}
}

// BenchmarkParseIrrelevant parses 32 MiB of generated KCM log in which
// almost no line is about volumes (VolumeShare 1e-6), of each era, from
// memory: the cost of the lines the prefilter lets go, which is the floor
// of every run.
func BenchmarkParseIrrelevant(b *testing.B) {
	for _, era := range []loggen.Era{loggen.Legacy, loggen.JSON} {
		var buf bytes.Buffer
		if _, err := loggen.Generate(&buf, loggen.Config{Size: 32 << 20, Era: era, Seed: 1, VolumeShare: 1e-6}); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(string(era), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				res := ParseReader(bytes.NewReader(data), "kcm.log", Options{})
				if res.Input.Lines == 0 || res.Input.Unaccounted() != 0 {
					b.Fatalf("accounting %+v", res.Input)
				}
			}
		})
	}
}

// BenchmarkFileBlocks cuts a 64 MiB generated log file into blocks and
// counts its lines, mapped (mapReader) and with read(2) (blockReader): the
// cost of reading a file, without the analysis and the scanner.
func BenchmarkFileBlocks(b *testing.B) {
	p := filepath.Join(b.TempDir(), "kcm.log")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := loggen.Generate(f, loggen.Config{Size: 64 << 20, Era: loggen.Legacy, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for _, mapped := range []bool{true, false} {
		if mapped && !canMap {
			continue
		}
		b.Run(map[bool]string{true: "mapped", false: "read"}[mapped], func(b *testing.B) {
			withMapping(mapped, mapWindow, nil, func() {
				var size int64
				for b.Loop() {
					f, err := os.Open(p)
					if err != nil {
						b.Fatal(err)
					}
					st := newInputState(p, 0)
					st.file = f
					src := st.blocks(bufio.NewReaderSize(f, sniffBufSize), DefaultMaxLineBytes, "", nil)
					var next func() (*chunk, bool)
					switch s := src.(type) {
					case *mapReader:
						next = s.next
					case *blockReader:
						next = s.next
					}
					lines := 0
					for c, ok := next(); ok; c, ok = next() {
						lines += bytes.Count(c.data, []byte{'\n'})
						src.release(c)
					}
					if m, ok := src.(*mapReader); ok {
						m.drop()
					}
					size, _, _ = src.end()
					f.Close()
					if lines == 0 {
						b.Fatal("no lines")
					}
				}
				b.SetBytes(size)
			})
		})
	}
}
