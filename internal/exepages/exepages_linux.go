package exepages

import (
	"os"
	"reflect"

	"golang.org/x/sys/unix"
)

// Release gives back the executable's resident read-only pages (see the
// package comment) and reports how many bytes of mappings it released;
// 0 when it could not read /proc/self/smaps. Safe while other goroutines
// run: a page they read next is faulted in again.
func Release() int {
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range releasable(parseSmaps(b), reflect.ValueOf(Release).Pointer()) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.beg, m.end-m.beg, unix.MADV_DONTNEED); errno == 0 {
			n += int(m.end - m.beg)
		}
	}
	return n
}
