package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
	"github.com/kcmtrace/kcmtrace/rules"
)

// TestREADMEListsEveryRule keeps the README's rule table in step with the
// registry: every rule appears with its default severity, and nothing else.
func TestREADMEListsEveryRule(t *testing.T) {
	section := readmeSection(t, "What it finds")
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

// TestREADMEExportFiltersMatchTokens fails when the README's export
// commands filter on other strings than classifier.PrefilterTokens: every
// command has one of the generated filters, and every place a filter
// starts (the first token) is one of them.
func TestREADMEExportFiltersMatchTokens(t *testing.T) {
	section := readmeSection(t, "Where the logs are")
	re, reQuoted, orList := exportFilters()
	// the quoted form does not contain the raw one (its `"` is escaped)
	n := strings.Count(section, re) + strings.Count(section, reQuoted) + strings.Count(section, orList)
	first := regexp.QuoteMeta(string(classifier.PrefilterTokens()[0]))
	starts := strings.Count(section, first+"|") + strings.Count(section, `("`+first+`"`)
	if starts != n || n < 10 {
		t.Errorf("README's export commands have %d filters starting with %q, %d of them the generated ones:\n  %s\n  %s\n  %s", starts, first, n, re, reQuoted, orList)
	}
	for _, env := range []string{"cloudwatch", "gcp", "azure", "loki", "elasticsearch", "victorialogs", "journald-json", "journald-export"} {
		if !strings.Contains(section, "`"+env+"`") {
			t.Errorf("README's table names no envelope %s", env)
		}
	}
	for _, where := range []string{"EKS", "GKE", "AKS", "Loki", "Elasticsearch", "VictoriaLogs", "journald", "OpenShift"} {
		if !strings.Contains(section, "| "+where) {
			t.Errorf("README's table has no row for %s", where)
		}
	}
}

// readmeSection is the README's "## heading" section, up to the next one.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	_, section, ok := strings.Cut(readREADME(t), "## "+heading+"\n")
	if !ok {
		t.Fatalf(`README has no "## %s" section`, heading)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	return section
}
