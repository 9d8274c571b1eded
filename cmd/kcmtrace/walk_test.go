package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A directory walk never drops a file silently (issue 21 item 11): symlinked
// logs (the /var/log/containers layout) are followed, and every entry not
// read gets a line on stderr; one that may have held a log exits 3.
func TestWalkFollowsSymlinksAndNamesSkips(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "pods")
	containers := filepath.Join(dir, "logs", "containers")
	for _, d := range []string{pods, containers} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"kcm.log", "kubelet.log"} {
		data := readFixture(t, "incidents", "seed-legacy", name)
		if err := os.WriteFile(filepath.Join(pods, "0-"+name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		// the container log names of /var/log/containers: pod_ns_container-id.log
		if err := os.Symlink(filepath.Join(pods, "0-"+name), filepath.Join(containers, "pod_kube-system_"+strings.TrimSuffix(name, ".log")+"-0123.log")); err != nil {
			t.Fatal(err)
		}
	}

	// Only symlinks: read, exit 0.
	code, stdout, stderr := runWithStdin(t, []string{"analyze", containers}, nil)
	if code != exitOK || !strings.Contains(stdout, "attach-before-detach") {
		t.Fatalf("symlinked logs: exit %d, stderr %q; want 0 and the seed incident", code, stderr)
	}

	// Entries that cannot be read beside them.
	logs := filepath.Join(dir, "logs")
	if err := syscall.Mkfifo(filepath.Join(logs, "kubelet.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("unix", filepath.Join(logs, "agent.sock")); err == nil {
		defer l.Close()
	}
	if err := os.Symlink("..", filepath.Join(logs, "containers", "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone.log"), filepath.Join(logs, "dangling.log")); err != nil {
		t.Fatal(err)
	}
	deep := deepDir(t, logs)
	code, stdout, stderr = runWithStdin(t, []string{"analyze", logs}, nil)
	if code != exitInput {
		t.Errorf("exit %d, want %d (something that looked like a log was not read)", code, exitInput)
	}
	if !strings.Contains(stdout, "attach-before-detach") {
		t.Errorf("the readable logs were not analysed; stderr %q", stderr)
	}
	for _, want := range []string{
		"kubelet.log: skipped: not a regular file (a named pipe)",
		"agent.sock: skipped: not a regular file (a socket)",
		"up: skipped: symlink loop",
		"dangling.log: skipped: symlink that cannot be followed",
		deep[len(deep)-40:] + ": skipped: unreadable directory (file name too long)",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stdout, "pod_kube-system_kcm-0123.log"); n == 0 {
		t.Errorf("the symlinked controller log is not among the inputs")
	}
}

// deepDir makes a directory under dir whose path is longer than PATH_MAX
// (4096), with a log in it, and returns the path of its parent chain's
// unreadable level.
func deepDir(t *testing.T, dir string) string {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	seg := strings.Repeat("d", 200)
	p := dir
	for range 22 {
		if err := root.Mkdir(seg, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := root.OpenRoot(seg)
		if err != nil {
			t.Fatal(err)
		}
		defer next.Close()
		root = next
		p = filepath.Join(p, seg)
	}
	if err := root.WriteFile("deep.log", []byte("E0812 11:10:01.734377 1 x.go:1] hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// the first level whose path exceeds PATH_MAX is the one not read
	q := dir
	for len(q) <= 4096 {
		q = filepath.Join(q, seg)
	}
	return q
}
