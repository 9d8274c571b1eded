package main

// What a run's inputs amounted to: the exit code they decide, and the notes
// that keep an empty answer from looking like a clean one.

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/timeline"
)

// loadView loads and selects like loadSelected, then says on stderr when
// the window left nothing of logs that had events.
func (f *inputFlags) loadView(e env, query string) (*loaded, []*timeline.Volume, error) {
	l, vols, err := f.loadSelected(e, query)
	if err != nil {
		return nil, nil, err
	}
	if note := f.windowNote(l); note != "" {
		fmt.Fprintf(e.stderr, "kcmtrace: note: %s\n", oneLine(note))
	}
	return l, vols, nil
}

// windowNote explains an empty --since/--until window.
func (f *inputFlags) windowNote(l *loaded) string {
	if f.Since == "" && f.Until == "" || !l.yielded || l.events > 0 {
		return ""
	}
	var first, last time.Time
	for _, in := range l.timeline.Inputs {
		if !in.First.IsZero() && (first.IsZero() || in.First.Before(first)) {
			first = in.First
		}
		if in.Last.After(last) {
			last = in.Last
		}
	}
	span := ""
	if !first.IsZero() {
		span = fmt.Sprintf("; the logs run from %s to %s", first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	}
	var flags []string
	if f.Since != "" {
		flags = append(flags, "--since "+f.Since)
	}
	if f.Until != "" {
		flags = append(flags, "--until "+f.Until)
	}
	return fmt.Sprintf("no event inside %s%s", strings.Join(flags, " "), span)
}

// exitErr is the exit an otherwise successful run ends with: 3 when an
// input could not be read, or when no input yielded any event (a file that
// is not a log must not pass for a clean bill of health) and found is
// false — analyze's findings from cluster state alone (a VolumeAttachment
// stuck detaching) are an analysis.
func (l *loaded) exitErr(found bool) error {
	if l.readErrs > 0 {
		return &codeError{code: exitInput}
	}
	if !l.yielded && !found {
		var names []string
		for _, in := range l.timeline.Inputs {
			names = append(names, in.Path)
		}
		if snap := l.timeline.StateRead; len(names) == 0 && snap != nil && len(snap.Files) > 0 {
			// only cluster state: it answers what the logs' findings ask
			for _, f := range snap.Files {
				names = append(names, f.Path)
			}
			return &codeError{code: exitInput, msg: fmt.Sprintf("no log was given, only cluster state (%s): the state confirms or contradicts what the logs show, so nothing was analysed; add the kube-controller-manager and kubelet logs", oneLine(strings.Join(names, ", ")))}
		}
		what := "no input"
		if len(names) > 0 {
			what = oneOf(names)
		}
		return &codeError{code: exitInput, msg: fmt.Sprintf("no input yielded any event (%s: not a kube-controller-manager, kubelet or events log?): nothing was analysed, so no finding means nothing", oneLine(what))}
	}
	return nil
}
