package main

// `kcmtrace man`: a man page (roff) generated from the kong model, so it
// lists exactly the commands and flags the parser takes.

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// manCmd is `kcmtrace man`.
type manCmd struct{}

func (c *manCmd) runCtx(e env, ctx *kong.Context) error {
	return writeMan(e.stdout, ctx.Model)
}

// roff escapes text for a roff line.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func writeMan(w io.Writer, app *kong.Application) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"%s %s\" \"User Commands\"\n", strings.ToUpper(app.Name), app.Name, roff(versionString()))
	fmt.Fprintf(&b, ".SH NAME\n%s \\- Kubernetes volume attach/detach log forensics\n", app.Name)
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.B %s\n\\fICOMMAND\\fR [\\fIFLAGS\\fR] [\\fIPATH\\fR...]\n", app.Name)
	fmt.Fprintf(&b, ".SH DESCRIPTION\n%s\n", roff(app.Help))
	b.WriteString(".SH COMMANDS\n")
	for _, n := range app.Leaves(true) {
		if n.Hidden {
			continue
		}
		fmt.Fprintf(&b, ".SS \"%s %s\"\n%s\n", app.Name, roff(n.Path()), roff(n.Help))
		for _, a := range n.Positional {
			fmt.Fprintf(&b, ".TP\n\\fI%s\\fR\n%s\n", roff(strings.ToUpper(a.Name)), roff(a.Help))
		}
		for _, f := range n.Flags {
			if f.Hidden {
				continue
			}
			name := "\\-\\-" + roff(f.Name)
			if f.Short != 0 {
				name = fmt.Sprintf("\\-%c, %s", f.Short, name)
			}
			if !f.IsBool() {
				name += " \\fI" + roff(f.FormatPlaceHolder()) + "\\fR"
			}
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fR\n%s\n", name, roff(f.Help))
		}
	}
	b.WriteString(".SH EXIT STATUS\n")
	for _, ec := range exitCodes {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", ec.code, roff(ec.meaning))
	}
	b.WriteString(".SH EXAMPLES\n")
	for _, ex := range examples {
		fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(ex.cmd), roff(ex.what))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
