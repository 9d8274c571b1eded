package timeline

import (
	"fmt"
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
func detectRestarts(evs []parser.Event, in []int32, ord []int32, comps []parser.Component) []Restart {
	var out []Restart
	starts := map[string]parser.Stamp{} // component (+node for kubelets) → estimated process start
	lastPID := map[int32]int{}          // KCM input → pid
	for _, k := range ord {
		ev := &evs[k]
		if ev.Time.IsZero() {
			continue
		}
		if ev.Kind == parser.ControllerStarted {
			reason := "controller-started"
			d := strings.ToLower(ev.Detail + " " + ev.Reason)
			if strings.Contains(d, "leader") || strings.Contains(d, "lease") {
				reason = "leader-elected"
			}
			out = append(out, Restart{Time: ev.Time.UTC(), Source: ev.Source, Reason: reason, Component: parser.ComponentKCM.String()})
		}
		if ev.Origin != 0 {
			continue
		}
		if ev.Retry != nil && ev.Retry.Mono > 0 && (ev.Component == parser.ComponentKCM || ev.Component == parser.ComponentKubelet) {
			key := ev.Component.String()
			if ev.Component == parser.ComponentKubelet {
				key += "/" + ev.Node
			}
			start := ev.Time.Add(ev.Retry.Backoff).Add(-time.Duration(ev.Retry.Mono * float64(time.Second)))
			if prev, ok := starts[key]; ok && start.Sub(prev) > restartTolerance {
				r := Restart{Time: ev.Time.UTC(), Source: ev.Source, Reason: "monotonic-clock-reset", Component: ev.Component.String()}
				if ev.Component == parser.ComponentKubelet {
					r.Node = ev.Node
				}
				out = append(out, r)
			}
			if prev, ok := starts[key]; !ok || start.After(prev) {
				starts[key] = start
			}
		}
		if comps[in[k]] == parser.ComponentKCM && ev.PID > 0 {
			in := in[k]
			if p, ok := lastPID[in]; ok && p != int(ev.PID) {
				out = append(out, Restart{Time: ev.Time.UTC(), Source: ev.Source, Reason: "pid-changed", Component: parser.ComponentKCM.String()})
			}
			lastPID[in] = int(ev.PID)
		}
	}
	return collapseRestarts(out)
}

// restartBurst is how close together restart signals of one component (and
// node) are taken as one restart: a starting controller manager logs a
// `Started "…"` line per controller, and a leader election, the attach/detach
// controller's start and a new pid arrive within seconds of each other.
const restartBurst = 2 * time.Minute

// collapseRestarts keeps the first restart of each burst of one signal (out
// is in time order); different signals (leader election, pid change, clock
// reset) stay separate so each can be cited.
func collapseRestarts(out []Restart) []Restart {
	last := map[string]time.Time{}
	kept := out[:0]
	for _, r := range out {
		key := r.Component + "/" + r.Node + "/" + r.Reason
		if t, ok := last[key]; ok && r.Time.Sub(t) < restartBurst {
			continue
		}
		last[key] = r.Time
		kept = append(kept, r)
	}
	return kept
}

// skewEpsilon is added to a lower bound so the corrected kubelet fact lands
// strictly after the controller's.
const skewEpsilon = time.Millisecond

// skewFlagMax bounds the gaps that flag a clock as too far behind for
// the estimate (skewWindow): beyond a day the pair is not one attach.
const skewFlagMax = 24 * time.Hour

// shortDur formats a duration without zero units: 25m, 1h30m, 10m.
func shortDur(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

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
// is not corrected. attaches are the controller's attaches in KCM inputs
// (see skewAttach), in event order.
func estimateSkews(evs []parser.Event, attaches []int32, bounds []int, inputs []parser.Input, comps []parser.Component, flags map[string]time.Duration) []Skew {
	type pairKey struct{ ref, node string }
	paired := map[pairKey][]parser.Stamp{}
	hasKCM := false
	var buf [4]string
	// Only the nodes named by the kubelet facts read below are looked up:
	// a controller attach to another node is never paired.
	nodes := map[string]bool{}
	for i := range inputs {
		if _, ok := flags[inputs[i].Path]; ok || comps[i] != parser.ComponentKubelet {
			continue
		}
		for k := bounds[i]; k < bounds[i+1]; k++ {
			ev := &evs[k]
			if (ev.Kind == parser.VerifyAttachedSucceeded || ev.Kind == parser.WaitForAttachSucceeded) && ev.Node != "" {
				nodes[ev.Node] = true
			}
		}
	}
	for i := range comps {
		hasKCM = hasKCM || comps[i] == parser.ComponentKCM && bounds[i+1] > bounds[i]
	}
	// The controller's attaches to those nodes, by volume reference and node.
	for _, k := range attaches {
		ev := &evs[k]
		if nodes[ev.Node] {
			for _, r := range refs(ev, &buf) {
				paired[pairKey{r, ev.Node}] = append(paired[pairKey{r, ev.Node}], ev.Time)
			}
		}
	}
	for _, a := range paired {
		slices.SortFunc(a, func(x, y parser.Stamp) int { return x.Compare(y) })
	}
	var out []Skew
	for i := range inputs {
		path := inputs[i].Path
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
		var best, nearFar time.Duration
		pairs, far := 0, 0
		for k := bounds[i]; k < bounds[i+1]; k++ {
			ev := &evs[k]
			if ev.Kind != parser.VerifyAttachedSucceeded && ev.Kind != parser.WaitForAttachSucceeded {
				continue
			}
			if ev.Node == "" || ev.Time.IsZero() || ev.Origin != 0 {
				continue
			}
			for _, r := range refs(ev, &buf) {
				a := paired[pairKey{r, ev.Node}]
				if len(a) == 0 {
					continue
				}
				j, found := slices.BinarySearchFunc(a, ev.Time, func(x, t parser.Stamp) int { return x.Compare(t) })
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
				} else if j < len(a) && a[j].Sub(ev.Time) <= skewFlagMax {
					// the controller attached only later than the window
					if d := a[j].Sub(ev.Time); far == 0 || d < nearFar {
						nearFar = d
					}
					far++
				}
				break
			}
		}
		s := Skew{Path: path, Offset: best, Pairs: pairs, From: "estimated"}
		if pairs == 0 {
			s.From = "none"
		}
		if far > pairs {
			s.Note = fmt.Sprintf("clock looks at least %s behind the controller's: %d of its attach confirmations come that long or more before the controller attached, beyond the %s the estimate corrects; pass --skew %s=DURATION to correct it",
				shortDur(nearFar), far, shortDur(skewWindow), path)
		}
		out = append(out, s)
	}
	return out
}

// skewAttach reports whether ev is a controller attach estimateSkews may
// pair (when its input is a KCM log): a direct, dated attach success on a
// node.
func skewAttach(ev *parser.Event) bool {
	return ev.Kind == parser.AttachSucceeded && ev.Origin == 0 && ev.Node != "" && !ev.Time.IsZero()
}

// describeMaxOffset bounds a describe re-anchoring: a snapshot taken more
// than a day away from the logs is not the same incident.
const describeMaxOffset = 24 * time.Hour

// anchorDescribes re-anchors `kubectl describe` / `kubectl get events`
// inputs. The parser anchors their relative ages ("22m") to the newest
// time of the other inputs, but the snapshot is usually taken later. A row
// that repeats a direct log event (same kind, same volume: a
// SuccessfulAttachVolume row and the controller's attach-succeeded line, a
// FailedMount MountDevice row and the kubelet's mount-device-failed lines)
// was last seen when that log event last happened, so the gap between the
// row's last-seen time and the last matching log event is the capture
// offset. Per input the offset is the upper median of the rows' gaps (ages
// are rounded down to the minute, so each gap slightly under-estimates).
// It shifts every event of the input and returns one Skew per re-anchored
// input, From "matched-events". evs must be skew-corrected already.
func anchorDescribes(evs []parser.Event, in []int32, bounds []int, inputs []parser.Input, flags map[string]time.Duration) []Skew {
	type ref struct {
		kind parser.Kind
		name string
	}
	// Inputs with a dated describe row and no --skew flag; most runs have
	// none, and then nothing else is computed.
	var describeInputs map[int]bool
	for k := range evs {
		ev := &evs[k]
		if ev.Origin != parser.OriginDescribe || ev.Time.IsZero() {
			continue
		}
		if _, given := flags[inputs[in[k]].Path]; given {
			continue
		}
		if describeInputs == nil {
			describeInputs = map[int]bool{}
		}
		describeInputs[int(in[k])] = true
	}
	if len(describeInputs) == 0 {
		return nil
	}
	var buf [4]string
	last := map[ref]time.Time{} // direct log events: (kind, volume ref) → last time
	for k := range evs {
		ev := &evs[k]
		if ev.Time.IsZero() || ev.Origin != 0 {
			continue
		}
		for _, r := range refs(ev, &buf) {
			key := ref{ev.Kind, r}
			if ev.Time.UTC().After(last[key]) {
				last[key] = ev.Time.UTC()
			}
		}
	}
	var out []Skew
	for i := range inputs {
		if _, given := flags[inputs[i].Path]; !describeInputs[i] || given {
			continue
		}
		var gaps []time.Duration
		for k := bounds[i]; k < bounds[i+1]; k++ {
			ev := &evs[k]
			if ev.Origin != parser.OriginDescribe || ev.Time.IsZero() || ev.Relative {
				continue
			}
			var best time.Time
			for _, r := range refs(ev, &buf) {
				if t := last[ref{ev.Kind, r}]; t.After(best) {
					best = t
				}
			}
			if best.IsZero() {
				continue
			}
			if d := best.Sub(ev.Time.UTC()); d > -describeMaxOffset && d < describeMaxOffset {
				gaps = append(gaps, d)
			}
		}
		if len(gaps) == 0 {
			continue
		}
		slices.Sort(gaps)
		off := gaps[len(gaps)/2].Round(time.Millisecond)
		out = append(out, Skew{Path: inputs[i].Path, Offset: off, Pairs: len(gaps), From: "matched-events"})
		if off != 0 {
			shiftTimes(evs[bounds[i]:bounds[i+1]], off)
		}
	}
	return out
}
