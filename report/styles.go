package report

import (
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file holds every lipgloss style kcmtrace uses. Renderers ask a
// styles value to paint; with Options.Color false every paint is the
// identity, so plain output never carries an escape sequence.

// paint renders s in a style (or returns it unchanged).
type paint func(string) string

func plain(s string) string { return s }

// styles is the palette for one render call.
type styles struct {
	color    bool
	renderer *lipgloss.Renderer

	Title, Dim, Bold, Gutter, Rule, Label, Key paint
	Critical, Warning, Info, None              paint
	Warn                                       paint // a warning's whole sentence (Warning is its badge)
	States                                     map[timeline.State]paint
	// table cell styles (lipgloss.Style because lipgloss/table wants them)
	Header, Cell, Border lipgloss.Style
}

// Colour palette (ANSI 256).
const (
	colCritical  = "196"
	colWarning   = "214"
	colInfo      = "39"
	colDim       = "245"
	colTitle     = "75"
	colAttaching = "221"
	colAttached  = "42"
	colUncertain = "203"
	colDetaching = "141"
	colDetached  = "240"
	colMounted   = "36"
	colMounting  = "186"
	colFailing   = "160"
)

func newStyles(w io.Writer, o Options) *styles {
	s := &styles{color: o.Color}
	r := lipgloss.NewRenderer(w)
	if o.Color {
		r.SetColorProfile(termenv.ANSI256)
	} else {
		r.SetColorProfile(termenv.Ascii)
	}
	s.renderer = r
	s.Header = r.NewStyle()
	s.Cell = r.NewStyle()
	s.Border = r.NewStyle()
	if !o.Color {
		for _, p := range []*paint{&s.Title, &s.Dim, &s.Bold, &s.Gutter, &s.Rule, &s.Label, &s.Key,
			&s.Critical, &s.Warning, &s.Info, &s.None, &s.Warn} {
			*p = plain
		}
		s.States = map[timeline.State]paint{}
		return s
	}
	fg := func(c string) paint { return linePaint(r.NewStyle().Foreground(lipgloss.Color(c))) }
	badge := func(c string) paint {
		return linePaint(r.NewStyle().Bold(true).Foreground(lipgloss.Color("16")).Background(lipgloss.Color(c)))
	}
	s.Title = linePaint(r.NewStyle().Bold(true).Foreground(lipgloss.Color(colTitle)))
	s.Bold = linePaint(r.NewStyle().Bold(true))
	s.Dim = fg(colDim)
	s.Gutter = fg(colDim)
	s.Rule = fg(colInfo)
	s.Label = fg(colDim)
	s.Key = fg(colTitle)
	s.Critical = badge(colCritical)
	s.Warning = badge(colWarning)
	s.Warn = fg(colWarning)
	s.Info = badge(colInfo)
	s.None = fg(colDim)
	s.States = map[timeline.State]paint{
		timeline.Attaching:    fg(colAttaching),
		timeline.Attached:     fg(colAttached),
		timeline.Uncertain:    fg(colUncertain),
		timeline.Detaching:    fg(colDetaching),
		timeline.Detached:     fg(colDetached),
		timeline.Mounting:     fg(colMounting),
		timeline.Mounted:      fg(colMounted),
		timeline.MountFailing: fg(colFailing),
		timeline.Unmounted:    fg(colDetached),
	}
	s.Header = s.Header.Bold(true).Foreground(lipgloss.Color(colTitle))
	s.Border = s.Border.Foreground(lipgloss.Color(colDim))
	return s
}

// linePaint paints in st, a style of colours and weight only (no size,
// padding, margin or border): a line of text is wrapped in the
// sequences st wraps "x" in (what Render writes for it, FuzzLinePaint),
// without Render's work for every call; text with line breaks or tabs,
// and the empty string, go through Render.
func linePaint(st lipgloss.Style) paint {
	pre, suf, _ := strings.Cut(st.Render("x"), "x")
	return func(x string) string {
		if x == "" || strings.ContainsAny(x, "\n\t\r") {
			return st.Render(x)
		}
		return pre + x + suf
	}
}

// severity paints a severity badge ("CRITICAL") padded to a fixed width.
func (s *styles) severity(sev rules.Severity) string {
	name := map[rules.Severity]string{rules.Critical: "CRITICAL", rules.Warning: "WARNING", rules.Info: "INFO"}[sev]
	if name == "" {
		name = "NOTE"
	}
	if !s.color {
		return name
	}
	switch sev {
	case rules.Critical:
		return s.Critical(" " + name + " ")
	case rules.Warning:
		return s.Warning(" " + name + " ")
	case rules.Info:
		return s.Info(" " + name + " ")
	}
	return s.None(" " + name + " ")
}

// state paints a swimlane run in its state's colour.
func (s *styles) state(st timeline.State, x string) string {
	if p, ok := s.States[st]; ok {
		return p(x)
	}
	return x
}
