package main

// The output flags every command shares: --format, -o the kubectl way,
// --output-file, --no-headers and --redact, and where the output goes.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/report"
)

// outputFlags are the flags of every command that writes a view.
//
// -o follows kubectl: `-o json` names a format. Only a value with a path
// separator or an extension (`-o ./report`, `-o report.html`) is taken as a
// file, so `-o json` can never silently become a file named json; a bare
// word that is no format is a usage error. --output-file (alias --out) is
// the unambiguous way to name the file. The format follows the file's
// extension unless --format or -o FORMAT says otherwise.
type outputFlags struct {
	Format     string `help:"Output format (see the command's list); default: from the output file's extension, else the command's default." placeholder:"FORMAT" predictor:"format"`
	Output     string `short:"o" help:"Output format, the kubectl way: text, wide, json, yaml, markdown, html, name, jsonl. A value with a path separator or an extension (report.html, ./out) is the output file." placeholder:"FORMAT|FILE" predictor:"format"`
	OutputFile string `name:"output-file" aliases:"out" help:"Write to FILE atomically instead of stdout; the format follows its extension (.json, .yaml, .md, .html, .jsonl, .txt)." placeholder:"FILE" type:"path"`
	NoHeaders  bool   `help:"Omit the header line of tables (text and wide)."`
	Redact     bool   `help:"Replace node names, IPs, pods, namespaces, disk and request IDs with consistent pseudonyms."`
	DisplayTZ  string `name:"display-tz" help:"Zone the text and Markdown reports write times in: UTC, local, a name (Asia/Shanghai) or an offset (+08:00); JSON stays UTC (--tz is the zone of the input's timestamps)." default:"UTC" placeholder:"ZONE"`
}

// formatWords are the names -o takes as a format rather than a file.
var formatWords = []string{"text", "wide", "json", "yaml", "yml", "markdown", "md", "html", "name", "jsonl"}

// output is where a command writes and in which format.
type output struct {
	format string         // canonical: text, json, yaml, markdown, html, name, jsonl
	wide   bool           // -o wide: text with every column, nothing cut
	file   string         // "" or "-": stdout
	zone   *time.Location // --display-tz; nil: UTC
	// inputs are the command's input paths: an output file that is one of
	// them is refused (createOutput)
	inputs []string
}

// canonicalFormat folds aliases: md → markdown, yml → yaml, wide → text.
func canonicalFormat(f string) (string, bool) {
	switch f {
	case "md":
		return "markdown", false
	case "yml":
		return "yaml", false
	case "wide":
		return "text", true
	}
	return f, false
}

// looksLikeFile: a path separator or an extension.
func looksLikeFile(s string) bool {
	return s == "-" || strings.ContainsAny(s, `/\`) || filepath.Ext(s) != ""
}

// resolve decides the output of a command that writes one of formats
// (canonical names; the first is the default).
func (o *outputFlags) resolve(formats []string) (output, error) {
	var out output
	zone, err := displayZone(o.DisplayTZ)
	if err != nil {
		return out, err
	}
	out.zone = zone
	out.file = o.OutputFile
	var oFormat string
	if o.Output != "" {
		switch {
		case slices.Contains(formatWords, o.Output):
			oFormat = o.Output
		case looksLikeFile(o.Output):
			if out.file != "" && out.file != o.Output {
				return out, usageErr("-o %s and --output-file %s: two output files", o.Output, out.file)
			}
			out.file = o.Output
		default:
			return out, usageErr("-o %s: not an output format (%s) nor a file name; to write a file, give it a path or an extension (-o ./%s) or use --output-file %s",
				o.Output, oneOf(formats), o.Output, o.Output)
		}
	}
	f := o.Format
	if f != "" && oFormat != "" && f != oFormat {
		return out, usageErr("--format %s and -o %s disagree", f, oFormat)
	}
	if f == "" {
		f = oFormat
	}
	if f == "" {
		f = formatFromExt(out.file, formats[0])
		if c, _ := canonicalFormat(f); !slices.Contains(formats, c) {
			f = formats[0] // events.json: the command's own JSON form
		}
	}
	if c, wide := canonicalFormat(f); wide {
		out.format, out.wide = c, true
	} else {
		out.format = c
	}
	ok := slices.Contains(formats, out.format)
	if out.wide && !slices.Contains(formats, "wide") {
		ok = false
	}
	if !ok {
		return out, usageErr("format %s: this command writes %s", f, oneOf(formats))
	}
	return out, nil
}

// options are the renderer options for out, to stdout or a file.
func (o *outputFlags) options(e env, out output, color string) report.Options {
	opt := report.Options{Redact: o.Redact, Wide: out.wide, NoHeaders: o.NoHeaders, Version: versionString(), Zone: out.zone}
	if out.file == "" || out.file == "-" {
		opt.Color = useColor(color, e.stdout, e.getenv)
		opt.Width = outputWidth(e.stdout, e.getenv)
		opt.NoRule = !isTerminal(e.stdout) && !opt.Color
		return opt
	}
	opt.Color = color == "always" || forceColor(e.getenv)
	opt.Width = defaultWidth
	opt.NoRule = !opt.Color
	return opt
}

// write renders to the output file (atomically, never coloured unless
// forced) or to stdout.
func (o *outputFlags) write(e env, out output, color string, render func(io.Writer, report.Options) error) error {
	opt := o.options(e, out, color)
	if out.file == "" || out.file == "-" {
		w := &errWriter{w: e.stdout}
		if err := render(w, opt); err != nil {
			if w.err != nil {
				return outputErr("stdout", w.err)
			}
			return err
		}
		return nil
	}
	f, err := createOutput(out.file, out.inputs)
	if err != nil {
		var ce *codeError
		if errors.As(err, &ce) {
			return err
		}
		return &codeError{code: exitUsage, msg: fmt.Sprintf("output file %s: %v", out.file, err)}
	}
	w := &errWriter{w: f}
	if err := render(w, opt); err != nil {
		f.abort()
		if w.err != nil {
			return outputErr("output file "+out.file, w.err)
		}
		return err
	}
	if err := f.commit(); err != nil {
		return outputErr("output file "+out.file, err)
	}
	return nil
}

// formatFromExt infers a format from an output file name.
func formatFromExt(path, def string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".md", ".markdown":
		return "markdown"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".html", ".htm":
		return "html"
	case ".txt", ".text":
		return "text"
	}
	return def
}

// displayZone reads --display-tz: UTC (nil), local, or what --tz takes.
func displayZone(s string) (*time.Location, error) {
	switch strings.ToLower(s) {
	case "", "utc", "z":
		return nil, nil
	case "local":
		return time.Local, nil
	}
	loc, err := parseZone(s)
	if err != nil {
		return nil, usageErr("--display-tz %s: %v", s, err)
	}
	return loc, nil
}
