package rules

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestRuleComplete holds every registered rule to what adding a rule means
// (see the package doc): a rank and a cause order of its own, a story and a
// cause for incidents, explain text, fire-* and quiet-* fixtures, and a row
// in the README's rules table. Nothing here names a rule: a new rule that
// lacks a part fails here, not silently at rank 0.
func TestRuleComplete(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "## What it finds")
	if !ok {
		t.Fatal(`README.md has no "## What it finds" section`)
	}
	table, _, _ = strings.Cut(table, "\n## ")
	fx := fixtures(t)
	rank, causeOrder := map[int]string{}, map[int]string{}
	for _, r := range All() {
		for _, p := range ruleParts(r, fx[r.Name], table) {
			t.Errorf("%s: %s", r.Name, p)
		}
		if o, dup := rank[r.Rank]; dup {
			t.Errorf("%s: Rank %d is %s's too", r.Name, r.Rank, o)
		}
		rank[r.Rank] = r.Name
		if o, dup := causeOrder[r.CauseOrder]; dup {
			t.Errorf("%s: CauseOrder %d is %s's too", r.Name, r.CauseOrder, o)
		}
		causeOrder[r.CauseOrder] = r.Name
	}
}

// ruleParts lists what rule r lacks, given its fixture files and the
// README's rules table.
func ruleParts(r Rule, fixtures []string, table string) []string {
	var missing []string
	lack := func(cond bool, what string) {
		if cond {
			missing = append(missing, "no "+what)
		}
	}
	lack(r.Rank <= 0, "Rank (a positive number, distinct from every other rule's)")
	lack(r.Story == nil, "Story (summaryStory tells a finding plainly)")
	lack(r.Cause == nil, "Cause")
	lack(r.CauseOrder <= 0, "CauseOrder (a positive number, distinct from every other rule's)")
	lack(strings.TrimSpace(r.Doc.Title) == "", "Doc.Title (kcmtrace explain)")
	lack(strings.TrimSpace(r.Doc.Explanation) == "", "Doc.Explanation (kcmtrace explain)")
	lack(strings.TrimSpace(r.Doc.Next) == "", "Doc.Next (kcmtrace explain)")
	has := func(prefix string) bool {
		return slices.ContainsFunc(fixtures, func(f string) bool { return strings.HasPrefix(filepath.Base(f), prefix) })
	}
	lack(!has("fire-"), "fire-* fixture in testdata/"+r.Name+"/")
	lack(!has("quiet-"), "quiet-* fixture in testdata/"+r.Name+"/")
	row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(r.Name) + "` \\|")
	lack(!row.MatchString(table), "row in README.md's \"What it finds\" table")
	return missing
}

// TestRuleCompleteCatches: ruleParts names each missing part of a rule.
func TestRuleCompleteCatches(t *testing.T) {
	r, _ := Lookup("force-detach")
	if got := ruleParts(r, fixtures(t)[r.Name], "| `force-detach` | warning |"); len(got) != 0 {
		t.Fatalf("complete rule reported as lacking %v", got)
	}
	got := ruleParts(Rule{Name: "new-rule", Doc: Doc{Title: "t"}}, []string{"testdata/new-rule/fire-x.txt"}, "| `force-detach` | warning |")
	want := []string{"Rank", "Story", "Cause", "CauseOrder", "Doc.Explanation", "Doc.Next", "quiet-*", "README"}
	if len(got) != len(want) {
		t.Fatalf("lacks %q, want %d parts: %v", got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("part %d = %q, want it to name %s", i, got[i], w)
		}
	}
}
