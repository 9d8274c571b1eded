package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/kcmtrace/kcmtrace/internal/golden"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// htmlDoc is a parsed HTML report, indexed for the structure checks.
type htmlDoc struct {
	root  *html.Node
	ids   map[string]*html.Node
	nodes []*html.Node // every element, in document order
}

func parseHTMLDoc(t *testing.T, src []byte) *htmlDoc {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	d := &htmlDoc{root: root, ids: map[string]*html.Node{}}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			d.nodes = append(d.nodes, n)
			if id := attr(n, "id"); id != "" {
				if _, dup := d.ids[id]; dup {
					t.Errorf("duplicate id %q", id)
				}
				d.ids[id] = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return d
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+class+" ")
}

// all is every element under n (n included) named tag (any when "") with class (any when "").
func all(n *html.Node, tag, class string) []*html.Node {
	var out []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) && (class == "" || hasClass(n, class)) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// htmlCounts is what a report's structure check found.
type htmlCounts struct {
	charts, lanes, bars, marks, evidence int
}

// checkHTMLStructure checks a report is self-contained, that every chart
// has a controller and a kubelet lane per node, and that every marker links
// to an evidence line that exists.
func checkHTMLStructure(t *testing.T, d *htmlDoc) htmlCounts {
	t.Helper()
	var c htmlCounts
	scripts := 0
	for _, n := range d.nodes {
		switch n.Data {
		case "script":
			scripts++
			if hasAttr(n, "src") {
				t.Errorf("external script %q", attr(n, "src"))
			}
		case "link", "img", "iframe", "object", "embed", "base", "form", "foreignObject", "foreignobject":
			t.Errorf("element <%s> in a self-contained report", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(strings.ToLower(a.Key), "on") {
				t.Errorf("event handler attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
			if (a.Key == "href" || a.Key == "src" || a.Key == "xlink:href") && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("<%s %s=%q>: a report links only within itself", n.Data, a.Key, a.Val)
			}
		}
	}
	if scripts != 1 {
		t.Errorf("%d script elements, want 1 (the report's own)", scripts)
	}
	heads := all(d.root, "head", "")
	if len(heads) != 1 || len(all(heads[0], "title", "")) != 1 || len(all(heads[0], "style", "")) != 1 {
		t.Errorf("head wants one title and one style")
	}
	csp := false
	for _, m := range all(d.root, "meta", "") {
		if attr(m, "http-equiv") == "Content-Security-Policy" && strings.Contains(attr(m, "content"), "default-src 'none'") {
			csp = true
		}
	}
	if !csp {
		t.Errorf("no Content-Security-Policy forbidding network access")
	}
	for _, fig := range all(d.root, "figure", "chart") {
		c.charts++
		svgs := all(fig, "svg", "lanes")
		if len(svgs) != 1 {
			t.Errorf("chart %s: %d lane svgs", attr(fig, "id"), len(svgs))
			continue
		}
		svg := svgs[0]
		for _, k := range []string{"data-t0", "data-t1", "data-f0", "data-f1", "viewBox"} {
			if attr(svg, k) == "" {
				t.Errorf("chart %s: no %s", attr(fig, "id"), k)
			}
		}
		views := map[string][]string{}
		lanes := all(svg, "g", "lane")
		for _, l := range lanes {
			views[attr(l, "data-node")] = append(views[attr(l, "data-node")], attr(l, "data-view"))
		}
		if len(lanes) == 0 {
			t.Errorf("chart %s has no lanes", attr(fig, "id"))
		}
		for node, vs := range views {
			if strings.Join(vs, ",") != "controller,kubelet" {
				t.Errorf("chart %s node %q: lanes %q, want controller,kubelet", attr(fig, "id"), node, vs)
			}
		}
		c.lanes += len(lanes)
		if len(all(svg, "g", "tick")) == 0 {
			t.Errorf("chart %s: no time axis ticks", attr(fig, "id"))
		}
		for _, tick := range all(svg, "g", "tick") {
			if ti := all(tick, "title", ""); len(ti) != 1 || !strings.Contains(textOf(ti[0]), " UTC") {
				t.Errorf("chart %s: tick without its UTC title", attr(fig, "id"))
			}
		}
		for _, b := range all(svg, "rect", "bar") {
			c.bars++
			if len(all(b, "title", "")) != 1 {
				t.Errorf("chart %s: a bar without a title", attr(fig, "id"))
			}
		}
		for _, m := range all(svg, "a", "mark") {
			c.marks++
			href := attr(m, "href")
			target := d.ids[strings.TrimPrefix(href, "#")]
			if target == nil {
				t.Errorf("chart %s: marker links to %q, which does not exist", attr(fig, "id"), href)
				continue
			}
			if target.Data != "li" || target.Parent == nil || !hasClass(target.Parent, "evidence") {
				t.Errorf("marker %q links to <%s>, not an evidence line", href, target.Data)
			}
			if !hasClass(target, "marked") {
				t.Errorf("evidence line %q has a marker but is not flagged marked", href)
			}
		}
	}
	c.evidence = len(all(d.root, "ol", "evidence"))
	return c
}

// scriptData is the report's KC object, decoded.
func scriptData(t *testing.T, d *htmlDoc) map[string]any {
	t.Helper()
	s := all(d.root, "script", "")
	if len(s) == 0 {
		t.Fatal("no script")
	}
	src := textOf(s[0])
	_, rest, ok := strings.Cut(src, "const KC = ")
	js, _, ok2 := strings.Cut(rest, ";\n")
	if !ok || !ok2 {
		t.Fatalf("no KC data in the script: %.200q", src)
	}
	var data map[string]any
	if err := json.Unmarshal([]byte(js), &data); err != nil {
		t.Fatalf("KC data is not JSON: %v\n%s", err, js)
	}
	return data
}

// TestHTMLStructureOnShippedIncidents renders every shipped incident and
// the real logs, and checks each page's structure with a real HTML parser:
// lanes per node and view, markers linking to evidence anchors that exist,
// nothing loaded from outside.
func TestHTMLStructureOnShippedIncidents(t *testing.T) {
	here, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		name, dir string
		files     []string
	}
	var inputs []input
	incidents, _ := filepath.Glob(filepath.Join(here, "../testdata/incidents/*/kcm.log"))
	for _, k := range incidents {
		dir := filepath.Dir(k)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, e := range ents {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".log") || strings.HasSuffix(e.Name(), ".txt")) {
				files = append(files, e.Name())
			}
		}
		inputs = append(inputs, input{filepath.Base(dir), dir, files})
	}
	if len(inputs) < 3 {
		t.Fatalf("found %d shipped incidents, want at least 3", len(inputs))
	}
	reals, _ := filepath.Glob(filepath.Join(here, "../testdata/real-logs/*.log"))
	for _, r := range reals {
		inputs = append(inputs, input{"real-" + filepath.Base(r), filepath.Dir(r), []string{filepath.Base(r)}})
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			a, _ := analyzeFiles(t, in.dir, 0, in.files...)
			var out bytes.Buffer
			if err := HTML(&out, a, Options{}); err != nil {
				t.Fatal(err)
			}
			checkPlain(t, "html", out.Bytes())
			d := parseHTMLDoc(t, out.Bytes())
			c := checkHTMLStructure(t, d)
			incs := all(d.root, "section", "incident")
			if len(incs) != len(a.Result.Incidents) {
				t.Errorf("%d incident sections, want %d", len(incs), len(a.Result.Incidents))
			}
			for i, sec := range incs {
				in := a.Result.Incidents[i]
				v := findVolume(a.Timeline, in.Volume, in.PV)
				if v == nil {
					continue
				}
				figs := all(sec, "figure", "chart")
				if start, _ := volumeSpan(v); len(volumeNodes(v)) == 0 || start.IsZero() {
					if len(figs) != 0 || !strings.Contains(textOf(sec), "No timeline chart") {
						t.Errorf("incident %d: a volume without nodes or times wants no chart, and a note saying why", i+1)
					}
					continue
				}
				if len(figs) == 0 {
					t.Errorf("incident %d: no chart", i+1)
					continue
				}
				if got, want := len(all(figs[0], "g", "lane")), 2*len(volumeNodes(v)); got != want {
					t.Errorf("incident %d: %d lanes, want %d (controller and kubelet per node)", i+1, got, want)
				}
				timed := 0
				for _, c := range in.Chain {
					for _, e := range dedupEvidence(a.Result.Findings[c].Evidence) {
						if !e.Time.IsZero() {
							timed++
						}
					}
				}
				if got := len(all(figs[0], "a", "mark")); got != timed {
					t.Errorf("incident %d: %d markers, want one per timed evidence line (%d)", i+1, got, timed)
				}
				if len(v.Overlaps()) > 0 && len(all(figs[0], "rect", "overlap")) == 0 {
					t.Errorf("incident %d: the overlap window is not drawn", i+1)
				}
			}
			if len(a.Result.Incidents) > 0 && c.evidence == 0 {
				t.Errorf("no evidence lists")
			}
			rows := all(d.root, "table", "volumes")
			if len(a.Timeline.Volumes) == 0 {
				if len(rows) != 0 || !strings.Contains(textOf(d.root), "No volumes.") {
					t.Errorf("no volumes: want no volumes table and the words \"No volumes.\"")
				}
			} else if len(rows) != 1 || len(all(rows[0], "tr", ""))-1 != len(a.Timeline.Volumes) {
				t.Errorf("the volumes table wants one row per volume (%d)", len(a.Timeline.Volumes))
			}
			if ins := all(d.root, "table", "inputs"); len(ins) != 1 || len(all(ins[0], "tr", ""))-1 != len(a.Timeline.Inputs) {
				t.Errorf("the coverage table wants one row per input (%d)", len(a.Timeline.Inputs))
			}
			data := scriptData(t, d)
			if labels, _ := data["labels"].(map[string]any); len(labels) != c.charts {
				t.Errorf("script labels %d charts, the page has %d", len(labels), c.charts)
			}

			out.Reset()
			if err := TimelineHTML(&out, a.Timeline, nil, Options{}); err != nil {
				t.Fatal(err)
			}
			d = parseHTMLDoc(t, out.Bytes())
			checkHTMLStructure(t, d)
			if got := len(all(d.root, "section", "volume")); got != len(a.Timeline.Volumes) {
				t.Errorf("timeline: %d volume sections, want %d", got, len(a.Timeline.Volumes))
			}
		})
	}
}

