package envelope

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDetectLeavesPlainLogs: what the parser's own wrappers read (bare
// klog, journald short, CRI, docker json-file, kubectl --timestamps, klog
// JSON) is no envelope, so detection never takes it from them.
func TestDetectLeavesPlainLogs(t *testing.T) {
	for _, f := range []string{"seed-legacy/kcm.log", "seed-legacy/kubelet.log", "seed-1.28/kcm.log", "seed-1.28/kubelet.log", "seed-2021/kcm.log"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "incidents", f))
		if err != nil {
			t.Fatal(err)
		}
		if name, score := Detect(b[:min(len(b), SampleSize)]); name != "" {
			t.Errorf("%s: Detect = %s (%d)", f, name, score)
		}
	}
	for _, tc := range []struct{ name, in string }{
		{name: "docker json-file", in: "{\"log\":\"I0812 03:10:00.612388 1 a.go:1] x\\n\",\"stream\":\"stderr\",\"time\":\"2024-08-12T03:10:00.612388Z\"}\n{\"log\":\"I0812 03:10:00.612388 1 a.go:1] y\\n\",\"stream\":\"stderr\",\"time\":\"2024-08-12T03:10:00.612388Z\"}\n"},
		{name: "kubectl --timestamps", in: "2025-07-23T03:20:43.248292357-04:00 I0723 07:20:43.248 1 a.go:1] x\n2025-07-23T03:20:44.248292357-04:00 I0723 07:20:44.248 1 a.go:1] y\n"},
		{name: "klog JSON", in: "{\"ts\":1723432200612.388,\"caller\":\"a.go:1\",\"msg\":\"x\",\"v\":0}\n{\"ts\":1723432200613.388,\"caller\":\"a.go:1\",\"msg\":\"y\",\"v\":0}\n"},
		{name: "empty", in: ""},
	} {
		if name, score := Detect([]byte(tc.in)); name != "" {
			t.Errorf("%s: Detect = %s (%d)", tc.name, name, score)
		}
	}
}

// TestLookup: every name Names lists is found, with at least one shape;
// an unknown name is ErrUnknownEnvelope.
func TestLookup(t *testing.T) {
	want := []string{"gcp", "cloudwatch", "azure", "loki", "elasticsearch", "victorialogs", "journald-json", "journald-export", "event-exporter"}
	if got := Names(); len(got) != len(want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for i, n := range Names() {
		e, ok := Lookup(n)
		if n != want[i] || !ok || len(e.Shapes()) == 0 || e.Doc == "" {
			t.Errorf("Lookup(%q) = %v, %v", n, e, ok)
		}
	}
	if _, err := Decode("splunk", nil, nil); err == nil {
		t.Error("Decode of an unknown name did not fail")
	}
}
