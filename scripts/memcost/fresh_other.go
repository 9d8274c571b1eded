//go:build !linux

package main

import (
	"errors"
	"time"
)

var errUnsupported = errors.New("fresh memory is measured on Linux only")

func touchFresh(int, bool) (time.Duration, bool, error) { return 0, false, errUnsupported }
