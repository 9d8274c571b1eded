package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// tableCases are tables the fast layout must lay out as lipgloss does:
// printable ASCII, wide and combining runes, control characters (which
// send the whole table to lipgloss), empty cells and ragged rows.
var tableCases = map[string]struct {
	headers []string
	rows    [][]string
}{
	"ascii": {[]string{"VOLUME", "DRIVER", "A/D/M✗"}, [][]string{
		{"pvc-1", "ebs.csi.aws.com", "0/0/1"}, {"disk-7x9qk2mz-long-name", "-", "12/0/0"}}},
	"no-rows":       {[]string{"RULE", "SEVERITY", "TITLE"}, nil},
	"empty-cells":   {[]string{"A", "B", "C"}, [][]string{{"", "", ""}, {"x", "", ""}, {"", "", "y"}}},
	"header-widest": {[]string{"A VERY WIDE HEADER", "B"}, [][]string{{"a", "b"}}},
	"wide-runes": {[]string{"POD", "NODE"}, [][]string{
		{"default/数据库-0", "10.0.3.15"}, {"web-🚀", "节点-1"}, {"plain", "ascii"}}},
	"combining":   {[]string{"N", "M"}, [][]string{{"e\u0301te\u0301", "x"}, {"a\u200db", "y"}}},
	"not-utf8":    {[]string{"N", "M"}, [][]string{{"0\x95", "x"}, {"q", "r"}}},
	"zero-width":  {[]string{"N"}, [][]string{{"\u0308\u0308"}}},
	"nbsp-and-c1": {[]string{"N", "M"}, [][]string{{"a\u00a0b", "\u0085x"}, {"q", "r"}}},
	"newline":     {[]string{"N", "M"}, [][]string{{"two\nlines", "x"}, {"q", "r"}}},
	"tab":         {[]string{"N", "M"}, [][]string{{"a\tb", "x"}, {"q", "r"}}},
	"escape":      {[]string{"N", "M"}, [][]string{{"\x1b[31mred\x1b[0m", "x"}, {"q", "r"}}},
	"ragged":      {[]string{"A", "B", "C"}, [][]string{{"a"}, {"a", "b", "c"}}},
	"spaces":      {[]string{"A", "B"}, [][]string{{"  lead", "trail  "}, {" ", "  "}}},
	"many": func() (c struct {
		headers []string
		rows    [][]string
	}) {
		c.headers = []string{"VOLUME", "PV", "NODES", "SEEN (UTC)"}
		for i := range 300 {
			c.rows = append(c.rows, []string{fmt.Sprintf("vol-%0*d", 1+i%13, i), strings.Repeat("p", i%7), fmt.Sprintf("10.0.%d.%d", i%3, i), "12:00:01 +3m"})
		}
		return c
	}(),
}

// TestTextTableMatchesLipgloss holds textTable's layout to lipgloss/table's
// rendering of the same table, byte for byte, with and without colour,
// header and rule.
func TestTextTableMatchesLipgloss(t *testing.T) {
	for name, c := range tableCases {
		for _, o := range []Options{{}, {Color: true}, {NoHeaders: true}, {NoRule: true}, {Color: true, NoRule: true}} {
			t.Run(fmt.Sprintf("%s/color=%v,noheaders=%v,norule=%v", name, o.Color, o.NoHeaders, o.NoRule), func(t *testing.T) {
				checkTextTable(t, o, c.headers, c.rows)
			})
		}
	}
}

func checkTextTable(t *testing.T, o Options, headers []string, rows [][]string) {
	t.Helper()
	var buf bytes.Buffer
	tb := newTable(newStyles(&buf, o), o, headers...)
	for _, r := range rows {
		tb.Row(r...)
	}
	got := strings.Join(tb.lines(), "\n")
	want := strings.Join(tb.lipglossLines(rows), "\n")
	if got != want {
		t.Errorf("layout differs from lipgloss's\n got: %q\nwant: %q", got, want)
	}
}

// tableRunes are the runes FuzzTextTable builds cells of when told to:
// the ones whose width is not one column per byte (wide, combining,
// zero-width, joiners, selectors, separators, controls), among ASCII.
var tableRunes = []rune("ab -|;…✗→×数节🚀Ａ\u3000\u0301\u0308\u200d\u200b\u200f\ufe0f\u00a0\u00ad\u2028\u0085\t\n\x1b\u1100\u1161\U0001F1FA\U0001F1F8")

// FuzzTextTable compares textTable's layout with lipgloss/table's for
// tables cut from arbitrary text: cells split on '|', rows on ';'. With
// runes set, each byte stands for one of tableRunes instead.
func FuzzTextTable(f *testing.F) {
	for _, c := range tableCases {
		var rows []string
		for _, r := range c.rows {
			rows = append(rows, strings.Join(r, "|"))
		}
		f.Add(strings.Join(c.headers, "|"), strings.Join(rows, ";"), false, false)
	}
	f.Add("A|B", "\x07\x08\x09|\x0a\x0b;\x0c\x0d|\x0e\x0f\x10", true, true)
	f.Fuzz(func(t *testing.T, head, body string, color, runes bool) {
		if runes {
			conv := func(s string) string {
				var b strings.Builder
				for i := 0; i < len(s); i++ {
					b.WriteRune(tableRunes[int(s[i])%len(tableRunes)])
				}
				return b.String()
			}
			head, body = conv(head), conv(body)
		}
		headers := strings.Split(head, "|")
		if len(headers) > 12 || len(body) > 4096 {
			return
		}
		var rows [][]string
		if body != "" {
			for _, r := range strings.Split(body, ";") {
				if rows = append(rows, strings.Split(r, "|")); len(rows[len(rows)-1]) > 12 {
					return
				}
			}
		}
		checkTextTable(t, Options{Color: color}, headers, rows)
	})
}

// TestMarkCellsMatchLipgloss: the width markCells (and displayWidth) give
// the reports' own marks among printable ASCII is lipgloss's and ansi's, and what it does not take
// (other runes, controls) it leaves to cellWidth's general path.
func TestMarkCellsMatchLipgloss(t *testing.T) {
	for _, s := range []string{"", "a", "pvc-2708…3c36", "→", "…", "×", "·", "a → b × c · d …", "node-1 +2", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./"} {
		n, ok := markCells(s)
		if !ok || n != lipgloss.Width(s) || n != ansi.StringWidth(s) || n != displayWidth(s) {
			t.Errorf("markCells(%q) = %d, %v; lipgloss says %d, ansi %d", s, n, ok, lipgloss.Width(s), ansi.StringWidth(s))
		}
		if w, ok := cellWidth(s); !ok || w != lipgloss.Width(s) {
			t.Errorf("cellWidth(%q) = %d, %v; lipgloss says %d", s, w, ok, lipgloss.Width(s))
		}
	}
	for _, s := range []string{"é", "中", "✗", "a\tb", "a\nb", "\x1b[31m", "\x7f", "bad \xff"} {
		if _, ok := markCells(s); ok {
			t.Errorf("markCells(%q) took it", s)
		}
	}
}
