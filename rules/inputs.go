package rules

import (
	"slices"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Findings without a volume identity are read from the timeline's unjoined
// events (Timeline.Other): pod-level mount timeouts, node-level limits,
// describe rows naming no volume. Nothing ties the unjoined events of two
// inputs together — two unrelated clusters' logs in one directory — so
// such findings are made one input at a time, and each carries its input
// (Finding.Input).

// otherInputs returns the paths of the inputs tl's unjoined events come
// from, in input order.
func otherInputs(tl *timeline.Timeline) []string {
	var paths []string
	seen := map[int]bool{}
	for i := range tl.Other {
		s := tl.Other[i].Source
		if !seen[int(s.Input)] {
			seen[int(s.Input)] = true
			paths = append(paths, s.Path())
		}
	}
	return paths
}

// findingInput is the one input path f's log evidence is from: "" when it
// quotes no log line, and mixed set when it quotes several inputs.
func findingInput(f *Finding) (path string, mixed bool) {
	for _, e := range f.Evidence {
		if e.SourceKind != "" || e.Path == "" {
			continue
		}
		if path == "" {
			path = e.Path
		} else if e.Path != path {
			return path, true
		}
	}
	return path, false
}

// separateInputs redoes the volume-less findings of fs one input at a time
// when one of them quotes lines of several inputs: check runs the rules
// over a timeline; each input's run keeps the volume-less findings quoting
// that input only. Findings with a volume, and volume-less ones quoting no
// log line, are kept from fs. Every volume-less finding gets its Input.
func separateInputs(tl *timeline.Timeline, fs []Finding, check func(*timeline.Timeline) []Finding) []Finding {
	paths := otherInputs(tl)
	mixed := slices.ContainsFunc(fs, func(f Finding) bool {
		_, m := findingInput(&f)
		return f.Volume == "" && m
	})
	if len(paths) > 1 && mixed {
		kept := slices.DeleteFunc(fs, func(f Finding) bool {
			p, _ := findingInput(&f)
			return f.Volume == "" && p != ""
		})
		for _, p := range paths {
			one := *tl
			one.Other = slices.DeleteFunc(slices.Clone(tl.Other), func(e parser.Event) bool { return e.Source.Path() != p })
			for _, f := range check(&one) {
				if q, m := findingInput(&f); f.Volume == "" && q == p && !m {
					kept = append(kept, f)
				}
			}
		}
		fs = kept
	}
	for i := range fs {
		if fs[i].Volume == "" {
			fs[i].Input, _ = findingInput(&fs[i])
		}
	}
	return fs
}
