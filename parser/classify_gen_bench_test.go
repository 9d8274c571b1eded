package parser

import (
	"bytes"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// genGroup is one kind of candidate line of a generated log.
type genGroup struct {
	name  string
	lines [][]byte
}

// genCandidates generates size bytes of era log (seed 1) and returns its
// candidate lines (mayMatter) grouped by kind, in a fixed order: Kubernetes
// events by reason (ExternalProvisioning, SuccessfulAttachVolume), then by
// caller file (reconciler.go, operation_generator.go, reflector.go), then
// the rest.
func genCandidates(tb testing.TB, era loggen.Era, size int64) []genGroup {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := loggen.Generate(&buf, loggen.Config{Size: size, Era: era, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	groups := []genGroup{
		{name: "ExternalProvisioning"}, {name: "SuccessfulAttachVolume"},
		{name: "reconciler"}, {name: "operation_generator"}, {name: "reflector"}, {name: "other"},
	}
	data := buf.Bytes()
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if !mayMatter(line) {
			continue
		}
		g := len(groups) - 1
		switch {
		case bytes.Contains(line, []byte("ExternalProvisioning")):
			g = 0
		case bytes.Contains(line, []byte("SuccessfulAttachVolume")):
			g = 1
		case bytes.Contains(line, []byte(" reconciler.go:")):
			g = 2
		case bytes.Contains(line, []byte(" operation_generator.go:")):
			g = 3
		case bytes.Contains(line, []byte(" reflector.go:")):
			g = 4
		}
		groups[g].lines = append(groups[g].lines, line)
	}
	return groups
}

// BenchmarkClassifyGenerated runs klogEmit over the candidate lines of a
// generated 16 MiB KCM log (legacy and structured eras), one sub-benchmark
// per kind of line; an iteration classifies one line (the group's lines in
// turn), so ns/op and allocs/op are per line.
func BenchmarkClassifyGenerated(b *testing.B) {
	for _, era := range []loggen.Era{loggen.Legacy, loggen.Structured} {
		for _, g := range genCandidates(b, era, 16<<20) {
			if len(g.lines) == 0 {
				continue
			}
			n := 0
			for _, l := range g.lines {
				n += len(l)
			}
			b.Run(string(era)+"/"+g.name, func(b *testing.B) {
				b.SetBytes(int64(n / len(g.lines)))
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					klogEmit(g.lines[i])
					if i++; i == len(g.lines) {
						i = 0
					}
				}
			})
		}
	}
}
