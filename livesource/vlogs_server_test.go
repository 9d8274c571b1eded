package livesource

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The real VictoriaLogs server the tests start. CI installs the pinned
// release first (.ci/run: go install …/app/victoria-logs@VictoriaLogsVersion
// into a cache directory, exported as KCMTRACE_VICTORIALOGS); without it the
// tests build it into the same cache (about a minute, once) and skip only
// when that is impossible (no network, no Go toolchain).

// VictoriaLogsVersion is the pinned server release.
const victoriaLogsVersion = "v1.52.1"

const victoriaLogsPkg = "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs"

// envVictoriaLogs names the server binary; when set it must exist.
const envVictoriaLogs = "KCMTRACE_VICTORIALOGS"

// vlServer is the running server ("" URL when none).
var vlServer struct {
	url     string
	skipWhy string
	start   time.Duration
}

func TestMain(m *testing.M) {
	stop := startVictoriaLogs()
	code := m.Run()
	stop()
	os.Exit(code)
}

// victoriaLogsBinary finds or builds the server.
func victoriaLogsBinary() (string, error) {
	if p := os.Getenv(envVictoriaLogs); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", envVictoriaLogs, p, err)
		}
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "kcmtrace-tools", "victorialogs-"+victoriaLogsVersion)
	bin := filepath.Join(dir, "victoria-logs")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go toolchain to build %s: %v", victoriaLogsPkg, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "install", victoriaLogsPkg+"@"+victoriaLogsVersion)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
	t0 := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %v: %s", victoriaLogsPkg, victoriaLogsVersion, err, lastLines(out, 3))
	}
	fmt.Fprintf(os.Stderr, "livesource: built VictoriaLogs %s in %s\n", victoriaLogsVersion, time.Since(t0).Round(time.Second))
	return bin, nil
}

// startVictoriaLogs starts the server on a free loopback port with a
// temporary data directory and returns its stop function.
func startVictoriaLogs() (stop func()) {
	noop := func() {}
	bin, err := victoriaLogsBinary()
	if err != nil {
		if os.Getenv(envVictoriaLogs) != "" {
			fmt.Fprintf(os.Stderr, "livesource: %v\n", err)
			os.Exit(1)
		}
		vlServer.skipWhy = "no VictoriaLogs server: " + err.Error()
		return noop
	}
	data, err := os.MkdirTemp("", "kcmtrace-vlogs-")
	if err != nil {
		vlServer.skipWhy = err.Error()
		return noop
	}
	addr, err := freePort()
	if err != nil {
		vlServer.skipWhy = err.Error()
		return func() { os.RemoveAll(data) }
	}
	t0 := time.Now()
	cmd := exec.Command(bin, "-httpListenAddr="+addr, "-storageDataPath="+filepath.Join(data, "data"),
		"-retentionPeriod=100y", "-loggerLevel=ERROR")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		vlServer.skipWhy = "start " + bin + ": " + err.Error()
		return func() { os.RemoveAll(data) }
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(data)
	}
	url := "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			stop()
			fmt.Fprintf(os.Stderr, "livesource: VictoriaLogs did not become ready on %s: %s\n", addr, lastLines(stderr.Bytes(), 5))
			os.Exit(1)
		}
		time.Sleep(20 * time.Millisecond)
	}
	vlServer.url, vlServer.start = url, time.Since(t0)
	return stop
}

// needVictoriaLogs skips t when no server runs (only when it could not be
// built: with KCMTRACE_VICTORIALOGS set, TestMain fails instead).
func needVictoriaLogs(t *testing.T) string {
	t.Helper()
	if vlServer.url == "" {
		t.Skip(vlServer.skipWhy)
	}
	return vlServer.url
}

func freePort() (string, error) {
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

// vlIngest posts JSON lines to the server and makes them searchable.
func vlIngest(t *testing.T, base string, streamFields string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/insert/jsonline?_stream_fields="+streamFields, bytes.NewReader(body))
	// Not form-urlencoded: with it the server answers 200 and ingests nothing.
	req.Header.Set("Content-Type", "application/stream+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ingest: HTTP %d", resp.StatusCode)
	}
	resp, err = http.Get(base + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatal(errors.New("force_flush: HTTP " + resp.Status))
	}
}
