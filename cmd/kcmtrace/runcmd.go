package main

// Running the user's own CLIs (kubectl, gcloud, aws, az) for `collect
// --exec` and `fetch --exec`: found on the PATH of the environment the
// command was given, stdout to a file, a failure one problem line.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// lookPath finds name on the PATH of e (not necessarily the process's).
func lookPath(e env, name string) (string, error) {
	for _, dir := range filepath.SplitList(e.getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", name, fs.ErrNotExist)
}

// execTo runs argv with its stdout to w. A failure is printed as one line
// on e's stderr (the command, how it ended and the last line it printed on
// stderr) and returned.
func execTo(e env, argv []string, w io.Writer) error {
	path, err := lookPath(e, argv[0])
	if err == nil {
		var stderr bytes.Buffer
		cmd := exec.Command(path, argv[1:]...)
		cmd.Stdout, cmd.Stderr = w, &stderr
		if err = cmd.Run(); err != nil {
			if last := lastLine(stderr.String()); last != "" {
				err = fmt.Errorf("%w: %s", err, last)
			}
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("not found on PATH")
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: %s: %s\n", shellWords(argv), oneLine(err.Error()))
	}
	return err
}

// execToFile runs argv with its stdout to path; a failed command leaves no
// file (a partial dump would read as a malformed input).
func execToFile(e env, argv []string, path string) error {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: %s: %v\n", path, err)
		return err
	}
	err = execTo(e, argv, f)
	if cerr := f.Close(); err == nil && cerr != nil {
		fmt.Fprintf(e.stderr, "kcmtrace: %s: %v\n", path, cerr)
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// lastLine is the last non-blank line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