// TestSeedChartShowsTheRace: the seed incident's chart has the race's
// close-up, the overlap band in it, and each state where the story puts it.
func TestSeedChartShowsTheRace(t *testing.T) {
	a := handSeed(false)
	var out bytes.Buffer
	if err := HTML(&out, a, Options{}); err != nil {
		t.Fatal(err)
	}
	d := parseHTMLDoc(t, out.Bytes())
	figs := all(d.root, "figure", "chart")
	if len(figs) != 2 || !hasClass(figs[1], "closeup") {
		t.Fatalf("want the whole span and a close-up of the overlap, got %d charts", len(figs))
	}
	states := map[string]int{}
	for _, b := range all(figs[1], "rect", "bar") {
		for _, s := range strings.Fields(attr(b, "class")) {
			states[s]++
		}
	}
	for _, s := range []string{"st-uncertain", "st-attached", "st-detaching", "st-mount-failing", "st-mounting"} {
		if states[s] == 0 {
			t.Errorf("close-up lacks a %s bar (%v)", s, states)
		}
	}
	bands := all(figs[1], "rect", "overlap")
	if len(bands) != 1 {
		t.Fatalf("%d overlap bands, want 1", len(bands))
	}
	ov := a.Timeline.Volumes[0].Overlaps()[0]
	if attr(bands[0], "data-a") != fmt.Sprint(ov.Start.UnixMilli()) || attr(bands[0], "data-b") != fmt.Sprint(ov.End.UnixMilli()) {
		t.Errorf("band %s–%s, want the overlap %d–%d", attr(bands[0], "data-a"), attr(bands[0], "data-b"), ov.Start.UnixMilli(), ov.End.UnixMilli())
	}
	// The close-up is scaled to the race: the band spans a good part of it.
	var w float64
	fmt.Sscan(attr(bands[0], "width"), &w)
	if w < 100 {
		t.Errorf("the overlap is %.1f units wide in its close-up", w)
	}
	title := textOf(all(d.root, "title", "")[0])
	if title != "kcmtrace: critical incident on disk-rhtsqync" {
		t.Errorf("title %q", title)
	}
}

