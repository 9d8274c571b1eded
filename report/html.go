package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// The HTML report: one self-contained file (inline CSS, a few lines of
// inline script, no network: its Content-Security-Policy forbids any) to
// attach to an incident ticket. html/template escapes every log-derived
// string for where it lands (HTML text, attributes, SVG text, the script's
// JSON data) — but the volumes table's rows, written between the
// template's head and tail with its escaping of text and links
// (htmlVolumeRows) — and the strings are also Sanitized first, as for a
// terminal.

var (
	//go:embed assets/report.html.tmpl
	htmlTemplateText string
	//go:embed assets/report.css
	htmlCSS string
	//go:embed assets/report.js
	htmlJS string

	// htmlTemplate is parsed when a page is first written, not at start:
	// parsing it was most of the package's init (2,895 of its 4,041
	// allocations, GODEBUG=inittrace=1), paid by every run of every other
	// output.
	htmlTemplate = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("report").Funcs(template.FuncMap{
			"n": func(f float64) string { return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.1f", f), "0"), ".") },
		}).Parse(htmlTemplateText))
	})
)

// htmlPage is everything the template shows.
type htmlPage struct {
	Title     string
	Kind      string // "analyze" or "timeline"
	Intro     string
	Summary   string
	Incidents []htmlIncident
	Loose     []htmlFinding
	// the timeline view: one section per volume, made by volume when it
	// is written (writeHTMLVolumes)
	vols   []*timeline.Volume
	volume func(i int, v *timeline.Volume) htmlVolume
	Errors []string
	Table  bool            // a volumes table: rows (written by writeHTML)
	rows   []htmlVolumeRow // its rows
	Inputs []htmlInput
	States []stateInputRow // the cluster-state dumps, with what they held
	Notes  []string
	Zone   string // the display zone's name, in the table heads
	CSS    template.CSS
	JS     template.JS
	Data   htmlScriptData
}

// htmlScriptData is what the inline script reads (escaped for the script
// context by html/template).
type htmlScriptData struct {
	Steps  []int64           `json:"steps"`
	Zones  []zoneName        `json:"zones"`
	TZ     *htmlTZ           `json:"tz,omitempty"` // the display zone; none for UTC
	Labels map[string]string `json:"labels"`       // chart id → volume label, for the zoom status line
}

// htmlTZ names the display zone for the script (each chart carries its
// offset, data-off).
type htmlTZ struct {
	Name string `json:"name"`
}

type htmlIncident struct {
	ID, Num    string
	Severity   string
	Title      string
	Summary    string
	Volume     string
	UniqueName string
	Driver     string
	Nodes      []string
	Pods       []string
	Window     string
	Story      []string
	RootCause  string
	Component  string
	Charts     []htmlChart
	Impact     []htmlOutage
	Findings   []htmlFinding
	Keys       []htmlKeyRow
	KeysNote   string
	KeysCmd    string // the command that shows every event (timelineCommand)
	Steps      []htmlStep
	Zone       string // the display zone's name
}

type htmlFinding struct {
	ID, Num     string
	Rule        string
	Severity    string
	Volume      string
	Summary     string
	Explanation string
	When        string
	Nodes       string
	Evidence    []htmlEvidence
	Steps       []htmlStep
}

type htmlEvidence struct {
	ID     string
	Loc    string
	Path   string
	Time   string
	Note   string
	Text   string
	Marked bool // a chart marker links here
}

type htmlStep struct{ Phase, Text string }

type htmlOutage struct {
	Pod, Node, From, To, For, Failures, Then string
}

type htmlKeyRow struct{ Time, Rel, Node, Step, Source string }

// htmlVolume is one volume of the timeline view.
type htmlVolume struct {
	ID, Label, UniqueName, Handle, Driver string
	Nodes, Pods                           []string
	Events                                int
	Charts                                []htmlChart
	Keys                                  []htmlKeyRow
	KeysNote                              string
	KeysCmd                               string
	Zone                                  string // the display zone's name
}

type htmlVolumeRow struct {
	Label, Handle, Driver, Nodes, Pods, Span, Link string
	Events, Overlaps, Findings                     int
}

type htmlInput struct {
	Path, Component, Format, Span, YearZone string
	Lines, Events, Unknown, Skipped         int
}

