package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestRun checks the line memcost prints: both fresh-memory costs (or
// that the platform has none) and the read speed over the bytes of the
// files given, every one of them read.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, n := range []int{3 << 20, 1<<20 + 17} {
		f := filepath.Join(dir, string(rune('a'+i)))
		if err := os.WriteFile(f, bytes.Repeat([]byte("x"), n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	n, err := readAll(files)
	if err != nil || n != 4<<20+17 {
		t.Fatalf("readAll = %d, %v; want %d bytes", n, err, 4<<20+17)
	}
	var out bytes.Buffer
	if err := run(&out, 4, 3, files); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^fresh memory:( 2 MiB pages[a-z ,]* [0-9.]+ ms/MiB \([0-9.]+–[0-9.]+\), 4 KiB pages [0-9.]+ ms/MiB \([0-9.]+–[0-9.]+\)| n/a on this platform); page cache read\(2\): [0-9.]+ GB/s \(4 MiB, 512 KiB reads\)\n$`)
	if !want.Match(out.Bytes()) {
		t.Errorf("run printed %q", out.String())
	}
	if _, err := readAll([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("readAll of a missing file: no error")
	}
	if err := run(&out, 0, 1, nil); err == nil {
		t.Error("run with -mib 0: no error")
	}
}