// withoutAssets checks that page embeds the stylesheet and the script
// whole, then puts a marker in their place: the goldens pin the page, and
// report.css / report.js are pinned once, as themselves (and run in the
// browser test), not copied into every golden.
func withoutAssets(t *testing.T, page []byte) []byte {
	t.Helper()
	for _, a := range []struct{ name, text string }{{"report.css", htmlCSS}, {"report.js", htmlJS}} {
		if !bytes.Contains(page, []byte(a.text)) {
			t.Errorf("the page does not embed assets/%s whole", a.name)
		}
		page = bytes.ReplaceAll(page, []byte(a.text), []byte("/* assets/"+a.name+", embedded whole */"))
	}
	return page
}

// TestHTMLGoldens pins the seed incident's page, hand-built and through
// the pipeline, and the timeline page (their embedded assets aside).
func TestHTMLGoldens(t *testing.T) {
	out := render(t, func(b *bytes.Buffer) error { return HTML(b, handSeed(false), Options{}) })
	golden.Check(t, filepath.Join("testdata", "hand-seed", "analyze.html"), withoutAssets(t, out))

	here, _ := filepath.Abs(".")
	a, _ := analyzeFiles(t, filepath.Join(here, "../testdata/incidents/seed-legacy"), 0, "kcm.log", "kubelet.log")
	t.Chdir(here)
	out = render(t, func(b *bytes.Buffer) error { return HTML(b, a, Options{}) })
	golden.Check(t, filepath.Join("testdata", "seed-legacy", "analyze.html"), withoutAssets(t, out))
	out = render(t, func(b *bytes.Buffer) error { return TimelineHTML(b, a.Timeline, nil, Options{}) })
	golden.Check(t, filepath.Join("testdata", "seed-legacy", "timeline.html"), withoutAssets(t, out))
	out = render(t, func(b *bytes.Buffer) error { return HTML(b, a, Options{Redact: true}) })
	for _, v := range a.Timeline.Volumes {
		for _, s := range append([]string{v.Handle, v.PV}, v.Nodes()...) {
			if s != "" && bytes.Contains(out, []byte(s)) {
				t.Errorf("redacted HTML still contains %q", s)
			}
		}
	}
}

