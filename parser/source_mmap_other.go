//go:build !linux

package parser

import (
	"errors"
	"os"
)

// canMap says mapFile maps files here: not on this system, where files
// are read with read(2).
const canMap = false

func mapFile(*os.File, int64, int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) {}
