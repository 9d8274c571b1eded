package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleDetachFailed = Register(Rule{
	Name:     "detach-failed",
	Severity: Warning,
	Doc: Doc{
		Title: "A detach failed, kept being retried, or never finished",
		Explanation: `The attach/detach controller detaches a volume from a node once no scheduled
pod wants it there and the node no longer lists it in
node.status.volumesInUse. DetachVolume.Detach failures are logged by
nestedpendingoperations and retried with backoff (500ms doubling to 2m2s); no
Event is emitted, so they show only in the KCM log. Before 1.28/1.29 a failed
detach put the volume back into the node's "report as attached" list; since
PR #120595 it marks the attachment uncertain instead.

While a detach is failing or hanging, the volume cannot move: an attach of a
ReadWriteOnce volume elsewhere is refused (Multi-Attach), and because the
backoff key of a non-RWX volume has no node, even an attach to the same node
by a re-created pod waits. A detach that starts and never reports a result
usually hangs in the CSI driver (ControllerUnpublishVolume) or in the cloud.`,
		Next: `Read the error on the failure lines; check the external-attacher and the CSI
controller plugin's ControllerUnpublishVolume for the VolumeAttachment, and
the disk's state in the cloud (stuck detaching). A "still in use by node"
error means the node still reports the volume in volumesInUse: check the
kubelet's unmount on that node.`,
	},
	Params: []Param{
		{Key: "stuck-after", Default: "10m", Help: "a detach with no result this long before the logs end is stuck"},
	},
	Check:      checkDetachFailed,
	Rank:       40,
	Story:      summaryStory,
	Cause:      causeDetachFailed,
	CauseOrder: 60,
})

// minRetryGap separates a retried detach from two lines about one attempt
// ("Starting attacherDetacher.DetachVolume" right before "… started").
const minRetryGap = 400 * time.Millisecond