// htmlHostile are strings aimed at each context the page writes into.
var htmlHostile = []string{
	`</script><script>alert(1)</script>`, `"><svg onload=alert(1)>`, `'; alert(1); '`, `javascript:alert(1)`,
	`</title><img src=x onerror=alert(1)>`, `<!-- x --> ]]> <![CDATA[`, `</style><style>*{display:none}</style>`,
	`\u003c/script\u003e`, "`${alert(1)}`",
}

// hostileAnalysis is the hostile seed plus an incident on a volume whose
// every name, node, pod, rule, summary and evidence line is hostile.
func hostileAnalysis() *Analysis {
	a := handSeed(true)
	t0 := time.Date(2021, 1, 13, 9, 0, 0, 0, time.UTC)
	for i, s := range htmlHostile {
		node := htmlHostile[(i+1)%len(htmlHostile)]
		ev := parser.Draft{Time: parser.StampOf(t0.Add(time.Duration(i) * time.Second)), Kind: parser.AttachFailed, Volume: s, PV: s, Node: node,
			Component: parser.ComponentKCM, Source: parser.Source{File: parser.InternPath(s), Line: parser.Int32(i + 1)}, Text: parser.TextOf("E0113 " + s + " " + node)}.Event()
		kev := ev
		kev.Component, kev.Kind, kev.Source.Line = parser.ComponentKubelet, parser.MountDeviceFailed, parser.Int32(i+100)
		v := &timeline.Volume{UniqueName: s, PV: s, Handle: node,
			Events: []parser.Event{ev, kev},
			Intervals: []timeline.Interval{timeline.NewInterval(node, timeline.Attached, ev.Time.UTC(), ev.Time.Add(time.Minute).UTC(), 0, 0),
				timeline.NewInterval(s, timeline.Uncertain, ev.Time.UTC(), time.Time{}, 0, 0)},
		}
		v.SetNames([]string{s})
		v.SetNodes([]string{node, s})
		v.SetPods([]string{s})
		v.SetKey(s)
		v.SetDriver(s)
		v.SetSpan(ev.Time.UTC(), ev.Time.Add(time.Minute).UTC())
		v.SetKubelet([]timeline.Interval{timeline.NewInterval(node, timeline.MountFailing, kev.Time.UTC(), time.Time{}, 0, 0)})
		v.SetOverlaps([]timeline.Overlap{{Start: ev.Time.UTC(), Nodes: []string{node, s}, States: map[string]timeline.State{node: timeline.Attached}}})
		a.Timeline.Volumes = append(a.Timeline.Volumes, v)
		a.Timeline.Inputs = append(a.Timeline.Inputs, parser.Input{Path: s, Component: s, Format: s, Zone: s,
			Problems: []parser.Problem{{Line: 1, Message: s}}})
		ref := rules.Evidence{Path: s, Line: i + 1, Time: ev.Time.UTC(), Text: ev.Text.String(), Note: s}
		a.Result.Findings = append(a.Result.Findings, rules.Finding{Rule: s, Severity: rules.Warning, Volume: s, PV: s, Nodes: []string{node},
			Pods: []string{s}, Start: ev.Time.UTC(), Summary: s, Explanation: s, Next: s, Code: s,
			Evidence: []rules.Evidence{ref, {Path: s, Line: i + 100, Time: kev.Time.UTC(), Text: s}}})
		a.Result.Incidents = append(a.Result.Incidents, rules.Incident{Volume: s, PV: s, Severity: rules.Warning, Summary: s, RootCause: s,
			Component: s, Story: []string{s, node}, Next: []rules.Step{{Phase: rules.Confirm, Text: s}}, Chain: []int{len(a.Result.Findings) - 1}})
	}
	a.Result.Errors = append(a.Result.Errors, htmlHostile...)
	a.Timeline.Volumes = append(a.Timeline.Volumes, hostileVolumes()...)
	return a
}

