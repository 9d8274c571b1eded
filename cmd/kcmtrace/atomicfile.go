package main

// Safe writes of -o FILE: atomic for regular files, in place for devices
// and pipes, never over an input, modes kept, no debris after a signal.

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/kcmtrace/kcmtrace/parser"
)

// atomicFile is an open -o FILE. For a regular file (or a new one) it
// writes to a temporary file beside path and renames it into place on
// commit, so a reader never sees half a report; for an existing file that
// is not regular (/dev/null, /dev/stdout, a FIFO) it writes in place, so
// the device node is never replaced.
type atomicFile struct {
	f    *os.File
	path string // the file renamed onto (symlinks resolved)
	tmp  string // "" when writing in place
}

// createOutput opens path for a report of the inputs. It refuses a path
// that is one of the inputs (same device and inode, also when the input is
// a directory that holds it).
func createOutput(path string, inputs []string) (*atomicFile, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && (!fi.Mode().IsRegular() || strings.HasPrefix(path, "/dev/")):
		// /dev/stdout may resolve to a regular file: still the caller's stream
		if fi.IsDir() {
			return nil, fmt.Errorf("is a directory")
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, err
		}
		return &atomicFile{f: f, path: path}, nil
	case err == nil:
		if in := sameAsInput(fi, inputs); in != "" {
			return nil, &codeError{code: exitUsage, msg: fmt.Sprintf("-o %s is one of the inputs (%s): refusing to overwrite it", path, in)}
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real // keep a symlink a symlink: replace what it points to
		}
	}
	tmp, f, err := createTemp(path, fi)
	if err != nil {
		return nil, err
	}
	a := &atomicFile{f: f, path: path, tmp: tmp}
	watchSignals(tmp)
	return a, nil
}

// sameAsInput returns the input (or the file of a directory input) that is
// the file fi, or "".
func sameAsInput(fi os.FileInfo, inputs []string) string {
	for _, p := range inputs {
		if p == "-" {
			continue
		}
		in, err := os.Stat(p)
		if err != nil {
			continue
		}
		if os.SameFile(fi, in) {
			return p
		}
		if in.IsDir() {
			for _, f := range parser.InputFiles(p) {
				if fi2, err := os.Stat(f); err == nil && os.SameFile(fi, fi2) {
					return f
				}
			}
		}
	}
	return ""
}

// createTemp creates .NAME.NNN.tmp beside path: with the mode of the file
// it replaces (old, nil when new), else 0666 less the umask.
func createTemp(path string, old os.FileInfo) (string, *os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64()%1e10, 10)+".tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666) // the umask applies
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		if old != nil {
			if err := f.Chmod(old.Mode().Perm()); err != nil {
				f.Close()
				os.Remove(tmp)
				return "", nil, err
			}
			keepOwner(f, old)
		}
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("cannot create a temporary file in %s", dir)
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// errWriter remembers the first write error of w, so that a render that
// fails because its output did can be told from one that failed itself.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// outputErr is the input/output error (exit 3) of writing to what.
func outputErr(what string, err error) error {
	return &codeError{code: exitInput, msg: fmt.Sprintf("writing %s: %v (output error)", what, unwrapPath(err))}
}

// unwrapPath drops the temporary file's name from an error: the user named
// the output, not it.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// commit closes and renames; abort removes the temporary file.
func (a *atomicFile) commit() error {
	err := a.f.Close()
	if a.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(a.tmp, a.path)
	}
	if err != nil {
		os.Remove(a.tmp)
	}
	unwatch(a.tmp)
	return err
}

func (a *atomicFile) abort() {
	a.f.Close()
	if a.tmp != "" {
		os.Remove(a.tmp)
		unwatch(a.tmp)
	}
}

// Signals: while a temporary file exists, SIGINT, SIGTERM and SIGHUP
// remove it before the process dies of the signal.
var (
	sigMu   sync.Mutex
	sigTmps = map[string]bool{}
	sigOnce sync.Once
)

// signalExit ends the process after a signal (tests replace it): the
// default action of sig, by raising it again with the handler gone.
var signalExit = func(sig os.Signal) {
	signal.Reset(sig)
	if s, ok := sig.(syscall.Signal); ok {
		raise(s)
		os.Exit(128 + int(s)) // if it did not kill us
	}
	os.Exit(1)
}

func watchSignals(tmp string) {
	sigMu.Lock()
	sigTmps[tmp] = true
	sigMu.Unlock()
	sigOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			for sig := range ch {
				sigMu.Lock()
				for t := range sigTmps {
					os.Remove(t)
					delete(sigTmps, t)
				}
				sigMu.Unlock()
				signalExit(sig)
			}
		}()
	})
}

func unwatch(tmp string) {
	sigMu.Lock()
	delete(sigTmps, tmp)
	sigMu.Unlock()
}
