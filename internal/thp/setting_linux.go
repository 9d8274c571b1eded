//go:build linux

package thp

import "syscall"

// Setting returns a kernel setting file's content (its first 64 bytes:
// every setting thp reads is shorter), trimmed; "" when it cannot be read.
func Setting(path string) string {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	defer syscall.Close(fd)
	var b [64]byte
	n, err := syscall.Read(fd, b[:])
	if err != nil || n <= 0 {
		return ""
	}
	return Trim(string(b[:n]))
}