// TestHTMLSurvivesHostileText: log text cannot add an element, an
// attribute or a script, in HTML text, attributes, SVG text or the
// script's data; and it reaches the reader unchanged.
func TestHTMLSurvivesHostileText(t *testing.T) {
	a := hostileAnalysis()
	for name, f := range map[string]renderFn{
		"analyze":  func(b *bytes.Buffer) error { return HTML(b, a, Options{}) },
		"timeline": func(b *bytes.Buffer) error { return TimelineHTML(b, a.Timeline, nil, Options{}) },
	} {
		t.Run(name, func(t *testing.T) {
			out := render(t, f)
			checkPlain(t, name, out)
			d := parseHTMLDoc(t, out)
			checkHTMLStructure(t, d)
			for _, n := range d.nodes {
				switch n.Data {
				case "style":
					if n.Parent.Data != "head" {
						t.Errorf("a <style> in the body")
					}
				case "svg":
					if !hasClass(n, "lanes") && !hasClass(n, "defs") {
						t.Errorf("an <svg> that is not a chart")
					}
				}
			}
			if titles := all(d.root, "title", ""); len(titles) == 0 || strings.Contains(textOf(titles[0]), "<img") && name == "timeline" {
				t.Errorf("title: %v", titles)
			}
			body := textOf(d.root)
			for _, s := range htmlHostile {
				if !strings.Contains(body, s) {
					t.Errorf("%q does not reach the reader as text", s)
				}
			}
			data := scriptData(t, d)
			labels, _ := data["labels"].(map[string]any)
			found := map[string]bool{}
			for _, l := range labels {
				found[fmt.Sprint(l)] = true
			}
			if name == "analyze" {
				for _, s := range htmlHostile {
					if !found[s] {
						t.Errorf("script data lost label %q (labels %q)", s, labels)
					}
				}
			}
		})
	}
}

