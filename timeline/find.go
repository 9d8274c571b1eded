package timeline

import (
	"github.com/kcmtrace/kcmtrace/internal/textdist"
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/sahilm/fuzzy"
)

// maxSuggestions is how many "did you mean" names a failed lookup returns.
const maxSuggestions = 3

// Find returns the volumes matching query over every name each volume was
// seen under (UniqueName, PV, handle, VolumeAttachment names, pod volume
// names). Exact matches (case-insensitive) win, then substring matches, then
// sahilm/fuzzy subsequence matches ranked by score. With no match,
// suggestions holds the closest names by edit distance.
func (t *Timeline) Find(query string) (matches []*Volume, suggestions []string) {
	var names []string
	var owner []*Volume
	for _, v := range t.Volumes {
		for _, n := range v.Names() {
			names = append(names, n)
			owner = append(owner, v)
		}
	}
	idx := lookup(query, names)
	if len(idx) == 0 {
		return nil, suggest(query, names)
	}
	seen := map[*Volume]bool{}
	for _, i := range idx {
		if v := owner[i]; !seen[v] {
			seen[v] = true
			matches = append(matches, v)
		}
	}
	return matches, nil
}

// FilterNode returns the volumes that touch a node matching q (same matching
// as Find), in timeline order, or suggestions when no node matches.
func (t *Timeline) FilterNode(q string) ([]*Volume, []string) {
	return t.filter(q, func(v *Volume) []string { return v.Nodes() })
}

// FilterPod returns the volumes used by a pod matching q ("ns/name" or
// "name"), or suggestions when no pod matches.
func (t *Timeline) FilterPod(q string) ([]*Volume, []string) {
	return t.filter(q, func(v *Volume) []string { return v.Pods() })
}

func (t *Timeline) filter(q string, keys func(*Volume) []string) ([]*Volume, []string) {
	set := map[string]bool{}
	for _, v := range t.Volumes {
		for _, k := range keys(v) {
			set[k] = true
		}
	}
	var names []string
	for k := range set {
		names = append(names, k)
	}
	slices.Sort(names)
	idx := lookup(q, names)
	if len(idx) == 0 {
		return nil, suggest(q, names)
	}
	hit := map[string]bool{}
	for _, i := range idx {
		hit[names[i]] = true
	}
	var out []*Volume
	for _, v := range t.Volumes {
		for _, k := range keys(v) {
			if hit[k] {
				out = append(out, v)
				break
			}
		}
	}
	return out, nil
}

// lookup returns indexes into names: exact (case-insensitive) matches, else
// substring matches, else fuzzy matches, best first.
func lookup(q string, names []string) []int {
	q = strings.TrimSpace(q)
	if q == "" {
		return nil
	}
	lq := strings.ToLower(q)
	var exact, sub []int
	for i, n := range names {
		ln := strings.ToLower(n)
		switch {
		case ln == lq:
			exact = append(exact, i)
		case strings.Contains(ln, lq):
			sub = append(sub, i)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	if len(sub) > 0 {
		return sub
	}
	var out []int
	for _, m := range fuzzy.Find(q, names) {
		out = append(out, m.Index)
	}
	return out
}

// suggest returns up to maxSuggestions names closest to q by edit distance
// (case-insensitive), skipping names too far away to be a typo.
func suggest(q string, names []string) []string {
	type cand struct {
		name string
		d    int
	}
	lq := strings.ToLower(strings.TrimSpace(q))
	if lq == "" {
		return nil
	}
	var cs []cand
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		ln := strings.ToLower(n)
		d := textdist.Levenshtein(lq, ln)
		// compare with the best-aligned part of a long name, too
		if len(ln) > len(lq)+2 {
			if d2 := textdist.Substring(lq, ln); d2 < d {
				d = d2
			}
		}
		if d <= max(2, len([]rune(lq))/3) {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		if len(a.name) != len(b.name) {
			return len(a.name) - len(b.name)
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(cs) && i < maxSuggestions; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// Stats are per-volume counters for the `volumes` table, each occurrence
// counted once (Tally): an Event echo linked to the log line it repeats is
// not counted again, describe rows count with their (xN) count when no log
// line reports the class.
type Stats struct {
	Events         int
	Attaches       int // attach-succeeded
	AttachFailures int
	Detaches       int // detach-succeeded
	DetachFailures int
	MountFailures  int // wait-for-attach / mount-device / setup failures, mount timeouts
	MultiAttach    int
	ForceDetaches  int
	Unknown        int
}

// Stats counts the volume's events.
func (v *Volume) Stats() Stats {
	var att, det, multi, force, unk Tally
	var fails FailureTally
	for i := range v.Events {
		ev := &v.Events[i]
		fails.Add(ev)
		switch ev.Kind {
		case parser.AttachSucceeded:
			att.Add(ev)
		case parser.DetachSucceeded:
			det.Add(ev)
		case parser.MultiAttach:
			multi.Add(ev)
		case parser.ForceDetach:
			force.Add(ev)
		case parser.Unknown:
			unk.Add(ev)
		}
	}
	s := Stats{Events: len(v.Events), Attaches: att.N(), Detaches: det.N(), MultiAttach: multi.N(), ForceDetaches: force.N(), Unknown: unk.N()}
	s.AttachFailures, s.DetachFailures, s.MountFailures = fails.Counts()
	return s
}
