package loggen

import (
	"io"
	"testing"
)

// BenchmarkGenerate measures generation throughput (20 MiB per op).
func BenchmarkGenerate(b *testing.B) {
	for _, era := range Eras {
		b.Run(string(era), func(b *testing.B) {
			const size = 20 << 20
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(io.Discard, Config{Size: size, Era: era, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