// HTML writes the analyze report as one self-contained HTML page: per
// incident a swimlane chart of the volume (the controller's and the
// kubelet's view per node, findings as markers linked to their evidence
// lines, the overlap window shaded), the story, root cause, impact, key
// events, evidence and next steps; then the other findings, the inputs'
// coverage and a table of all volumes.
func HTML(w io.Writer, a *Analysis, o Options) error {
	a = prepareHuman(a, o)
	p := newHTMLPage(a.Timeline, "analyze", o.zone())
	res := a.Result
	switch {
	case len(res.Incidents) > 0:
		p.Title = incidentsHeadline(a)
	case len(res.Findings) > 0:
		p.Title = fmt.Sprintf("kcmtrace: %s", plural(len(res.Findings), "finding"))
	default:
		p.Title = "kcmtrace: no findings"
	}
	p.Summary = summaryLine(a)
	findingsOn := map[*timeline.Volume]int{}
	for _, f := range res.Findings {
		if v := findVolume(a.Timeline, f.Volume, f.PV); v != nil {
			findingsOn[v]++
		}
	}
	linked := map[*timeline.Volume]string{}
	for i, in := range res.Incidents {
		hi := htmlIncidentOf(a, i, in, p.Data, o)
		if v := findVolume(a.Timeline, in.Volume, in.PV); v != nil && linked[v] == "" {
			linked[v] = "#" + hi.ID
		}
		p.Incidents = append(p.Incidents, hi)
	}
	inInc := incidentOf(res)
	for i, f := range res.Findings {
		if _, ok := inInc[i]; ok {
			continue
		}
		hf := htmlFindingOf(a, f, fmt.Sprintf("f%d", i+1), "", o.zone())
		hf.Steps = htmlSteps(findingSteps(a, f))
		p.Loose = append(p.Loose, hf)
	}
	for _, e := range res.Errors {
		p.Errors = append(p.Errors, oneLine(e))
	}
	if missing := nodesWithoutKubelet(a); len(missing) > 0 {
		p.Notes = append(p.Notes, "no kubelet log for "+strings.Join(oneLines(missing), ", ")+" (named in findings)")
	}
	tl := a.Timeline
	if o.FlaggedOnly && tl != nil {
		flagged := &timeline.Timeline{Volumes: flaggedVolumes(tl, findingsOn)}
		if n := len(tl.Volumes) - len(flagged.Volumes); n > 0 {
			p.Notes = append(p.Notes, plural(n, "volume")+" without findings not listed (--flagged-only)")
		}
		tl = flagged
	}
	p.rows = htmlVolumeTable(tl, findingsOn, linked, o.zone())
	p.Table = len(p.rows) > 0
	return writeHTML(w, p)
}

// TimelineHTML writes the timeline view as one self-contained HTML page:
// per volume its names, swimlane chart and key events, then the volumes
// table and the inputs' coverage. vols nil means every volume of tl.
func TimelineHTML(w io.Writer, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	tl, vols = prepareTimeline(tl, vols, o)
	p := newHTMLPage(tl, "timeline", o.zone())
	p.Title = "kcmtrace: volume timeline"
	if len(vols) == 1 {
		p.Title = "kcmtrace: timeline of " + oneLine(volumeLabel(vols[0]))
	}
	p.Summary = plural(len(vols), "volume")
	volumeID := func(i int) string { return fmt.Sprintf("volume-%d", i+1) }
	zones, zone := p.Data.Zones, p.Zone
	p.vols, p.volume = vols, func(i int, v *timeline.Volume) htmlVolume {
		hv := htmlVolume{ID: volumeID(i), Label: oneLine(volumeLabel(v)), UniqueName: oneLine(v.UniqueName), Handle: oneLine(v.Handle),
			Driver: oneLine(v.Driver()), Nodes: oneLines(v.Nodes()), Pods: oneLines(v.Pods()), Events: len(v.Events), Zone: zone}
		hv.Charts = volumeCharts(fmt.Sprintf("v%d", i+1), v, nil, zones, o.zone())
		hv.Keys, hv.KeysNote, hv.KeysCmd = htmlKeyRows(v, o)
		return hv
	}
	linked := map[*timeline.Volume]string{}
	for i, v := range vols {
		linked[v] = "#" + volumeID(i)
	}
	p.rows = htmlVolumeTable(&timeline.Timeline{Volumes: vols}, nil, linked, o.zone())
	p.Table = len(p.rows) > 0
	return writeHTML(w, p)
}

