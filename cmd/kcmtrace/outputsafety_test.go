package main

import (
	"bytes"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Output safety of -o FILE (issue 21 items 6–10): never destroy an input or
// a device node, keep modes, leave no temporary file behind, and give
// output I/O errors the input/output exit code.

// seedKCMCopy copies the seed incident's controller log to dir/name.
func seedKCMCopy(t *testing.T, dir, name string) string {
	t.Helper()
	data := readFixture(t, "incidents", "seed-legacy", "kcm.log")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOutputRefusesAnInput(t *testing.T) {
	for _, tc := range []struct{ name, input, output string }{
		{"same path", "logs/kcm.log", "logs/kcm.log"},
		{"through a symlink", "logs/kcm.log", "alias.log"},
		{"through a directory input", "logs", "logs/kcm.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "logs"), 0o755)
			kcm := seedKCMCopy(t, filepath.Join(dir, "logs"), "kcm.log")
			before, _ := os.ReadFile(kcm)
			if err := os.Symlink(kcm, filepath.Join(dir, "alias.log")); err != nil {
				t.Fatal(err)
			}
			in, out := filepath.Join(dir, tc.input), filepath.Join(dir, tc.output)
			code, _, stderr := runWithStdin(t, []string{"analyze", in, "-o", out}, nil)
			if code != exitUsage {
				t.Errorf("exit %d, want %d (usage); stderr: %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, "is one of the inputs") {
				t.Errorf("stderr does not say why: %q", stderr)
			}
			if after, _ := os.ReadFile(kcm); !bytes.Equal(after, before) {
				t.Fatalf("the input was overwritten (%d bytes, was %d)", len(after), len(before))
			}
		})
	}
}

func TestOutputWritesInPlaceToNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	kcm := seedKCMCopy(t, dir, "kcm.log")
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	// Read and write end at once: opening never blocks, and the reader
	// stops once the command is done and the pipe is drained.
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	done := make(chan int, 1)
	go func() {
		code, _, _ := runWithStdin(t, []string{"analyze", kcm, "-o", fifo}, nil)
		done <- code
	}()
	var report []byte
	code := -1
	buf := make([]byte, 64<<10)
	for {
		r.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := r.Read(buf)
		report = append(report, buf[:n]...)
		if err != nil && code < 0 {
			select {
			case code = <-done:
				continue // drain what is left
			default:
				continue
			}
		}
		if err != nil {
			break
		}
	}
	fi, err := os.Lstat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced by a %v", fi.Mode())
	}
	if code != exitOK || !bytes.Contains(report, []byte("attach-before-detach")) {
		t.Errorf("exit %d; the reader got %d bytes, want the report", code, len(report))
	}
}

func TestOutputModes(t *testing.T) {
	dir := t.TempDir()
	kcm := seedKCMCopy(t, dir, "kcm.log")
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)

	fresh := filepath.Join(dir, "new.txt")
	if code, _, stderr := runWithStdin(t, []string{"analyze", kcm, "-o", fresh}, nil); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file under umask 077: mode %v, want 0600", fi.Mode().Perm())
	}

	syscall.Umask(0o022)
	kept := filepath.Join(dir, "kept.txt")
	if err := os.WriteFile(kept, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o640)
	if code, _, stderr := runWithStdin(t, []string{"analyze", kcm, "-o", kept}, nil); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o640 {
		t.Errorf("existing 0640 file: mode %v after -o, want 0640", fi.Mode().Perm())
	}
}

func TestOutputSignalRemovesTemporaryFile(t *testing.T) {
	// Catch SIGTERM here too, so that before the fix the test sees the
	// temporary file left behind rather than dying.
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, syscall.SIGTERM)
	defer signal.Stop(caught)
	exited := make(chan os.Signal, 1)
	old := signalExit
	signalExit = func(sig os.Signal) { exited <- sig }
	defer func() { signalExit = old }()

	dir := t.TempDir()
	out := filepath.Join(dir, "report.txt")
	f, err := createOutput(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half a report"))
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Error("no exit after SIGTERM")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left after SIGTERM: %v", left)
	}
}

// failingWriter fails every write, as a full disk or a closed pipe does.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestOutputIOErrorsExitInput(t *testing.T) {
	kcm := absFixture(t, "incidents", "seed-legacy", "kcm.log")
	var errb bytes.Buffer
	code := runEnv([]string{"analyze", kcm}, env{stdin: emptyReader{}, stdout: failingWriter{syscall.EPIPE}, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitInput {
		t.Errorf("closed pipe: exit %d, want %d (input/output)", code, exitInput)
	}
	if !strings.Contains(errb.String(), "writing stdout") || !strings.Contains(errb.String(), "broken pipe") {
		t.Errorf("stderr does not name the output and error: %q", errb.String())
	}

	if _, err := os.Stat("/dev/full"); errors.Is(err, os.ErrNotExist) {
		t.Skip("no /dev/full")
	}
	code, _, stderr := runWithStdin(t, []string{"analyze", kcm, "-o", "/dev/full"}, nil)
	if code != exitInput || !strings.Contains(stderr, "no space left") {
		t.Errorf("-o /dev/full: exit %d, stderr %q; want %d and the error", code, stderr, exitInput)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/full is no longer a character device: %v %v", fi, err)
	}
}
