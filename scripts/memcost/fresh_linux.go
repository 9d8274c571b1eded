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
// asked for (AnonHugePages of the mapping), or that none were asked for.
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
	t0 := time.Now()
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	d = time.Since(t0)
	if !huge {
		return d, true, nil
	}
	kb, err := anonHugeKiB(uintptr(unsafe.Pointer(&b[0])))
	return d, err == nil && kb >= int64(n>>10)/2, nil
}

// anonHugeKiB is the AnonHugePages of the mapping holding addr
// (/proc/self/smaps).
func anonHugeKiB(addr uintptr) (int64, error) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	in := false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if lo, hi, found := strings.Cut(f[0], "-"); found && !strings.HasSuffix(f[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			z, err2 := strconv.ParseUint(hi, 16, 64)
			in = err1 == nil && err2 == nil && uint64(addr) >= a && uint64(addr) < z
			continue
		}
		if in && f[0] == "AnonHugePages:" && len(f) > 1 {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, errors.New("mapping not found in /proc/self/smaps")
}