// writeHTML writes the page: the template's head, the timeline's volumes
// (writeHTMLVolumes), its middle, the volumes table's rows
// (htmlVolumeRows), its tail.
func writeHTML(w io.Writer, p htmlPage) error {
	t := htmlTemplate()
	bw := bufio.NewWriter(w)
	if err := t.ExecuteTemplate(bw, "head", p); err != nil {
		return err
	}
	if err := writeHTMLVolumes(bw, t, &p); err != nil {
		return err
	}
	if err := t.ExecuteTemplate(bw, "middle", p); err != nil {
		return err
	}
	htmlVolumeRows(bw, p.rows)
	if err := t.ExecuteTemplate(bw, "tail", p); err != nil {
		return err
	}
	return bw.Flush()
}

// writeHTMLVolumes writes the timeline's volumes' sections (template
// "volume"), each made (p.volume) and rendered by a batch on every core
// (renderVolumes), and enters their charts' labels in the page's script
// data. A large cluster's day (35k volumes, 180 MB of page) held every
// section's values at once and rendered them on one core.
func writeHTMLVolumes(w io.Writer, t *template.Template, p *htmlPage) error {
	charts := make([][]string, len(p.vols)) // each volume's charts' ids
	labels := make([]string, len(p.vols))
	err := renderVolumes(w, len(p.vols), func(dst []byte, from, to int) ([]byte, error) {
		buf := bytes.NewBuffer(dst)
		for i := from; i < to; i++ {
			hv := p.volume(i, p.vols[i])
			for _, c := range hv.Charts {
				charts[i] = append(charts[i], c.ID)
			}
			labels[i] = hv.Label
			if err := t.ExecuteTemplate(buf, "volume", hv); err != nil {
				return buf.Bytes(), err
			}
		}
		return buf.Bytes(), nil
	})
	for i, ids := range charts {
		for _, id := range ids {
			p.Data.Labels[id] = labels[i]
		}
	}
	return err
}

func newHTMLPage(tl *timeline.Timeline, kind string, z displayZone) htmlPage {
	p := htmlPage{Kind: kind, Zone: oneLine(z.name()), CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS),
		Data: htmlScriptData{Steps: tickSteps, Zones: logZones(tl), Labels: map[string]string{}}}
	if p.Data.Zones == nil {
		p.Data.Zones = []zoneName{}
	}
	if !z.isUTC() {
		p.Data.TZ = &htmlTZ{Name: z.name()}
	}
	if tl != nil {
		hover := "the logs' own zone and yours"
		if !z.isUTC() {
			hover = "UTC, " + hover
		}
		p.Intro = fmt.Sprintf("Generated by kcmtrace from %s covering %s. Times are %s; hover a time for %s.",
			plural(inputCount(tl), "input"), z.spanText(tl.Start, tl.End), z.name(), hover)
		for _, l := range fetchLines(tl) {
			p.Intro += " " + l + "."
		}
		p.Inputs, p.Notes = htmlCoverage(tl, z)
		p.States = stateInputRows(tl, z)
	}
	return p
}

// incidentsHeadline is the page's short title naming every incident's
// volume: "1 critical incident: disk-7x9qk2mz", "4 incidents: a, b, c +1".
func incidentsHeadline(a *Analysis) string {
	ins := a.Result.Incidents
	var names []string
	for _, in := range ins {
		names = append(names, oneLine(volumeName(a, in.Volume, in.PV)))
	}
	names = uniq(names)
	const shown = 3
	list := strings.Join(names[:min(len(names), shown)], ", ")
	if len(names) > shown {
		list += fmt.Sprintf(" +%d", len(names)-shown)
	}
	if len(ins) == 1 {
		return fmt.Sprintf("kcmtrace: %s incident on %s", ins[0].Severity.String(), list)
	}
	return fmt.Sprintf("kcmtrace: %d incidents on %s", len(ins), list)
}

