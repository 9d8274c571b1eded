package rules

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// corpusPending lists the rows of expectations.tsv that cannot pass on
// this branch, and why. The lead removes the entries at merge, once the
// branch named has landed; a row listed here that passes fails the test,
// so the list cannot go stale.
var corpusPending = map[string]string{
	// lines the parser drops before classification
}

// TestCorpusExpectations runs the whole chain over every excerpt named by
// testdata/real-logs/expectations.tsv: every `must` rule fires, no
// `must_not` rule fires, and a `healthy` excerpt has no critical finding.
// It logs the score per class. Skipped with -short.
func TestCorpusExpectations(t *testing.T) {
	if testing.Short() {
		t.Skip("real-log corpus")
	}
	dir := filepath.Join("..", "testdata", "real-logs")
	raw, err := os.ReadFile(filepath.Join(dir, "expectations.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	type score struct{ pass, rows int }
	scores := map[string]*score{}
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if i == 0 || line == "" {
			continue // header
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("expectations.tsv:%d: %d fields, want 5 (file, class, must, must_not, why)", i+1, len(f))
		}
		file, class, must, mustNot, why := f[0], f[1], list(f[2]), list(f[3]), f[4]
		seen[file] = true
		if scores[class] == nil {
			scores[class] = &score{}
		}
		scores[class].rows++
		res, _ := analyze(t, filepath.Join(dir, file))
		fired := map[string]bool{}
		var problems []string
		for _, fd := range res.Findings {
			fired[fd.Rule] = true
			if class == "healthy" && fd.Severity == Critical {
				problems = append(problems, "critical finding on a healthy excerpt: "+fd.Rule+": "+fd.Summary)
			}
		}
		for _, r := range must {
			if _, ok := Lookup(r); !ok && corpusPending[file] == "" {
				problems = append(problems, "must rule "+r+" is not registered")
			} else if !fired[r] {
				problems = append(problems, "must rule "+r+" did not fire")
			}
		}
		for _, r := range mustNot {
			if fired[r] {
				problems = append(problems, "must_not rule "+r+" fired")
			}
		}
		pending := corpusPending[file]
		switch {
		case len(problems) == 0 && pending != "":
			t.Errorf("%s passes now: remove it from corpusPending (%s)", file, pending)
			scores[class].pass++
		case len(problems) == 0:
			scores[class].pass++
		case pending != "":
			t.Logf("%s: pending (%s): %s", file, pending, strings.Join(problems, "; "))
		default:
			t.Errorf("%s (%s): %s\nwhy: %s\n%s", file, class, strings.Join(problems, "; "), why, dump(res))
		}
	}
	for file := range corpusPending {
		if !seen[file] {
			t.Errorf("corpusPending names %s, which expectations.tsv does not", file)
		}
	}
	var classes []string
	for c := range scores {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		t.Logf("score %-24s %d/%d", c, scores[c].pass, scores[c].rows)
	}
}

// list splits a comma-separated rule list; "-" is empty.
func list(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" || s == "-" {
		return nil
	}
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return slices.DeleteFunc(out, func(r string) bool { return r == "" })
}