func checkDetachFailed(c *Context) []Finding {
	stuckAfter := c.Duration("stuck-after")
	logEnd := end(c.Timeline)
	var out []Finding
	var starts detachStarts
	failedKinds, startKinds := kindsOf(parser.DetachFailed), kindsOf(parser.DetachStarted, parser.ForceDetach)
	for vi, v := range c.Timeline.Volumes {
		vf := c.vol(vi)
		// 1. Explicit failures, per (node, class).
		var fails []parser.Event
		if vf.has(failedKinds) {
			fails = counted(filter(v, func(e *parser.Event) bool { return e.Kind == parser.DetachFailed }))
		}
		type key struct{ node, code string }
		groups := map[key][]parser.Event{}
		var keys []key
		failedNode := map[string]bool{}
		for _, e := range fails {
			k := key{e.Node, e.Code}
			if groups[k] == nil {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], e)
			failedNode[e.Node] = true
		}
		for _, k := range keys {
			evs := groups[k]
			byTime(evs)
			out = append(out, detachFailedFinding(v, k.node, k.code, evs))
		}
		// 2. Detaches retried or left hanging, without failure lines.
		if !vf.has(startKinds) {
			continue
		}
		for n, nd := range vf.nodes {
			if failedNode[nd] {
				continue
			}
			if f, ok := starts.retriedOrStuck(c.Timeline, v, vf, int32(n), stuckAfter, logEnd); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

func detachFailedFinding(v *timeline.Volume, node, code string, evs []parser.Event) Finding {
	first, last := spanOf(evs)
	n := total(evs)
	class := code
	if class == "" {
		class = "an unclassified error"
	}
	ok := firstAfterTime(v, last, func(e *parser.Event) bool {
		return e.Node == node && e.Origin == "" && (e.Kind == parser.DetachSucceeded || e.Kind == parser.MarkedDetached)
	})
	sum := fmt.Sprintf("detach of %s from %s failed %d× with %s", name(v), nodeOr(node), n, class)
	var ex strings.Builder
	fmt.Fprintf(&ex, "DetachVolume.Detach of %s from %s failed %s", name(v), nodeOr(node), plural(n, "time"))
	if last.Sub(first) > 0 {
		fmt.Fprintf(&ex, " over %s", dur(last.Sub(first)))
	}
	ex.WriteString(". ")
	if cad := cadence(evs); cad != "" {
		fmt.Fprintf(&ex, "Retries: %s (backoff 500ms doubling to 2m2s). ", cad)
	}
	if code == parser.CodeStillMounted {
		ex.WriteString("The safe-to-detach check refused: the node still lists the volume in node.status.volumesInUse, i.e. its kubelet has not unmounted it. ")
	} else {
		ex.WriteString("Until it succeeds, the old attachment blocks the volume: a Multi-Attach error for any other node, and a shared backoff key for a re-created pod on the same node. On ≥1.28 a failed detach marks the attachment uncertain; before that it was reported attached again. ")
	}
	ev := series(evs, "detach failed")
	endT := last
	if ok != nil {
		fmt.Fprintf(&ex, "It finally succeeded at %s.", clock(ok.Time))
		sum += fmt.Sprintf("; succeeded at %s", clock(ok.Time))
		ev = append(ev, evidence(*ok, "detach finally succeeded"))
		endT = ok.Time
	} else {
		ex.WriteString("No successful detach follows in these logs.")
	}
	next := "Read the error text; check the external-attacher and the CSI controller plugin's ControllerUnpublishVolume logs for this VolumeAttachment, and the disk's state in the cloud."
	if code == parser.CodeStillMounted {
		next = fmt.Sprintf("Check the kubelet on %s: UnmountDevice/TearDown errors, or a stale mount keeping the volume in node.status.volumesInUse.", nodeOr(node))
	}
	return Finding{
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(evs),
		Start:       first,
		End:         endT,
		Count:       n,
		Code:        code,
		Summary:     sum,
		Explanation: ex.String(),
		Next:        next,
		Evidence:    ev,
	}
}

// detachStarts finds retried or hanging detaches, reusing its space from
// one (volume, node) to the next.
type detachStarts struct {
	run, best []int // indexes in Volume.Events of detach starts
}

// retriedOrStuck finds, for v on its node n (an index in vf.nodes), detach
// starts that repeat with no result between them (the failure lines
// filtered out of the input), or a last detach start with no result while
// the logs go on past stuckAfter.
func (d *detachStarts) retriedOrStuck(tl *timeline.Timeline, v *timeline.Volume, vf *volFacts, n int32, stuckAfter time.Duration, logEnd time.Time) (Finding, bool) {
	node := vf.nodes[n]
	run, best := d.run[:0], d.best[:0] // detach starts since the last result; the last run of several
	for i := range v.Events {
		e := &v.Events[i]
		if vf.node[i] != n || e.Origin != "" {
			continue
		}
		switch {
		case e.Kind == parser.DetachStarted || e.Kind == parser.ForceDetach:
			if k := len(run); k > 0 && e.Time.Sub(v.Events[run[k-1]].Time) < minRetryGap {
				continue // the same attempt logged twice
			}
			run = append(run, i)
		case kindIn(e.Kind, parser.DetachSucceeded, parser.DetachFailed, parser.MarkedDetached, parser.AttachSucceeded, parser.AttachStarted):
			if len(run) > 1 {
				best = append(best[:0], run...)
			}
			run = run[:0]
		}
	}
	d.run, d.best = run, best
	if len(run) > 1 {
		best = run
	}
	if len(best) > 1 {
		evs := make([]parser.Event, len(best))
		for j, i := range best {
			evs[j] = v.Events[i]
		}
		first, last := evs[0].Time, evs[len(evs)-1].Time
		return Finding{
			Volume:  key(v),
			PV:      v.PV,
			Nodes:   []string{node},
			Start:   first,
			End:     last,
			Count:   len(best),
			Summary: fmt.Sprintf("detach of %s from %s started %d× in %s with no success in between", name(v), nodeOr(node), len(best), dur(last.Sub(first))),
			Explanation: fmt.Sprintf("The attach/detach controller started DetachVolume for %s on %s %s without a DetachVolume.Detach succeeded in between, so each attempt before the last failed (the failure lines — nestedpendingoperations \"DetachVolume.Detach failed\" — are not in this input; was it filtered, e.g. grep reconciler.go?). While the detach keeps failing the volume stays in the controller's actual state of world for %s, and a pod that wants it on another node (or a re-created pod on the same node) waits.",
				name(v), nodeOr(node), plural(len(best), "time"), nodeOr(node)),
			Next:     "Get the unfiltered KCM log around these times for the DetachVolume.Detach failed lines; check the CSI driver's ControllerUnpublishVolume / the in-tree detacher and the disk's state in the cloud.",
			Evidence: series(evs, "detach started again"),
		}, true
	}
	restartedSince := false
	if len(run) == 1 {
		for _, r := range tl.Restarts {
			if r.Time.After(v.Events[run[0]].Time) {
				restartedSince = true // the controller was replaced: its detach's fate is unknowable
			}
		}
	}
	if len(run) == 1 && !restartedSince && logEnd.Sub(v.Events[run[0]].Time) >= stuckAfter {
		s := v.Events[run[0]]
		return Finding{
			Volume:  key(v),
			PV:      v.PV,
			Nodes:   []string{node},
			Start:   s.Time,
			End:     logEnd,
			Count:   1,
			Summary: fmt.Sprintf("detach of %s from %s started at %s and never finished (%s until the logs end)", name(v), nodeOr(node), clock(s.Time), dur(logEnd.Sub(s.Time))),
			Explanation: fmt.Sprintf("DetachVolume for %s on %s started, but no success, failure or verification follows in the %s of logs after it. A detach that hangs is usually waiting in the CSI driver's ControllerUnpublishVolume (csi_attacher waits 2m for the VolumeAttachment to go; the external-attacher retries) or in the cloud; meanwhile the volume cannot be attached elsewhere.",
				name(v), nodeOr(node), dur(logEnd.Sub(s.Time))),
			Next:     "Check the VolumeAttachment for this node (deletionTimestamp, status.detachError), the external-attacher and CSI controller plugin logs, and the disk's state in the cloud.",
			Evidence: []Evidence{evidence(s, "detach started; no result follows")},
		}, true
	}
	return Finding{}, false
}

func causeDetachFailed(c *Chain) (Cause, bool) {
	return Cause{
		Summary:   c.First("detach-failed").Summary,
		Component: "CSI driver ControllerUnpublishVolume / cloud detach API",
		RootCause: "The detach from the old node keeps failing or hangs, so the volume cannot move.",
	}, true
}
