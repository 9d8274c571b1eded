//go:build linux

package hugeheap

import "golang.org/x/sys/unix"

const supported = true

// advise marks b, whole huge pages of the heap, for huge pages. It is a
// hint: it fails harmlessly where THP is off or unknown.
func advise(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
