// Package rules owns kcmtrace's findings: the Rule values (one file per rule,
// rule_<name>.go, each registering itself from a package-level var), the
// registry (All, Lookup), the engine that runs the selected rules over a
// timeline.Timeline (Run, Config, --set parameters, panic isolation), and the
// grouping of findings into causal incidents (incident.go).
//
// A rule reads the facts the timeline package derived (per-volume events,
// controller and kubelet state intervals, overlaps, restarts) and returns
// Findings whose Evidence points at exact input lines, primary line first.
// Helpers that read those facts live in facts.go.
//
// rules does not parse logs, build timelines, print, or style anything: the
// parser and timeline packages come before it, report renders after it.
package rules
