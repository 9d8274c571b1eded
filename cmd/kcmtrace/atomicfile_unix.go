//go:build unix

package main

import (
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of old, the file it replaces,
// when run as root (best effort: a report's owner is kept, not required).
func keepOwner(f *os.File, old os.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok && os.Geteuid() == 0 {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}

// raise sends sig to this process (its handler reset: its default action).
func raise(sig syscall.Signal) { syscall.Kill(os.Getpid(), sig) }