// plainTitle is an incident's heading: "disk-7x9qk2mz: The disk was pulled off …".
func plainTitle(a *Analysis, in rules.Incident) string {
	s := in.Summary
	if s == "" && len(in.Chain) > 0 && in.Chain[0] < len(a.Result.Findings) {
		s = a.Result.Findings[in.Chain[0]].Summary
	}
	return oneLine(volumeName(a, in.Volume, in.PV)) + ": " + oneLine(s)
}

func htmlIncidentOf(a *Analysis, i int, in rules.Incident, data htmlScriptData, o Options) htmlIncident {
	fs := a.Result.Findings
	var chain []rules.Finding
	for _, c := range in.Chain {
		if c >= 0 && c < len(fs) {
			chain = append(chain, fs[c])
		}
	}
	hi := htmlIncident{ID: fmt.Sprintf("incident-%d", i+1), Num: fmt.Sprint(i + 1), Severity: in.Severity.String(),
		Title: plainTitle(a, in), Summary: oneLine(in.Summary), RootCause: oneLine(in.RootCause), Component: oneLine(in.Component),
		Story: oneLines(in.Story), Zone: oneLine(o.zone().name())}
	if hi.RootCause == "" && len(chain) > 0 {
		hi.RootCause = oneLine(chain[0].Explanation)
	}
	v := findVolume(a.Timeline, in.Volume, in.PV)
	hi.Volume = oneLine(firstNonEmpty(in.PV, in.Volume))
	if v != nil {
		hi.Volume, hi.Driver = oneLine(volumeLabel(v)), oneLine(v.Driver())
		if v.UniqueName != "" && v.UniqueName != volumeLabel(v) {
			hi.UniqueName = oneLine(v.UniqueName)
		}
	}
	nodes, pods, start, end := chainScope(chain)
	hi.Nodes, hi.Pods = oneLines(nodes), oneLines(pods)
	if !start.IsZero() {
		hi.Window = o.zone().spanText(start, end) + " (" + human(end.Sub(start)) + ")"
	}
	var marks []chartMark
	for j, f := range chain {
		hf := htmlFindingOf(a, f, fmt.Sprintf("ev-%d-%d", i+1, j+1), fmt.Sprint(j+1), o.zone())
		for k := range hf.Evidence {
			hf.Evidence[k].Marked = v != nil && !dedupEvidence(f.Evidence)[k].Time.IsZero()
		}
		for k, e := range dedupEvidence(f.Evidence) {
			marks = append(marks, chartMark{ev: e, href: "#" + hf.Evidence[k].ID, num: j + 1, sev: f.Severity, rule: oneLine(f.Rule), nodes: f.Nodes})
		}
		hi.Findings = append(hi.Findings, hf)
	}
	if v != nil {
		hi.Charts = volumeCharts(fmt.Sprintf("i%d", i+1), v, marks, data.Zones, o.zone())
		for _, c := range hi.Charts {
			data.Labels[c.ID] = hi.Volume
		}
		hi.Impact = htmlImpact(v, o.zone())
		hi.Keys, hi.KeysNote, hi.KeysCmd = htmlKeyRows(v, o)
	}
	hi.Steps = htmlSteps(incidentSteps(a, in, chain))
	return hi
}

// htmlFindingOf is a finding with its evidence lines; id prefixes the
// evidence anchors ("ev-1-2" → "ev-1-2-3").
func htmlFindingOf(a *Analysis, f rules.Finding, id, num string, z displayZone) htmlFinding {
	hf := htmlFinding{ID: id, Num: num, Rule: oneLine(f.Rule), Severity: f.Severity.String(), Volume: oneLine(volumeName(a, f.Volume, f.PV)),
		Summary: oneLine(f.Summary), Explanation: oneLine(f.Explanation), Nodes: strings.Join(oneLines(f.Nodes), ", ")}
	if !f.Start.IsZero() {
		end := f.End
		if end.IsZero() {
			end = f.Start
		}
		hf.When = z.spanText(f.Start, end)
		if end.After(f.Start) {
			hf.When += " (" + human(end.Sub(f.Start)) + ")"
		}
		if f.Count > 1 {
			hf.When += fmt.Sprintf(" · %d times", f.Count)
		}
	}
	for k, e := range dedupEvidence(f.Evidence) {
		he := htmlEvidence{ID: fmt.Sprintf("%s-%d", id, k+1), Loc: evidenceLoc(e), Path: fmt.Sprintf("%s:%d", oneLine(e.Path), e.Line),
			Time: z.clockMS(e.Time), Note: oneLine(e.Note), Text: oneLine(e.Text)}
		if e.Time.IsZero() {
			he.Time = ""
		}
		hf.Evidence = append(hf.Evidence, he)
	}
	return hf
}

