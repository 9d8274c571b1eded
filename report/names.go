package report

import (
	"fmt"
	"sort"

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
		if v.HasName(name) || v.HasName(pv) {
			return v
		}
		if pv != "" && v.PV == pv {
			return v
		}
	}
	return nil
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
