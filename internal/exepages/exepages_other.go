//go:build !linux

package exepages

// Release does nothing here (see the package comment).
func Release() int { return 0 }
