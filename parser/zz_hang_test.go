package parser

import (
	"bytes"
	"math/rand"
	"os"
	"testing"
	"time"
)

func TestZZHang(t *testing.T) {
	if os.Getenv("HANG") == "" {
		t.Skip()
	}
	var seeds [][]byte
	for _, p := range testInputs(t) {
		d, _ := os.ReadFile(p)
		seeds = append(seeds, d)
		for _, l := range bytes.Split(d, []byte("\n")) {
			seeds = append(seeds, append(l, '\n'))
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		d := append([]byte(nil), seeds[r.Intn(len(seeds))]...)
		for j := 0; j < 1+r.Intn(8); j++ {
			if len(d) == 0 {
				break
			}
			switch r.Intn(4) {
			case 0:
				d[r.Intn(len(d))] = byte(r.Intn(256))
			case 1:
				k := r.Intn(len(d))
				d = d[:k]
			case 2:
				k := r.Intn(len(d))
				d = append(d[:k], append([]byte{byte(r.Intn(256))}, d[k:]...)...)
			case 3:
				d = append(d, seeds[r.Intn(len(seeds))]...)
			}
		}
		done := make(chan bool, 1)
		go func() {
			ParseReader(bytes.NewReader(d), "f", Options{MaxLineBytes: 4096})
			done <- true
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			os.WriteFile("/tmp/hang.bin", d, 0o644)
			t.Fatalf("hang on %q", d[:min(len(d), 300)])
		}
	}
}
