package main

// --skew FILE=DURATION names an input the way a person does: the path as
// given, or the tail of a path found in a directory or archive
// (kubelet.log, node-a/kubelet.log).

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// resolveSkews keys each --skew by the input path it names. A name no input
// has, or that fits several, is a usage error.
func resolveSkews(flags map[string]time.Duration, results []parser.Result) (map[string]time.Duration, error) {
	if len(flags) == 0 {
		return flags, nil
	}
	var paths []string
	for _, r := range results {
		paths = append(paths, r.Input.Path)
	}
	idx := indexSkewNames(paths)
	out := make(map[string]time.Duration, len(flags))
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		matches := idx.matches(name)
		switch len(matches) {
		case 0:
			return nil, usageErr("--skew %s: no input is named %s; the inputs are %s", name, name, oneOf(paths))
		case 1:
			out[matches[0]] = flags[name]
		default:
			return nil, usageErr("--skew %s: %s fits %s; give more of the path", name, name, oneOf(matches))
		}
	}
	return out, nil
}

// skewNames indexes the input paths by the names a --skew may give them, so
// that resolving many flags against many inputs (a must-gather) is linear in
// the paths' components rather than flags × inputs.
type skewNames struct {
	exact map[string][]string // cleaned path → the paths, in input order
	tail  map[string][]string // what follows a "/" of a cleaned path → the paths
}

func indexSkewNames(paths []string) skewNames {
	idx := skewNames{exact: map[string][]string{}, tail: map[string][]string{}}
	for _, p := range paths {
		sp := filepath.ToSlash(filepath.Clean(p))
		idx.exact[sp] = append(idx.exact[sp], p)
		for i := range len(sp) {
			if sp[i] == '/' {
				idx.tail[sp[i+1:]] = append(idx.tail[sp[i+1:]], p)
			}
		}
	}
	return idx
}

// matches are the paths equal to name or, when none is, ending in /name.
func (idx skewNames) matches(name string) []string {
	want := filepath.ToSlash(filepath.Clean(name))
	if m := idx.exact[want]; len(m) > 0 {
		return m
	}
	return idx.tail[want]
}