func htmlSteps(steps []rules.Step) []htmlStep {
	var out []htmlStep
	for _, s := range steps {
		out = append(out, htmlStep{Phase: s.Phase.String(), Text: oneLine(s.Text)})
	}
	return out
}

// htmlImpact is the volume's mount outages, one row per pod and node.
func htmlImpact(v *timeline.Volume, z displayZone) []htmlOutage {
	var out []htmlOutage
	for _, s := range v.MountOutages() {
		var kinds []string
		for _, k := range s.Kinds {
			kinds = append(kinds, fmt.Sprintf("%s ×%d", stepLabel(k), s.Counts[k]))
		}
		o := htmlOutage{Pod: oneLine(firstNonEmpty(s.Pod, "?")), Node: oneLine(firstNonEmpty(s.Node, "?")),
			From: z.clock(s.First, true), To: z.clock(s.Last, !z.sameDay(s.First, s.Last)), For: human(s.Last.Sub(s.First)),
			Failures: strings.Join(kinds, ", ")}
		var then []string
		if s.FromDescribe {
			then = append(then, "from kubectl describe rows only")
		}
		if !s.Relapsed.IsZero() {
			then = append(then, "mounted at "+z.clock(s.Relapsed, false)+", then failed again")
		}
		if !s.Recovered.IsZero() {
			then = append(then, "mounted at "+z.clock(s.Recovered, true))
		} else {
			then = append(then, "no successful mount in the logs")
		}
		o.Then = strings.Join(then, "; ")
		out = append(out, o)
	}
	return out
}

// stepLabel is the post-mortem word for an event kind (stepLabels), else the kind.
func stepLabel(k parser.Kind) string {
	if l := stepLabels[k]; l != "" {
		return l
	}
	return k.String()
}

// htmlKeyRows is the volume's key events (see keyRows), at most maxKeyRows.
func htmlKeyRows(v *timeline.Volume, o Options) (keys []htmlKeyRow, note, cmd string) {
	rows := keyRows(v.Events)
	omitted := 0
	if len(rows) > maxKeyRows {
		omitted = len(rows) - maxKeyRows
		rows = rows[:maxKeyRows]
	}
	var base parser.Event
	for _, r := range rows {
		if !r.Time.IsZero() && (base.Time.IsZero() || r.Time.Before(base.Time.UTC())) {
			base.Time = parser.StampOf(r.Time)
		}
	}
	var out []htmlKeyRow
	for _, r := range rows {
		tm := r.when(o.zone(), false)
		if !r.Time.IsZero() {
			tm = o.zone().clockMS(r.Time)
		}
		out = append(out, htmlKeyRow{Time: tm, Rel: rel(r.Time, base.Time.UTC()), Node: oneLine(firstNonEmpty(r.Node, unknownTime)),
			Step: oneLine(r.step(o.zone())), Source: r.sourceLoc()})
	}
	return out, oneLine(fullTimelineNote(v, omitted)), oneLine(timelineCommand(v, o))
}

