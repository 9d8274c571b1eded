//go:build !linux

package parser

import (
	"errors"
	"os"
)

// canMap is false: files are read, not mapped.
const canMap = false

func mapFile(f *os.File, size int64) ([]byte, error) {
	return nil, errors.New("mmap not supported")
}

func unmapFile(m []byte)     {}
func populatePages(b []byte) {}
func dropPages(b []byte)     {}