// volumeRowTemplate is the volumes table's rows as the page's template
// wrote them before htmlVolumeRows: the oracle it is held to.
var volumeRowTemplate = template.Must(template.New("rows").Parse(`{{- range .}}
<tr{{if .Findings}} class="has-findings"{{end}}><td>{{if .Link}}<a href="{{.Link}}"><code>{{.Label}}</code></a>{{else}}<code>{{.Label}}</code>{{end}}</td><td><code>{{.Handle}}</code></td><td>{{.Driver}}</td><td>{{.Nodes}}</td><td>{{.Pods}}</td><td class="r">{{.Events}}</td><td class="r">{{.Overlaps}}</td><td class="r">{{.Findings}}</td><td class="t">{{.Span}}</td></tr>
{{- end}}`))

func checkVolumeRows(t *testing.T, rows []htmlVolumeRow) {
	t.Helper()
	var want strings.Builder
	if err := volumeRowTemplate.Execute(&want, rows); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	bw := bufio.NewWriter(&got)
	htmlVolumeRows(bw, rows)
	bw.Flush()
	if got.String() != want.String() {
		t.Errorf("rows differ from the template's\n got: %q\nwant: %q", got.String(), want.String())
	}
}

// TestHTMLVolumeRowsAsTemplate: the volumes table's rows are what the
// page's template wrote, hostile text and links included.
func TestHTMLVolumeRowsAsTemplate(t *testing.T) {
	hostile := []string{"", "pvc-1", `<script>alert("x")</script>`, "a&b 'c' +1", "\x00nul", "bad \xff utf8", "数据 \u2028 \ufdd0 \ufffe",
		"javascript:alert(1)", "#volume-7", "#a b", "#", "http://x/?q=<1>&r=\"2\"", "#ünïcode", "%zz"}
	var rows []htmlVolumeRow
	for i, s := range hostile {
		for _, link := range hostile {
			rows = append(rows, htmlVolumeRow{Label: s, Handle: hostile[(i+1)%len(hostile)], Driver: s, Nodes: s + ", " + s, Pods: s,
				Span: s, Link: link, Events: i, Overlaps: i % 2, Findings: i % 3})
		}
	}
	checkVolumeRows(t, rows)
	checkVolumeRows(t, nil)
}

// FuzzHTMLVolumeRows holds htmlVolumeRows to the template on any text.
func FuzzHTMLVolumeRows(f *testing.F) {
	f.Add("pvc-1", "#volume-1", 3, 1)
	f.Add(`<a href="x">&'+`, "javascript:x", 0, 0)
	f.Fuzz(func(t *testing.T, text, link string, events, findings int) {
		checkVolumeRows(t, []htmlVolumeRow{{Label: text, Handle: text, Driver: text, Nodes: text, Pods: text, Span: text,
			Link: link, Events: events, Overlaps: -events, Findings: findings}})
	})
}