// htmlVolumeTable is one row per volume, linked to its section when it has
// one (htmlVolumeRows writes them).
func htmlVolumeTable(tl *timeline.Timeline, findings map[*timeline.Volume]int, link map[*timeline.Volume]string, z displayZone) []htmlVolumeRow {
	if tl == nil {
		return nil
	}
	var out []htmlVolumeRow
	for _, v := range tl.Volumes {
		start, end := volumeSpan(v)
		out = append(out, htmlVolumeRow{Label: oneLine(volumeLabel(v)), Handle: oneLine(v.Handle), Driver: oneLine(driverLabel(v.Driver())),
			Nodes: strings.Join(oneLines(v.Nodes()), ", "), Pods: strings.Join(oneLines(v.Pods()), ", "), Span: z.spanText(start, end),
			Events: len(v.Events), Overlaps: len(v.Overlaps()), Findings: findings[v], Link: link[v]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Findings > out[j].Findings })
	return out
}

// htmlVolumeRows writes the volumes table's rows to b as the page's
// template did, with html/template's escaping of HTML text (htmlText) and
// of a link (htmlLink). The template took 0.35 s over 35k volumes (a large
// cluster's day), reflection for every cell: a third of the report.
// TestHTMLVolumeRowsAsTemplate holds it to the template's output. (b's
// errors are its own: bufio's are kept for Flush.)
func htmlVolumeRows(b *bufio.Writer, rows []htmlVolumeRow) {
	for _, r := range rows {
		b.WriteString("\n<tr")
		if r.Findings != 0 {
			b.WriteString(` class="has-findings"`)
		}
		b.WriteString("><td>")
		if r.Link != "" {
			b.WriteString(htmlLink(r.Link))
		}
		b.WriteString("<code>")
		b.WriteString(htmlText(r.Label))
		b.WriteString("</code>")
		if r.Link != "" {
			b.WriteString("</a>")
		}
		b.WriteString("</td><td><code>")
		b.WriteString(htmlText(r.Handle))
		b.WriteString("</code></td>")
		for _, c := range [...]string{r.Driver, r.Nodes, r.Pods} {
			b.WriteString("<td>")
			b.WriteString(htmlText(c))
			b.WriteString("</td>")
		}
		for _, n := range [...]int{r.Events, r.Overlaps, r.Findings} {
			b.WriteString(`<td class="r">`)
			b.WriteString(strconv.Itoa(n))
			b.WriteString("</td>")
		}
		b.WriteString(`<td class="t">`)
		b.WriteString(htmlText(r.Span))
		b.WriteString("</td></tr>")
	}
}

// htmlText escapes s as html/template escapes a string in HTML text (its
// htmlEscaper: these seven, and nothing else).
var htmlText = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;").Replace

// htmlLink is the opening tag of a link to href as the page's template
// writes it: an anchor of letters, digits and '-' as it is, anything else
// through html/template (its URL filter, normalizer and attribute escaper).
func htmlLink(href string) string {
	simple := len(href) > 1 && href[0] == '#'
	for i := 1; simple && i < len(href); i++ {
		c := href[i]
		simple = c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if simple {
		return `<a href="` + href + `">`
	}
	var b strings.Builder
	if err := htmlLinkTemplate().Execute(&b, href); err != nil {
		return `<a href="#ZgotmplZ">` // what html/template writes for a URL it refuses
	}
	return b.String()
}

// htmlLinkTemplate is the link of a row of the volumes table.
var htmlLinkTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("link").Parse(`<a href="{{.}}">`))
})

// htmlCoverage is the inputs table and the notes on what they lack.
func htmlCoverage(tl *timeline.Timeline, z displayZone) ([]htmlInput, []string) {
	var ins []htmlInput
	var notes []string
	for _, in := range tl.Inputs {
		skipped := 0
		for _, n := range in.Skipped {
			skipped += n
		}
		ins = append(ins, htmlInput{Path: oneLine(in.Path), Component: oneLine(firstNonEmpty(in.Component, "unknown")), Format: oneLine(formatText(in)),
			Span: z.spanText(in.First, in.Last), YearZone: oneLine(yearZoneText(in)), Lines: in.Lines, Events: in.Events, Unknown: in.Unknown, Skipped: skipped})
		for _, p := range in.Problems {
			loc := oneLine(in.Path)
			if p.Line > 0 {
				loc += fmt.Sprintf(":%d", p.Line)
			}
			notes = append(notes, loc+": "+oneLine(p.Message))
		}
	}
	notes = append(notes, stateFileProblems(tl)...)
	for _, r := range tl.Restarts {
		notes = append(notes, fmt.Sprintf("controller restart at %s %s (%s, %s:%d)", z.clock(r.Time, true), z.name(), oneLine(r.Reason), oneLine(r.Source.Path()), r.Source.Line))
	}
	for _, s := range tl.Skews {
		if s.Offset != 0 {
			notes = append(notes, fmt.Sprintf("%s: clock offset %s against the controller's (%s)", oneLine(s.Path), signed(s.Offset), oneLine(s.From)))
		}
	}
	return ins, notes
}

func oneLines(ss []string) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, oneLine(s))
	}
	return out
}
