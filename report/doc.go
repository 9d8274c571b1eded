// Package report renders what the other packages computed: the analyze
// report (text, JSON, Markdown, HTML), the events stream (JSON Lines, text),
// the per-volume timeline (swimlanes, JSON, Markdown, HTML), the volumes and
// rules tables and a rule's explanation. The HTML page (html.go, its charts
// in html_chart.go, template, CSS and script in assets/) is self-contained.
//
// report owns every renderer, every lipgloss style (all of them in
// styles.go), the JSON wire structs and their committed JSON Schemas
// (schema/*.schema.json, embedded), terminal sanitising of log-derived text
// (Sanitize), Markdown escaping, and redaction (Options.Redact: consistent
// pseudonyms for nodes, IPs, pods, namespaces, disks and request IDs).
//
// report decides nothing and parses no logs: what is an event, and a log
// line's message without its wrapper and klog header (parser.Message),
// belong to parser; which volume a line is about, its states and the pods
// that could not mount it (timeline.Volume.MountOutages) belong to
// timeline; what is a finding or an incident belongs to rules. report only
// formats them. It never reads files and never exits.
//
// Renderers sit behind one interface, Renderer[V], and each view has a
// table of its formats (AnalysisFormats, TimelineFormats, EventFormats,
// VolumeFormats in render.go) from which the CLI dispatches --format. A new
// output format is a renderer function in a file of its own here plus one
// entry in its view's table (and the name in the command's --format enum,
// which TestFormatFlagsHaveRenderers holds to the table). Helpers every
// renderer shares live in files named by job: timefmt.go (times and
// durations), fit.go (cutting and wrapping to terminal cells), evidence.go
// (evidence lines), names.go (volume names, lists).
//
// Every string that came from a log goes through Sanitize before it reaches
// a terminal or a file; machine output (JSON) never carries ANSI codes.
package report
