//go:build !unix

package main

import (
	"os"
	"syscall"
)

// keepOwner does nothing where files have no Unix owner (Windows).
func keepOwner(*os.File, os.FileInfo) {}

// raise does nothing where a process cannot signal itself: signalExit
// then exits with 128 + the signal's number, as a shell reports it.
func raise(syscall.Signal) {}
