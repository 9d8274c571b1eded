package main

// Atomic writes of -o FILE.

import (
	"os"
	"path/filepath"
)

// atomicFile writes to a temporary file beside path and renames it into
// place on commit, so a reader never sees half a report.
type atomicFile struct {
	f    *os.File
	path string
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &atomicFile{f: f, path: path}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// commit closes and renames; abort removes the temporary file.
func (a *atomicFile) commit() error {
	if err := a.f.Close(); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	if err := os.Chmod(a.f.Name(), 0o644); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return os.Rename(a.f.Name(), a.path)
}

func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}
