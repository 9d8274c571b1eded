package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/rules"
)

// TestREADMEListsEveryRule keeps the README's rule table in step with the
// registry: every rule appears with its default severity, and nothing else.
func TestREADMEListsEveryRule(t *testing.T) {
	readme := readREADME(t)
	_, section, ok := strings.Cut(readme, "## What it finds")
	if !ok {
		t.Fatal(`README has no "## What it finds" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\| ([a-z]+)")
	listed := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		listed[m[1]] = m[2]
	}
	for _, r := range rules.All() {
		sev, ok := listed[r.Name]
		if !ok {
			t.Errorf("README's rule table does not list %s", r.Name)
			continue
		}
		if sev != r.Severity.String() {
			t.Errorf("README says %s is %s, the registry says %s", r.Name, sev, r.Severity)
		}
		delete(listed, r.Name)
	}
	for name := range listed {
		t.Errorf("README lists %s, which is not a registered rule", name)
	}
}

// TestREADMECommandsExist checks the newcomer's first command points at a
// shipped sample.
func TestREADMECommandsExist(t *testing.T) {
	readme := readREADME(t)
	m := regexp.MustCompile(`go run ./cmd/kcmtrace analyze (\S+)`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README has no `go run ./cmd/kcmtrace analyze …` command")
	}
	if _, err := os.Stat(filepath.Join("..", "..", m[1])); err != nil {
		t.Errorf("README's sample %s: %v", m[1], err)
	}
	if !strings.Contains(readme, "go test ./...") {
		t.Error("README does not give the test command `go test ./...`")
	}
}

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
