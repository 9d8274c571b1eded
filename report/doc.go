// Package report renders what the other packages computed: the analyze
// report (text, JSON, Markdown), the events stream (JSON Lines, text), the
// per-volume timeline (swimlanes, JSON, Markdown), the volumes and rules
// tables and a rule's explanation.
//
// report owns every renderer, every lipgloss style (all of them in
// styles.go), the JSON wire structs and their committed JSON Schemas
// (schema/*.schema.json, embedded), terminal sanitising of log-derived text
// (Sanitize), Markdown escaping, and redaction (Options.Redact: consistent
// pseudonyms for nodes, IPs, pods, namespaces, disks and request IDs).
//
// report does not decide anything: what is an event belongs to parser, which
// volume a line is about and its state belongs to timeline, what is a finding
// or an incident belongs to rules. report never reads files and never exits.
//
// Every string that came from a log goes through Sanitize before it reaches
// a terminal or a file; machine output (JSON) never carries ANSI codes.
package report
