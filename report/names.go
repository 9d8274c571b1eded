package report

import (
	"fmt"
	"sort"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// Names and small list helpers shared by the renderers.

// volumeLabel is the name a human knows a volume by: the PV, else the handle, else the key.
func volumeLabel(v *timeline.Volume) string {
	switch {
	case v == nil:
		return "?"
	case v.PV != "":
		return v.PV
	case v.Handle != "":
		return v.Handle
	case v.Key() != "":
		return v.Key()
	}
	return v.UniqueName
}

// findVolume returns the timeline volume a finding or incident names.
func findVolume(tl *timeline.Timeline, name, pv string) *timeline.Volume {
	if tl == nil {
		return nil
	}
	for _, v := range tl.Volumes {
		if name != "" && (v.Key() == name || v.UniqueName == name) {
			return v
		}
	}
	for _, v := range tl.Volumes {
		for _, n := range v.Names() {
			if n == name && name != "" || n == pv && pv != "" {
				return v
			}
		}
		if pv != "" && v.PV == pv {
			return v
		}
	}
	return nil
}

// findingsOn counts the findings on each volume of tl: the volume
// findVolume finds for the finding's names, its index of the volumes'
// keys and UniqueNames built once (the first volume of a name wins, as
// in findVolume), findVolume itself asked only when that misses.
func findingsOn(tl *timeline.Timeline, fs []rules.Finding) map[*timeline.Volume]int {
	on := map[*timeline.Volume]int{}
	if tl == nil || len(fs) == 0 {
		return on
	}
	byName := make(map[string]*timeline.Volume, 2*len(tl.Volumes))
	for _, v := range tl.Volumes {
		for _, n := range [2]string{v.Key(), v.UniqueName} {
			if _, ok := byName[n]; !ok && n != "" {
				byName[n] = v
			}
		}
	}
	for _, f := range fs {
		v := byName[f.Volume]
		if v == nil || f.Volume == "" {
			v = findVolume(tl, f.Volume, f.PV)
		}
		if v != nil {
			on[v]++
		}
	}
	return on
}

// plural is "1 finding" / "4 findings".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}
