package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{in: "plain text", want: "plain text"},
		{in: "red \x1b[31mALERT\x1b[0m done", want: "red ALERT done"},
		{in: "title \x1b]0;pwned\x07 after", want: "title  after"},
		{in: "title \x1b]0;pwned\x1b\\ after", want: "title  after"},
		{in: "osc8 \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", want: "osc8 link"},
		{in: "dcs \x1bPq#0;2;0;0;0\x1b\\ end", want: "dcs  end"},
		{in: "c1 csi \u009b31m red", want: "c1 csi  red"},
		{in: "bell\x07 bs\b cr\r\n tab\tok", want: "bell bs cr\n tab\tok"},
		{in: "nul\x00 del\x7f", want: "nul del"},
		{in: "bad \xff\xfe utf8", want: "bad \ufffd\ufffd utf8"},
		{in: "bidi \u202egnp.exe", want: "bidi gnp.exe"},
		{in: "charset \x1b(B ok", want: "charset  ok"},
		{in: "trailing esc \x1b", want: "trailing esc "},
		{in: "日本語 ok", want: "日本語 ok"},
	} {
		if got := Sanitize(c.in); got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestMarkdownSurvivesHostileText renders the hostile seed with goldmark
// (GFM tables) and checks the document's structure is what we wrote.
func TestMarkdownSurvivesHostileText(t *testing.T) {
	var out bytes.Buffer
	if err := Markdown(&out, handSeed(true), Options{}); err != nil {
		t.Fatal(err)
	}
	src := out.Bytes()
	checkPlain(t, "markdown", src)
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))

	var headings []string
	tables, mermaid, codeBlocks, rawHTML := 0, 0, 0, 0
	var tableCols []int
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			headings = append(headings, strings.Repeat("#", n.Level)+" "+string(n.Lines().Value(src)))
		case *east.Table:
			tables++
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				tableCols = append(tableCols, r.ChildCount())
			}
		case *ast.FencedCodeBlock:
			codeBlocks++
			if string(n.Language(src)) == "mermaid" {
				mermaid++
				body := string(n.Lines().Value(src))
				if !strings.HasPrefix(body, "sequenceDiagram\n") {
					t.Errorf("mermaid block does not start with sequenceDiagram: %q", body)
				}
				for _, bad := range []string{"<", ">>>", "#", ";", "`", "|"} {
					for _, l := range strings.Split(body, "\n") {
						if strings.Contains(strings.SplitN(l, ":", 2)[len(strings.SplitN(l, ":", 2))-1], bad) && !strings.Contains(l, "->>") && !strings.Contains(l, "-->>") {
							t.Errorf("mermaid line carries %q: %q", bad, l)
						}
					}
				}
			}
		case *ast.HTMLBlock, *ast.RawHTML:
			rawHTML++
		}
		return ast.WalkContinue, nil
	})
	if rawHTML > 0 {
		t.Errorf("%d raw HTML nodes: log text escaped into HTML", rawHTML)
	}
	wantH := []string{"## Summary", "## Impact", "## Root cause", "## Timeline", "## Diagram", "## Evidence", "## What to check next", "## Other findings", "## Appendix: input coverage"}
	var h2 []string
	for _, h := range headings {
		if strings.HasPrefix(h, "## ") {
			h2 = append(h2, h)
		}
		if strings.HasPrefix(h, "# ") && h != headings[0] {
			t.Errorf("log text made an extra title: %q", h)
		}
	}
	if strings.Join(h2, "|") != strings.Join(wantH, "|") {
		t.Errorf("headings:\n got %q\nwant %q", h2, wantH)
	}
	if tables != 2 {
		t.Errorf("%d tables, want 2 (timeline, coverage)", tables)
	}
	// Every row of a table keeps its column count (a stray pipe would add cells).
	for i, c := range tableCols {
		if c != 5 && c != 9 {
			t.Errorf("table row %d has %d cells", i, c)
		}
	}
	if mermaid != 1 {
		t.Errorf("%d mermaid blocks, want 1", mermaid)
	}
	// evidence blocks: 3 chain findings + 1 loose finding, plus mermaid.
	if codeBlocks != 5 {
		t.Errorf("%d fenced code blocks, want 5", codeBlocks)
	}
	if !bytes.Contains(src, []byte("````text")) {
		t.Errorf("evidence with a ``` run is not fenced with four backticks")
	}
	if bytes.Contains(src, []byte("<script>")) && !bytes.Contains(src, []byte(`\<script\>`)) {
		// <script> may appear verbatim only inside code blocks; check the rendering.
		var html bytes.Buffer
		if err := md.Convert(src, &html); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(html.Bytes(), []byte("<script>")) {
			t.Errorf("rendered HTML contains a live <script>")
		}
	}
	var html bytes.Buffer
	if err := md.Convert(src, &html); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(html.Bytes(), []byte("<script>")) {
		t.Errorf("rendered HTML contains a live <script>")
	}
}

// TestTextSurvivesHostileText: no escape sequence reaches the terminal, in
// any renderer, even with colour on (colour codes are ours, never the log's).
func TestTextSurvivesHostileText(t *testing.T) {
	a := handSeed(true)
	for name, f := range map[string]renderFn{
		"text":     func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 80}) },
		"timeline": func(b *bytes.Buffer) error { return TimelineText(b, a.Timeline, nil, Options{Width: 80}) },
		"events":   func(b *bytes.Buffer) error { return EventsText(b, a.Timeline.Volumes[0].Events, Options{}) },
		"volumes":  func(b *bytes.Buffer) error { return VolumesTable(b, a.Timeline.Volumes, Options{Width: 80}) },
		"json":     func(b *bytes.Buffer) error { return JSON(b, a, Options{}) },
		"jsonl":    func(b *bytes.Buffer) error { return EventsJSONL(b, a.Timeline.Volumes[0].Events, Options{}) },
	} {
		out := render(t, f)
		checkPlain(t, name, out)
		if bytes.Contains(out, []byte("pwned")) {
			t.Errorf("%s: OSC payload survived", name)
		}
	}
	out := render(t, func(b *bytes.Buffer) error { return Text(b, a, Options{Width: 80, Color: true}) })
	if bytes.Contains(out, []byte("\x1b]")) || bytes.Contains(out, []byte("\x1b[2J")) || bytes.Contains(out, []byte("\a")) {
		t.Errorf("colour text carries the log's escape sequences")
	}
}
