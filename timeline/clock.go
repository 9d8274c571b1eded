package timeline

import (
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// restartTolerance is how far the process start estimated from m=+ may move
// before it counts as a new process.
const restartTolerance = 2 * time.Second

// detectRestarts finds controller restarts and leader changes in merged
// events: controller-started events, the process start implied by m=+
// moving forward (m=+ went down) per component, and a PID change within one
// KCM input.
func detectRestarts(items []item, comps []string) []Restart {
	var out []Restart
	starts := map[string]time.Time{} // component (+node for kubelets) → estimated process start
	lastPID := map[int]int{}         // KCM input → pid
	for k := range items {
		ev := &items[k].ev
		if ev.Time.IsZero() {
			continue
		}
		if ev.Kind == parser.ControllerStarted {
			reason := "controller-started"
			d := strings.ToLower(ev.Detail + " " + ev.Reason)
			if strings.Contains(d, "leader") || strings.Contains(d, "lease") {
				reason = "leader-elected"
			}
			out = append(out, Restart{Time: ev.Time, Source: ev.Source, Reason: reason, Component: parser.ComponentKCM})
		}
		if ev.Origin != "" {
			continue
		}
		if ev.Retry != nil && ev.Retry.Mono > 0 && (ev.Component == parser.ComponentKCM || ev.Component == parser.ComponentKubelet) {
			key := ev.Component
			if ev.Component == parser.ComponentKubelet {
				key += "/" + ev.Node
			}
			start := ev.Time.Add(ev.Retry.Backoff).Add(-time.Duration(ev.Retry.Mono * float64(time.Second)))
			if prev, ok := starts[key]; ok && start.Sub(prev) > restartTolerance {
				r := Restart{Time: ev.Time, Source: ev.Source, Reason: "monotonic-clock-reset", Component: ev.Component}
				if ev.Component == parser.ComponentKubelet {
					r.Node = ev.Node
				}
				out = append(out, r)
			}
			if prev, ok := starts[key]; !ok || start.After(prev) {
				starts[key] = start
			}
		}
		if comps[items[k].input] == parser.ComponentKCM && ev.PID > 0 {
			in := items[k].input
			if p, ok := lastPID[in]; ok && p != ev.PID {
				out = append(out, Restart{Time: ev.Time, Source: ev.Source, Reason: "pid-changed", Component: parser.ComponentKCM})
			}
			lastPID[in] = ev.PID
		}
	}
	return out
}

// skewEpsilon is added to a lower bound so the corrected kubelet fact lands
// strictly after the controller's.
const skewEpsilon = time.Millisecond

// skewWindow bounds how far apart a controller attach and the kubelet's
// confirmation may be to count as one ordered pair.
const skewWindow = 10 * time.Minute

// estimateSkews returns one Skew per non-KCM input: the flag value when
// given, else an estimate from ordered pairs. For each kubelet
// "Controller attach succeeded" / "WaitForAttach succeeded" for (V, N) the
// controller's "AttachVolume.Attach succeeded" for (V, N) must come first.
// The pair is the latest controller success at or before the kubelet fact;
// when there is none within skewWindow, the earliest one after it, and the
// kubelet clock is then at least that far behind. The offset is the largest
// such lower bound (+1 ms), or 0 when every pair is already in order: the
// pairs only bound the offset from below, so a kubelet clock that runs ahead
// is not corrected.
func estimateSkews(items []item, results []parser.Result, comps []string, flags map[string]time.Duration) []Skew {
	type pairKey struct{ ref, node string }
	attaches := map[pairKey][]time.Time{}
	hasKCM := false
	for k := range items {
		ev := &items[k].ev
		if comps[items[k].input] != parser.ComponentKCM {
			continue
		}
		hasKCM = true
		if ev.Kind == parser.AttachSucceeded && ev.Origin == "" && ev.Node != "" && !ev.Time.IsZero() {
			for _, r := range refs(ev) {
				attaches[pairKey{r, ev.Node}] = append(attaches[pairKey{r, ev.Node}], ev.Time)
			}
		}
	}
	for _, a := range attaches {
		slices.SortFunc(a, func(x, y time.Time) int { return x.Compare(y) })
	}
	byInput := make([][]int, len(results))
	for k := range items {
		byInput[items[k].input] = append(byInput[items[k].input], k)
	}
	var out []Skew
	for i := range results {
		path := results[i].Input.Path
		if d, ok := flags[path]; ok {
			out = append(out, Skew{Path: path, Offset: d, From: "flag"})
			continue
		}
		if comps[i] == parser.ComponentKCM {
			continue
		}
		if comps[i] != parser.ComponentKubelet || !hasKCM {
			continue
		}
		var best time.Duration
		pairs := 0
		for _, k := range byInput[i] {
			ev := &items[k].ev
			if ev.Kind != parser.VerifyAttachedSucceeded && ev.Kind != parser.WaitForAttachSucceeded {
				continue
			}
			if ev.Node == "" || ev.Time.IsZero() || ev.Origin != "" {
				continue
			}
			for _, r := range refs(ev) {
				a := attaches[pairKey{r, ev.Node}]
				if len(a) == 0 {
					continue
				}
				j, found := slices.BinarySearchFunc(a, ev.Time, func(x, t time.Time) int { return x.Compare(t) })
				if found {
					j++
				}
				if j > 0 && ev.Time.Sub(a[j-1]) <= skewWindow {
					pairs++ // in order
					break
				}
				if j < len(a) && a[j].Sub(ev.Time) <= skewWindow {
					pairs++
					if d := a[j].Sub(ev.Time) + skewEpsilon; d > best {
						best = d
					}
				}
				break
			}
		}
		s := Skew{Path: path, Offset: best, Pairs: pairs, From: "estimated"}
		if pairs == 0 {
			s.From = "none"
		}
		out = append(out, s)
	}
	return out
}
