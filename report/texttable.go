package report

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
)

// textTable is a table of the text views (volumes, rules): kcmtrace's
// lipgloss table — a rule under the header, no other borders, two spaces
// between columns — laid out without lipgloss's cost per cell. lipgloss/
// table renders every cell through a Style and measures every row twice:
// 35k volumes (a large cluster's day of churn) took 1.3 s there, ~40 times
// the JSON of the same volumes. Here the rows are padded to the widths
// lipgloss would give their columns, and the header (and its rule) is
// lipgloss's own; a table with a cell lipgloss would change (see
// cellWidth) is rendered by lipgloss whole.
// TestTextTableMatchesLipgloss holds the output to lipgloss's, byte for
// byte.
type textTable struct {
	st      *styles
	o       Options
	headers []string
	rows    [][]string
}

// newTable is a table of these columns. Options.NoHeaders drops the
// header line, Options.NoRule the rule under it.
func newTable(st *styles, o Options, headers ...string) *textTable {
	return &textTable{st: st, o: o, headers: headers}
}

// Row adds a row of cells.
func (t *textTable) Row(cells ...string) *textTable {
	t.rows = append(t.rows, cells)
	return t
}

// lipgloss is the lipgloss table of headers and rows.
func (t *textTable) lipgloss(rows [][]string) *table.Table {
	cols := len(t.headers)
	tb := table.New().Border(lipgloss.NormalBorder()).BorderStyle(t.st.Border).
		BorderColumn(false).BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderHeader(!t.o.NoRule && !t.o.NoHeaders).Headers(t.headers...).Rows(rows...)
	return tb.StyleFunc(func(row, col int) lipgloss.Style { return t.cellStyle(row == table.HeaderRow, col < cols-1) })
}

// cellStyle is a header's or a cell's style; padded, all but the last
// column's, with the two spaces between columns.
func (t *textTable) cellStyle(header, padded bool) lipgloss.Style {
	s := t.st.Cell
	if header {
		s = t.st.Header
	}
	if padded {
		return s.PaddingRight(columnGap)
	}
	return s
}

// columnGap is the spaces between two columns.
const columnGap = 2

// lines returns the table's lines as render writes them: trailing
// spaces trimmed, the header line dropped under Options.NoHeaders.
func (t *textTable) lines() []string {
	// The widths lipgloss gives a column: its widest cell or header, plus
	// the gap but for the last column.
	widths := make([]int, len(t.headers))
	for _, row := range t.rows {
		if len(row) != len(t.headers) {
			return t.lipglossLines(t.rows)
		}
		for c, cell := range row {
			w, ok := cellWidth(cell)
			if !ok {
				return t.lipglossLines(t.rows)
			}
			widths[c] = max(widths[c], w)
		}
	}
	for _, h := range t.headers {
		if _, ok := cellWidth(h); !ok {
			return t.lipglossLines(t.rows)
		}
	}
	// lipgloss's header (and rule) over one row of the cells' widths: the
	// widths of the whole table.
	filler := make([]string, len(widths))
	for c, n := range widths {
		filler[c] = strings.Repeat("x", n)
	}
	head := t.lipglossLines([][]string{filler})[:t.headerLines()]
	for c := range widths {
		widths[c] = max(widths[c], lipgloss.Width(t.headers[c]))
		if c < len(widths)-1 {
			widths[c] += columnGap
		}
	}
	lines := make([]string, 0, len(head)+len(t.rows))
	lines = append(lines, head...)
	var b []byte // a row, reused: one allocation a row, its string
	for _, row := range t.rows {
		b = b[:0]
		for c, cell := range row {
			w, _ := cellWidth(cell)
			b = appendSpaces(append(b, cell...), widths[c]-w)
		}
		lines = append(lines, string(bytes.TrimRight(b, " ")))
	}
	return lines
}

// cellWidth is the width of a cell lipgloss lays out on one line, padded
// and otherwise as it is; ok is false for a cell it might change: a
// control character (a newline makes a taller row, a tab is expanded, an
// escape sequence is measured as nothing), a rune that is not a letter,
// digit, punctuation, symbol or ASCII space, or a byte that is not UTF-8.
func cellWidth(s string) (w int, ok bool) {
	if w, ok := markCells(s); ok {
		return w, true
	}
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r < 0x20 || r == 0x7f {
				return 0, false
			}
			continue
		}
		// letters, digits, punctuation and symbols; not marks, spaces but
		// ASCII's, joiners, selectors, separators (lipgloss may break a line
		// or add one at them) or the bytes of bad UTF-8
		if r == utf8.RuneError || !unicode.In(r, unicode.L, unicode.N, unicode.P, unicode.S) {
			return 0, false
		}
	}
	if w = lipgloss.Width(s); w == 0 {
		return 0, false // only zero-width runes: lipgloss adds a line
	}
	return w, true
}

// headerLines is how many lines the header takes: the header line unless
// Options.NoHeaders, and the rule under it unless Options.NoRule too.
func (t *textTable) headerLines() int {
	switch {
	case t.o.NoHeaders:
		return 0
	case t.o.NoRule:
		return 1
	}
	return 2
}

// lipglossLines is lipgloss's rendering of the table with these rows,
// trimmed as render writes it.
func (t *textTable) lipglossLines(rows [][]string) []string {
	lines := strings.Split(t.lipgloss(rows).Render(), "\n")
	if t.o.NoHeaders && len(lines) > 0 {
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}

// render writes the table: every line with its trailing spaces trimmed,
// without its header line under Options.NoHeaders (newTable then draws no
// rule under it).
func (t *textTable) render(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, l := range t.lines() {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
