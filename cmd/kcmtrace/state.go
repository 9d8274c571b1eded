package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// This file routes cluster-state inputs (kubectl get -o json|yaml, Event
// lists, kubectl describe of PV/PVC/Node/VolumeAttachment) to a
// state.Snapshot, turns their Event objects into timeline events, and
// prints the snapshot's problems.

// stateSample is how much of a file state.Detect sees.
const stateSample = 64 << 10

// routeState reads the inputs state.Detect claims (files given, and files
// inside directories given) into a Snapshot and returns the paths the log
// parser is to read: the others, plus describe output with Events rows,
// which the parser reads too. A directory holding state files is replaced by its log
// files. nil when no input is state (or a format is forced).
func routeState(paths []string, forced bool) ([]string, *state.Snapshot) {
	if forced {
		return paths, nil
	}
	snap := &state.Snapshot{}
	var logs []string
	for _, p := range paths {
		if p == "-" {
			logs = append(logs, p)
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil: // the parser reports it
			logs = append(logs, p)
		case !fi.IsDir():
			if readState(snap, p) != "" {
				continue
			}
			logs = append(logs, p)
		default:
			logs = append(logs, stateDir(snap, p)...)
		}
	}
	if len(snap.Files) == 0 {
		return paths, nil
	}
	return logs, snap
}

// stateDir reads the state files of a directory into snap and returns what
// the parser is to read of it: the directory itself when it holds no state
// file, else its log files that were not read as state only.
func stateDir(snap *state.Snapshot, dir string) []string {
	dumps := map[string]bool{}
	found := false
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if readState(snap, path) != "" {
			found = true
			dumps[path] = true
		}
		return nil
	})
	if !found {
		return []string{dir}
	}
	files, _ := parser.LogFiles(dir) // none left is no error: the state was read
	return slices.DeleteFunc(files, func(f string) bool { return dumps[f] })
}

// readState reads path into snap when state.Detect claims its first bytes
// and returns the format read: "" when it is not state, and also for
// describe output with Events rows, which the log parser is to read as
// well.
func readState(snap *state.Snapshot, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sample := stateSample
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() < stateSample {
		sample = int(fi.Size()) + 1 // a small log: no 64 KiB for each of thousands
	}
	buf := make([]byte, sample)
	n, _ := io.ReadFull(f, buf)
	if n >= 2 && buf[0] == 0x1f && buf[1] == 0x8b { // gzip: detect what it holds
		zr, err := gzip.NewReader(io.MultiReader(bytes.NewReader(buf[:n]), f))
		if err != nil {
			return ""
		}
		buf = make([]byte, stateSample)
		n, _ = io.ReadFull(zr, buf)
	}
	if _, ok := state.Detect(buf[:n]); !ok {
		return ""
	}
	if err := snap.ReadFile(path); err != nil {
		return ""
	}
	sf := snap.File(path)
	if sf == nil || sf.Format == "describe" && hasEventRows(buf[:n]) {
		return ""
	}
	return sf.Format
}

// hasEventRows reports whether describe output has an Events table with
// rows ("Events:  <none>" has none).
func hasEventRows(data []byte) bool {
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "Events:"); ok {
			return strings.TrimSpace(rest) != "<none>"
		}
	}
	return false
}

// eventResults turns the snapshot's Event objects into one parse result
// per file, classified as the describe rows they mirror
// (parser.ClassifyEventObject); first is the index of the first result
// among all inputs.
func eventResults(snap *state.Snapshot, first int) []parser.Result {
	if snap == nil {
		return nil
	}
	byPath := map[string]*parser.Result{}
	var out []*parser.Result
	for _, e := range snap.Events {
		path := e.Source.Path
		r := byPath[path]
		if r == nil {
			r = &parser.Result{Input: parser.Input{Path: path, Component: parser.ComponentEvents.String(), Wrapper: "none", Format: "events-" + e.Source.Format}}
			if fi, err := os.Stat(path); err == nil {
				r.Input.Bytes = fi.Size()
			}
			byPath[path] = r
			out = append(out, r)
		}
		ev, ok := parser.ClassifyEventObject(parser.EventObject{
			Type: e.Type, Reason: e.Reason, Message: e.Message,
			Kind: e.Involved.Kind, Namespace: e.Involved.Namespace, Name: e.Involved.Name,
			Component: e.Component, Host: e.Host, Count: e.Count, First: e.First, Last: e.Last,
			Source: parser.Source{File: parser.InternPath(path), Line: parser.Int32(e.Source.Line), Input: parser.Int32(first + len(out) - 1)},
			Text:   snap.EventEvidence(e).Text,
		})
		if !ok {
			continue
		}
		in := &r.Input
		in.Events++
		if ev.Kind == parser.Unknown {
			in.Unknown++
		}
		if !ev.Time.IsZero() {
			if in.First.IsZero() || ev.Time.UTC().Before(in.First) {
				in.First = ev.Time.UTC()
			}
			if ev.Time.UTC().After(in.Last) {
				in.Last = ev.Time.UTC()
			}
			in.Year, in.YearFrom, in.Zone, in.ZoneFrom = ev.Time.UTC().Year(), "event", "+00:00", "event"
		}
		r.Events = append(r.Events, ev)
	}
	res := make([]parser.Result, len(out))
	for i, r := range out {
		res[i] = *r
	}
	return res
}

// reportStateProblems prints the snapshot's problems on stderr, at most
// maxProblemsShown per file.
func reportStateProblems(e env, snap *state.Snapshot) {
	if snap == nil {
		return
	}
	shown := map[string]int{}
	for _, p := range snap.Problems {
		shown[p.Path]++
		switch n := shown[p.Path]; {
		case n <= maxProblemsShown:
			fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(p.String()))
		case n == maxProblemsShown+1:
			fmt.Fprintf(e.stderr, "kcmtrace: %s: more problems not shown\n", oneLine(p.Path))
		}
	}
}
