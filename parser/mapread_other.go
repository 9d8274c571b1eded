//go:build !linux

package parser

import (
	"errors"
	"os"
)

// canMap is false: files are read, not mapped.
const canMap = false

func mapWindow(f *os.File, off int64, n int) ([]byte, error) {
	return nil, errors.New("mmap not supported")
}

func unmapWindow(m []byte) {}
