// Package vlogstest runs a real VictoriaLogs server for tests (the pinned
// release, found through KCMTRACE_VICTORIALOGS or built once into the user
// cache) and loads the seed incident into it as the common collectors
// label it. It is test support: only _test.go files import it.
package vlogstest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Version is the pinned server release (.ci/run installs the same).
const Version = "v1.52.1"

const pkg = "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs"

// EnvBinary names the server binary; when set it must exist, and tests
// fail rather than skip without a server.
const EnvBinary = "KCMTRACE_VICTORIALOGS"

// Server is a running VictoriaLogs on a loopback port with a temporary
// data directory.
type Server struct {
	URL     string        // http://127.0.0.1:PORT
	Started time.Duration // how long it took to become ready
	cmd     *exec.Cmd
	data    string
}

// Binary finds or builds the server.
func Binary() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvBinary, p, err)
		}
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "kcmtrace-tools", "victorialogs-"+Version)
	bin := filepath.Join(dir, "victoria-logs")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go toolchain to build %s: %v", pkg, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "install", pkg+"@"+Version)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	t0 := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v: %s", pkg, Version, err, lastLines(out, 3))
	}
	fmt.Fprintf(os.Stderr, "vlogstest: built VictoriaLogs %s in %s\n", Version, time.Since(t0).Round(time.Second))
	return bin, nil
}

// Start starts a server. skip is set (and err nil) when no server can be
// had and EnvBinary is unset: the caller skips its tests; err is a failure.
func Start() (s *Server, skip string, err error) {
	bin, err := Binary()
	if err != nil {
		if os.Getenv(EnvBinary) != "" {
			return nil, "", err
		}
		return nil, "no VictoriaLogs server: " + err.Error(), nil
	}
	data, err := os.MkdirTemp("", "kcmtrace-vlogs-")
	if err != nil {
		return nil, "", err
	}
	addr, err := FreePort()
	if err != nil {
		os.RemoveAll(data)
		return nil, "", err
	}
	t0 := time.Now()
	cmd := exec.Command(bin, "-httpListenAddr="+addr, "-storageDataPath="+filepath.Join(data, "data"),
		"-retentionPeriod=100y", "-loggerLevel=ERROR")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		os.RemoveAll(data)
		return nil, "", fmt.Errorf("start %s: %v", bin, err)
	}
	s = &Server{URL: "http://" + addr, cmd: cmd, data: data}
	for deadline := time.Now().Add(15 * time.Second); ; {
		resp, err := http.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, "", fmt.Errorf("VictoriaLogs did not become ready on %s: %s", addr, lastLines(stderr.Bytes(), 5))
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Started = time.Since(t0)
	return s, "", nil
}

// Stop ends the server and removes its data.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(s.data)
}

// Ingest posts JSON lines to the server and makes them searchable.
func (s *Server) Ingest(streamFields string, body []byte) error {
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/insert/jsonline?_stream_fields="+streamFields, bytes.NewReader(body))
	// Not form-urlencoded: with it the server answers 200 and ingests nothing.
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("ingest: HTTP %d", resp.StatusCode)
	}
	resp, err = http.Get(s.URL + "/internal/force_flush")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("force_flush: HTTP %s", resp.Status)
	}
	return nil
}

// FreePort is a free 127.0.0.1 address (host:port).
func FreePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func lastLines(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte{'\n'})
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte(" | ")))
}
