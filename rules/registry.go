package rules

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/textdist"
)

var (
	registryMu sync.Mutex
	registry   = map[string]Rule{}
)

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// Register adds r to the registry and returns it, so that a rule file can
// register itself from a package-level var:
//
//	var ruleForceDetach = Register(Rule{Name: "force-detach", …})
//
// It panics on a programming error (empty or non-kebab name, duplicate name,
// missing check, a parameter default that does not parse): those are bugs in
// this package, caught by its tests, never caused by input.
func Register(r Rule) Rule {
	registryMu.Lock()
	defer registryMu.Unlock()
	if !kebab.MatchString(r.Name) {
		panic(fmt.Sprintf("rules: rule name %q is not kebab-case", r.Name))
	}
	if _, dup := registry[r.Name]; dup {
		panic(fmt.Sprintf("rules: rule %q registered twice", r.Name))
	}
	if r.Check == nil {
		panic(fmt.Sprintf("rules: rule %q has no Check", r.Name))
	}
	seen := map[string]bool{}
	for _, p := range r.Params {
		if !kebab.MatchString(p.Key) || seen[p.Key] {
			panic(fmt.Sprintf("rules: rule %q: bad or duplicate parameter key %q", r.Name, p.Key))
		}
		seen[p.Key] = true
		if _, err := parseParam(p, p.Default); err != nil {
			panic(fmt.Sprintf("rules: rule %q: default of %q: %v", r.Name, p.Key, err))
		}
	}
	registry[r.Name] = r
	return r
}

// All returns every registered rule, sorted by name.
func All() []Rule {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered rule names, sorted.
func Names() []string {
	var out []string
	for _, r := range All() {
		out = append(out, r.Name)
	}
	return out
}

// Lookup returns the rule with the given name.
func Lookup(name string) (Rule, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	r, ok := registry[name]
	return r, ok
}

// paramKind is how a parameter's value is parsed; it follows the default.
type paramKind int

const (
	kindString paramKind = iota
	kindInt
	kindDuration
)

func kindOf(p Param) paramKind {
	if _, err := strconv.Atoi(p.Default); err == nil {
		return kindInt
	}
	if _, err := time.ParseDuration(p.Default); err == nil {
		return kindDuration
	}
	return kindString
}

// parseParam checks value against p's kind and returns it normalised.
func parseParam(p Param, value string) (string, error) {
	value = strings.TrimSpace(value)
	switch kindOf(p) {
	case kindInt:
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return "", fmt.Errorf("%q is not a non-negative integer", value)
		}
		return strconv.Itoa(n), nil
	case kindDuration:
		d, err := time.ParseDuration(value)
		if err != nil || d < 0 {
			return "", fmt.Errorf("%q is not a duration like 90s, 2m or 1h30m", value)
		}
		return d.String(), nil
	}
	return value, nil
}

// Suggest returns the registered rule name closest to name, or "" when none
// is close (for "did you mean" messages).
func Suggest(name string) string { return suggest(name, Names()) }

// Closest is the candidate closest to s (a typo's did-you-mean), or "".
func Closest(s string, candidates []string) string { return suggest(s, candidates) }

// suggest returns the candidate closest to s, or "" when none is close.
func suggest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := textdist.Levenshtein(s, c); d < bestD || (strings.Contains(c, s) && len(s) >= 4 && best == "") {
			best, bestD = c, d
		}
	}
	return best
}

func paramKeys(r Rule) []string {
	var keys []string
	for _, p := range r.Params {
		keys = append(keys, p.Key)
	}
	slices.Sort(keys)
	return keys
}

// registered returns a snapshot of the registry, by name.
func registered() map[string]Rule {
	registryMu.Lock()
	defer registryMu.Unlock()
	return maps.Clone(registry)
}
