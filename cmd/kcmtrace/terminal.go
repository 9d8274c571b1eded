package main

// Terminal detection, colour and layout width of the output.

import (
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool { return fileIsTerminal(w) }

// fileIsTerminal reports whether v (a stream) is a file that is a terminal.
func fileIsTerminal(v any) bool {
	f, ok := v.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// useColor decides colour for --color: auto means a terminal (or
// FORCE_COLOR set), no NO_COLOR and a TERM that is not "dumb".
func useColor(mode string, w io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" {
		return false
	}
	if forceColor(getenv) {
		return true
	}
	if getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// defaultWidth is the layout width when the output is not a terminal.
const defaultWidth = 100

// outputWidth is the terminal's width, else $COLUMNS, else defaultWidth.
func outputWidth(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok && isTerminal(w) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			return cols
		}
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return defaultWidth
}

// forceColor reports FORCE_COLOR set to anything but "", "0" or "false"
// (the convention of Node, chalk and many CLIs): colour even into a pipe.
func forceColor(getenv func(string) string) bool {
	switch getenv("FORCE_COLOR") {
	case "", "0", "false":
		return false
	}
	return true
}
