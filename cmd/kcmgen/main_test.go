package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "128MiB": 128 << 20, "512KiB": 512 << 10, "1000": 1000, "1.5MiB": 3 << 19, "2G": 2 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "abc", "-1MiB", "0"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestGenerateAndVerify(t *testing.T) {
	dir := t.TempDir()
	kcm, kl, man := filepath.Join(dir, "kcm.log"), filepath.Join(dir, "kubelet.log"), filepath.Join(dir, "m.json")
	var stdout, stderr bytes.Buffer
	if rc := run([]string{"-size", "1MiB", "-era", "json", "-seed", "3", "-o", kcm, "-kubelet", kl, "-manifest", man}, &stdout, &stderr); rc != 0 {
		t.Fatalf("rc %d: %s", rc, stderr.String())
	}
	b, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	var m loggen.Manifest
	if err := json.Unmarshal(b, &m); err != nil || len(m.Incidents) != 3 {
		t.Fatalf("manifest: %v %+v", err, m)
	}
	if st, err := os.Stat(kcm); err != nil || st.Size() != m.Bytes {
		t.Fatalf("kcm.log: %v", err)
	}
	// A report that finds the seed chain and the multi-attach, minus one rule.
	rep := loggen.Report{Schema: "kcmtrace/analyze/v1"}
	for _, inc := range m.Incidents {
		for _, r := range inc.ExpectRules {
			rep.Findings = append(rep.Findings, loggen.ReportFinding{Rule: r, Volume: inc.Volume})
		}
	}
	write := func(r loggen.Report) string {
		p := filepath.Join(dir, "out.json")
		b, _ := json.Marshal(r)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stdout.Reset()
	if rc := run([]string{"verify", "-manifest", man, "-report", write(rep)}, &stdout, &stderr); rc != 0 {
		t.Fatalf("complete report: rc %d\n%s", rc, stdout.String())
	}
	partial := rep
	partial.Findings = rep.Findings[:len(rep.Findings)-1] // drop force-detach
	stdout.Reset()
	if rc := run([]string{"verify", "-manifest", man, "-report", write(partial)}, &stdout, &stderr); rc != 1 || !strings.Contains(stdout.String(), "MISSED") {
		t.Fatalf("partial report: rc %d\n%s", rc, stdout.String())
	}
	stdout.Reset()
	if rc := run([]string{"verify", "-manifest", man, "-report", write(partial), "-ignore", "force-detach"}, &stdout, &stderr); rc != 0 {
		t.Fatalf("-ignore: rc %d\n%s", rc, stdout.String())
	}
	if rc := run([]string{"-era", "bogus", "-size", "1KiB", "-o", filepath.Join(dir, "x")}, &stdout, &stderr); rc == 0 {
		t.Fatal("bad era accepted")
	}
}
