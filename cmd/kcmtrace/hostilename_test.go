package main

import (
	"os"

	"github.com/rogpeppe/go-internal/testscript"
)

// hostileName is a file name a script cannot spell: it sets the terminal's
// title (OSC 0), clears the screen and turns text red, then starts a
// forged line.
const hostileName = "kcm\x1b]0;owned\x07\x1b[2J\x1b[31m\nforged: line.log"

// scriptHostileName is the hostile-name builtin: it sets $VAR to
// hostileName and, given SRC, writes SRC's content to a file of that name.
func scriptHostileName(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: hostile-name VAR [SRC]")
	}
	ts.Setenv(args[0], hostileName)
	if len(args) == 2 {
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(hostileName), data, 0o644))
	}
}
