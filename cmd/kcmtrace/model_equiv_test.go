package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// TestModelOutputsUnchanged pins every output of the whole chain on
// generated logs of every traffic shape and era (4 MiB of KCM log plus node
// B's kubelet log each): analyze as JSON, text and Markdown, the typed
// events (every event's evidence text) and the volumes table. The file
// holds a SHA-256 and the size per output, written by the model the compact
// one replaced; a change to the event store, the timeline or the report
// that changes a byte fails here. scripts/model-diff.sh OLDREV compares two
// builds output by output at any size (1 GiB included), to see what moved.
func TestModelOutputsUnchanged(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for _, shape := range loggen.Shapes {
		for _, era := range loggen.Eras {
			name := fmt.Sprintf("%s-%s", shape, era)
			kcm, kubelet := filepath.Join(dir, name+".kcm.log"), filepath.Join(dir, name+".kubelet.log")
			var kcmBuf, kubeletBuf bytes.Buffer
			if _, err := loggen.Generate(&kcmBuf, loggen.Config{Size: 4 << 20, Era: era, Seed: 1, Shape: shape, Kubelet: &kubeletBuf}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kcm, kcmBuf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kubelet, kubeletBuf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, c := range modelCommands {
				args := append(append([]string{}, c.args...), name+".kcm.log", name+".kubelet.log")
				var out, errOut bytes.Buffer
				code := runInDir(dir, args, env{stdin: emptyReader{}, stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }})
				if code > exitFindings {
					t.Fatalf("%s %s: exit %d: %s", name, c.name, code, errOut.String())
				}
				sum := sha256.Sum256(out.Bytes())
				fmt.Fprintf(&b, "%s  %d  %s/%s\n", hex.EncodeToString(sum[:]), out.Len(), name, c.name)
				if testing.Verbose() {
					os.WriteFile(filepath.Join(dir, name+"."+c.name+".out"), out.Bytes(), 0o644)
				}
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", "model", "outputs.sha256"), []byte(b.String()))
	if t.Failed() && testing.Verbose() {
		t.Logf("the outputs are in %s", dir)
	}
}

// modelCommands are the outputs TestModelOutputsUnchanged pins.
var modelCommands = []struct {
	name string
	args []string
}{
	{"analyze.json", []string{"analyze", "-o", "json", "--no-progress"}},
	{"analyze.txt", []string{"analyze", "--no-progress", "--color", "never"}},
	{"analyze.md", []string{"analyze", "-o", "markdown", "--no-progress"}},
	{"events.jsonl", []string{"events", "--no-progress"}},
	{"volumes.txt", []string{"volumes", "--no-progress", "--color", "never"}},
}
