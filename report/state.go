package report

import (
	"fmt"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/state"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file renders what the cluster state contributes: state inputs in
// inputs[] (role, objects, problems), the objects joined to a volume, and
// the checks the rules asked of it.

type wireObject struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Source string `json:"source"`
	Text   string `json:"text"`
}

type wireCheck struct {
	Check   string `json:"check"`
	Verdict string `json:"verdict"`
	Text    string `json:"text"`
}

func toWireObject(o timeline.Object) wireObject {
	return wireObject{Kind: o.Kind, Name: Sanitize(o.Name), Source: Sanitize(o.Source), Text: Sanitize(o.Text)}
}

func toWireChecks(cs []rules.Check) []wireCheck {
	var out []wireCheck
	for _, c := range cs {
		out = append(out, wireCheck{Check: c.Check, Verdict: string(c.Verdict), Text: Sanitize(c.Text)})
	}
	return out
}

// wireInputs are the timeline's inputs, each completed from the state
// file of the same path (role, objects, taken, its problems), then the
// state files no log input was made of.
func wireInputs(tl *timeline.Timeline) []wireInput {
	out := make([]wireInput, 0, len(tl.Inputs))
	snap := stateOf(tl)
	seen := map[string]bool{}
	for _, in := range tl.Inputs {
		w := toWireInput(in)
		if f := snap.File(in.Path); f != nil {
			addStateFile(&w, snap, f)
			seen[in.Path] = true
		}
		out = append(out, w)
	}
	for i := range snap.Files {
		f := &snap.Files[i]
		if seen[f.Path] {
			continue
		}
		w := wireInput{Path: f.Path, Component: "state", Wrapper: "none", Format: f.Format, Skipped: map[string]int{}, Problems: []wireProblem{}}
		addStateFile(&w, snap, f)
		out = append(out, w)
	}
	return out
}

// stateOnlyFiles are the state files no log input was made of, in the
// order they were read (inputs[] lists them after the timeline's inputs).
func stateOnlyFiles(tl *timeline.Timeline, snap *state.Snapshot) []*state.File {
	logs := make(map[string]bool, len(tl.Inputs))
	for _, in := range tl.Inputs {
		logs[in.Path] = true
	}
	var out []*state.File
	for i := range snap.Files {
		if f := &snap.Files[i]; !logs[f.Path] {
			out = append(out, f)
		}
	}
	return out
}

// stateTakenText is when a state file's dump was taken and from which
// field, in z: "taken 2024-08-12 04:10:02Z (heartbeat)".
func stateTakenText(f *state.File, z displayZone) string {
	return "taken " + stateTaken(f, z)
}

// stateTaken is "2024-08-12 04:10:02Z (heartbeat)", "?" when unknown.
func stateTaken(f *state.File, z displayZone) string {
	if f.Taken.IsZero() {
		return "?"
	}
	taken := z.in(f.Taken).Format("2006-01-02 15:04:05Z07:00")
	if f.TakenFrom != "" {
		taken += " (" + f.TakenFrom + ")"
	}
	return taken
}

// stateInputRow is one state file as the Markdown and HTML reports list
// it beside the log inputs: what it held and when it was taken.
type stateInputRow struct {
	Path, Role, Format, Taken string
	Objects                   int
}

// stateInputRows are the timeline's state files (those read as logs too,
// then the state-only ones), in z.
func stateInputRows(tl *timeline.Timeline, z displayZone) []stateInputRow {
	snap := stateOf(tl)
	var out []stateInputRow
	add := func(f *state.File) {
		out = append(out, stateInputRow{Path: oneLine(f.Path), Role: oneLine(f.Role), Format: oneLine(f.Format), Taken: oneLine(stateTaken(f, z)), Objects: f.Objects})
	}
	for _, in := range tl.Inputs {
		if f := snap.File(in.Path); f != nil {
			add(f)
		}
	}
	for _, f := range stateOnlyFiles(tl, snap) {
		add(f)
	}
	return out
}

// stateFileProblems are the problems with the state files, as
// "path:line: message".
func stateFileProblems(tl *timeline.Timeline) []string {
	var out []string
	for _, p := range stateOf(tl).Problems {
		loc := oneLine(p.Path)
		if p.Line > 0 {
			loc += fmt.Sprintf(":%d", p.Line)
		}
		out = append(out, loc+": "+oneLine(p.Message))
	}
	return out
}

// inputCount is how many inputs the reports' headers name: the logs and
// the state files no log input was made of.
func inputCount(tl *timeline.Timeline) int {
	return len(tl.Inputs) + len(stateOnlyFiles(tl, stateOf(tl)))
}

// stateProblems are the snapshot's problems with the file f, as input
// problems.
func stateProblems(snap *state.Snapshot, f *state.File) []parser.Problem {
	var out []parser.Problem
	for _, p := range snap.Problems {
		if p.Path == f.Path {
			out = append(out, parser.Problem{Line: p.Line, Message: p.Message})
		}
	}
	return out
}

// stateOf is the snapshot the timeline was built with, empty when none
// (shown even when it shared no volume with the logs).
func stateOf(tl *timeline.Timeline) *state.Snapshot {
	if tl.StateRead != nil {
		return tl.StateRead
	}
	return &state.Snapshot{}
}

func addStateFile(w *wireInput, snap *state.Snapshot, f *state.File) {
	w.Role, w.Objects, w.Taken, w.TakenFrom = f.Role, f.Objects, ts(f.Taken), f.TakenFrom
	for _, p := range snap.Problems {
		if p.Path == f.Path {
			w.Problems = append(w.Problems, wireProblem{Line: p.Line, Message: Sanitize(p.Message)})
		}
	}
}

// verdictLabel is a check's verdict as the text report shows it.
func verdictLabel(c rules.Check) string {
	return fmt.Sprintf("%s (%s)", c.Verdict, c.Check)
}

// splitEvidence separates log lines from cluster-state lines, in order.
func splitEvidence(ev []rules.Evidence) (logs, objs []rules.Evidence) {
	for _, e := range ev {
		if e.SourceKind == rules.SourceState {
			objs = append(objs, e)
		} else {
			logs = append(logs, e)
		}
	}
	if len(objs) == 0 {
		return ev, nil
	}
	return logs, objs
}

// writeChecks writes what the cluster state said, one check a line under
// a "state" label: "confirmed (zone): the disk is in …".
func writeChecks(t *textWriter, st *styles, cs []rules.Check, width int) {
	for _, c := range cs {
		t.hanging("  ", "state ", st.Label, verdictLabel(c)+": "+oneLine(c.Text), width)
	}
}

// writeMDChecks writes the checks as a list under "Cluster state".
func writeMDChecks(m *mdWriter, cs []rules.Check) {
	if len(cs) == 0 {
		return
	}
	m.p("Cluster state:\n\n")
	for _, c := range cs {
		m.p("- **%s** (%s): %s\n", c.Verdict, mdText(c.Check), mdText(c.Text))
	}
	m.p("\n")
}

// capEvidence keeps the first n log lines of ev and every cluster-state
// line (the objects that answer the checks are never cut), in order.
func capEvidence(ev []rules.Evidence, n int) []rules.Evidence {
	if len(ev) <= n {
		return ev
	}
	var out []rules.Evidence
	logs := 0
	for _, e := range ev {
		if e.SourceKind != rules.SourceState {
			if logs == n {
				continue
			}
			logs++
		}
		out = append(out, e)
	}
	return out
}
