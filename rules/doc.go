// Package rules owns kcmtrace's findings: the Rule values (one file per rule,
// rule_<name>.go, each registering itself from a package-level var), the
// registry (All, Lookup, Select), the engine that runs the selected rules
// over a timeline.Timeline (Run, Config, --set parameters, panic isolation),
// severities (severity.go: the one place their names are spelled), and the
// grouping of findings into causal incidents (incident.go).
//
// A rule reads the facts the timeline package derived (per-volume events,
// controller and kubelet state intervals, overlaps, restarts) and returns
// Findings whose Evidence points at exact input lines, primary line first.
// Helpers that read those facts live in facts.go.
//
// # Adding a rule
//
// A rule is everything in its Rule value, so adding one touches no other
// Go file:
//
//   - rules/rule_<name>.go: var rule<Name> = Register(Rule{…}) with Name
//     (kebab-case, a contract once shipped), Severity, Doc (Title,
//     Explanation, Next: what `kcmtrace explain` prints), Params, Check;
//     Rank (its place among findings that start together on a volume:
//     causes low, effects high; leave gaps), Story (its lines in an
//     incident's story and its next steps; summaryStory for the plain
//     telling), Cause and CauseOrder (what it says about an incident's root
//     cause, and how early it is asked), and Reorder if the findings of
//     other rules must be moved before or after its own.
//   - rules/testdata/<name>/fire-*.txt and quiet-*.txt: event scripts (see
//     fixture_test.go) that must and must not produce the rule's finding;
//     their results are golden files in rules/testdata/golden/<name>/
//     (written with KCMTRACE_UPDATE=1, read before committing).
//   - README.md: a row in the "What it finds" table, with the default
//     severity.
//
// TestRuleComplete fails when a registered rule lacks any of these, and
// TestRegistry when a fixture directory names no rule.
//
// rules does not parse logs, build timelines, print, or style anything: the
// parser and timeline packages come before it, report renders after it.
package rules
