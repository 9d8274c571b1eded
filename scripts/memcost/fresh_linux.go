package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var errUnsupported = errors.New("fresh memory is measured on Linux only")

const hugePage = 2 << 20

// touchFresh maps n bytes of anonymous memory (on 2 MiB pages when huge,
// else 4 KiB ones), writes one byte of each 4 KiB page, and returns how
// long the writes took; ok reports whether the kernel gave the huge pages
// asked for (the process's AnonHugePages grew by half of n at least), or
// that none were asked for.
func touchFresh(n int, huge bool) (d time.Duration, ok bool, err error) {
	m, err := syscall.Mmap(-1, 0, n+hugePage, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, false, err
	}
	defer syscall.Munmap(m)
	off := int(-uintptr(unsafe.Pointer(&m[0])) & (hugePage - 1))
	b := m[off : off+n]
	advice := syscall.MADV_NOHUGEPAGE
	if huge {
		advice = syscall.MADV_HUGEPAGE
	}
	if err := syscall.Madvise(b, advice); err != nil {
		return 0, false, err
	}
	before := anonHugeKiB()
	t0 := time.Now()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	d = time.Since(t0)
	if !huge {
		return d, true, nil
	}
	return d, anonHugeKiB()-before >= int64(n>>10)/2, nil
}

// anonHugeKiB is the process's memory on anonymous huge pages, in KiB
// (/proc/self/smaps_rollup; 0 when it cannot be read).
func anonHugeKiB() int64 {
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, found := strings.CutPrefix(line, "AnonHugePages:"); found {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
