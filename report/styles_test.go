package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestMissingKubeletWarningStyledWhole: the "no kubelet log for …"
// warning is one sentence in one style on every line it wraps to, and
// plain without colour.
func TestMissingKubeletWarningStyledWhole(t *testing.T) {
	var nodes []string
	for i := range 8 {
		nodes = append(nodes, fmt.Sprintf("node-%d.example.internal", i))
	}
	a := &Analysis{Timeline: &timeline.Timeline{}, Result: rules.Result{Findings: []rules.Finding{
		{Rule: "multi-attach", Severity: rules.Warning, Volume: "v", Nodes: nodes, Summary: "s"}}}}
	warning := func(out string) []string {
		var ls []string
		in := false
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "no kubelet log for") {
				in = true
			} else if in && !strings.Contains(l, "example.internal") && !strings.Contains(l, "(named in findings)") {
				break
			}
			if in {
				ls = append(ls, l)
			}
		}
		return ls
	}
	for name, tc := range map[string]struct {
		color bool
		check func(l string) bool
	}{
		"colour": {true, func(l string) bool {
			l = strings.TrimLeft(l, " ")
			return strings.HasPrefix(l, "\x1b[38;5;214m") && strings.HasSuffix(l, "\x1b[0m") && strings.Count(l, "\x1b[") == 2
		}},
		"plain": {false, func(l string) bool { return !strings.Contains(l, "\x1b") }},
	} {
		t.Run(name, func(t *testing.T) {
			out := string(render(t, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 60, Color: tc.color}) }))
			ls := warning(out)
			if len(ls) < 2 {
				t.Fatalf("the warning is not wrapped over lines:\n%s", out)
			}
			for _, l := range ls {
				if !tc.check(l) {
					t.Errorf("line %q of the warning", l)
				}
			}
		})
	}
}

// FuzzLinePaint: each kind of paint newStyles makes (a foreground, bold,
// a title, a badge) writes what lipgloss renders for its style, on every
// text (a line, lines, tabs, escapes, nothing).
func FuzzLinePaint(f *testing.F) {
	for _, s := range append([]string{"abc", " x ", "a\nb", "\tx", "x\r\n", "é 中", " CRITICAL "}, hostileStrings...) {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, pick uint8) {
		r := lipgloss.NewRenderer(&bytes.Buffer{})
		r.SetColorProfile(termenv.ANSI256)
		cols := []string{colDim, colAttached, colUncertain, colFailing, colWarning}
		c := lipgloss.Color(cols[int(pick)%len(cols)])
		st := []lipgloss.Style{
			r.NewStyle().Foreground(c),
			r.NewStyle().Bold(true),
			r.NewStyle().Bold(true).Foreground(c),
			r.NewStyle().Bold(true).Foreground(lipgloss.Color("16")).Background(c),
		}[int(pick/8)%4]
		if got, want := linePaint(st)(s), st.Render(s); got != want {
			t.Fatalf("%q: %q, lipgloss %q", s, got, want)
		}
	})
}
