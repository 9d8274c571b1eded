package main

// --skew FILE=DURATION names an input the way a person does: the path as
// given, or the tail of a path found in a directory or archive
// (kubelet.log, node-a/kubelet.log).

import (
	"path/filepath"
	"slices"
	"strings"
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
	out := make(map[string]time.Duration, len(flags))
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		matches := skewMatches(name, paths)
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

// skewMatches are the paths equal to name or ending in /name.
func skewMatches(name string, paths []string) []string {
	want := filepath.ToSlash(filepath.Clean(name))
	var exact, tail []string
	for _, p := range paths {
		sp := filepath.ToSlash(filepath.Clean(p))
		switch {
		case sp == want:
			exact = append(exact, p)
		case strings.HasSuffix(sp, "/"+want):
			tail = append(tail, p)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return tail
}
