package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/creack/pty"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptStderrTTY is the script command
//
//	stderr-tty [-slow-stdin FILE] ARGS...
//
// It runs kcmtrace as a real process (kcmtrace-process) with stderr on a
// pseudo-terminal, so what only a terminal gets (the progress bar, the
// spinner) is drawn; the terminal's output becomes the script's stderr and
// the process's stdout its stdout. With -slow-stdin, FILE is fed to stdin
// one line every 100 ms, so that reading outlasts the bar's settle time.
// The exit code is set for exit-code.
func scriptStderrTTY(ts *testscript.TestScript, neg bool, args []string) {
	var slow string
	if len(args) >= 2 && args[0] == "-slow-stdin" {
		slow, args = ts.MkAbs(args[1]), args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: stderr-tty [-slow-stdin FILE] ARGS...")
	}
	bin, err := lookPath(env{getenv: ts.Getenv}, "kcmtrace-process")
	ts.Check(err)
	ptmx, tty, err := pty.Open()
	ts.Check(err)
	defer ptmx.Close()
	ts.Check(pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}))
	cmd := exec.Command(bin, args...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = scriptEnviron(ts)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	var feed io.WriteCloser
	if slow != "" {
		feed, err = cmd.StdinPipe()
		ts.Check(err)
	}
	ts.Check(cmd.Start())
	tty.Close() // the child holds its own copy
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx) // EIO once the child and its copy are gone
		read <- b
	}()
	if feed != nil {
		f, err := os.Open(slow)
		ts.Check(err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if _, err := feed.Write(append(sc.Bytes(), '\n')); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		f.Close()
		feed.Close()
	}
	werr := cmd.Wait()
	out := <-read
	ts.Stdout().Write(stdout.Bytes())
	ts.Stderr().Write(out)
	code := cmd.ProcessState.ExitCode()
	ts.Setenv("KCMTRACE_EXIT", strconv.Itoa(code))
	if (werr != nil) != neg {
		ts.Fatalf("kcmtrace exited %d", code)
	}
}

// scriptEnviron is the script's environment for a process a command
// starts: the variables the scripts set (testscript keeps them private).
func scriptEnviron(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM", "TZ", "GOCOVERDIR"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
