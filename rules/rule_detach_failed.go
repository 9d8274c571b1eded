package rules

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
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
usually hangs in the CSI driver (ControllerUnpublishVolume) or in the cloud.

The cluster state shows a detach no log does: a VolumeAttachment with a
status.detachError, or still kept by the external-attacher's finalizer
stuck-after after its deletion when the state was dumped, is reported for a
volume the logs do not name (with state alone too).`,
		Next: `Read the error on the failure lines; check the external-attacher and the CSI
controller plugin's ControllerUnpublishVolume for the VolumeAttachment, and
the disk's state in the cloud (stuck detaching). A "still in use by node"
error means the node still reports the volume in volumesInUse: check the
kubelet's unmount on that node.`,
	},
	Params: []Param{
		{Key: "stuck-after", Default: "10m", Help: "a detach with no result this long before the logs end (or a VolumeAttachment this long deleting when the state was dumped) is stuck"},
	},
	Check:      checkDetachFailed,
	Verify:     verifyDetachFailed,
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
	failedKinds := kindsOf(parser.DetachFailed, parser.CSIError)
	startKinds := kindsOf(parser.DetachStarted, parser.ForceDetach, parser.DetachVerifiedSafe)
	busyOther := volumelessBusy(c.Timeline)
	for vi, v := range c.Timeline.Volumes {
		vf := c.vol(vi)
		// 0. A plugin that cannot detach at all: one quiet finding.
		if vf.has(kindsOf(parser.DetachStartFailed)) {
			if f, ok := notAttachableFinding(v); ok {
				out = append(out, f)
			}
		}
		// 1. Explicit failures, per (node, class).
		var fails []parser.Event
		if vf.has(failedKinds) {
			fails = timeline.Counted(detachFailures(v))
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
		// 2. The cloud reports the disk busy while detaching, and no detach
		// result follows (the driver's own poll lines may be all there is).
		busy := filter(v, isBusyPoll)
		if len(fails) == 0 && len(busy) > 0 && !vf.has(startKinds) {
			if f, ok := busyFinding(v, busy); ok {
				out = append(out, f)
			}
		}
		// 3. Detaches retried or left hanging, without failure lines.
		if !vf.has(startKinds) {
			continue
		}
		for n, nd := range vf.nodes {
			if failedNode[nd] || (nd == "" && len(fails) > 0) {
				continue
			}
			if f, ok := starts.retriedOrStuck(c.Timeline, v, vf, int32(n), stuckAfter, logEnd, append(busy, busyOther...)); ok {
				out = append(out, f)
			}
		}
	}
	return append(out, stateOnlyDetachFailures(c.Timeline, stuckAfter)...)
}

// stateOnlyDetachFailures are the failed or unfinished detaches only the
// cluster state shows: a VolumeAttachment with a status.detachError, or
// one still kept by the external-attacher's finalizer stuckAfter after its
// deletion when its dump was taken, for a volume the logs say nothing of
// (unloggedAttachments).
func stateOnlyDetachFailures(tl *timeline.Timeline, stuckAfter time.Duration) []Finding {
	snap, vas := unloggedAttachments(tl)
	var out []Finding
	for _, u := range vas {
		va := u.va
		stuck := va.StuckDetach() && !u.taken.IsZero() && u.taken.Sub(va.Deleted) >= stuckAfter
		if va.DetachError != nil || stuck {
			out = append(out, stateDetachFinding(snap, va))
		}
	}
	return out
}

// stateDetachFinding reports VolumeAttachment va's failed or unfinished
// detach (stateOnlyDetachFailures).
func stateDetachFinding(snap *state.Snapshot, va *state.VolumeAttachment) Finding {
	vol := stateVolume(va)
	what := "is being deleted but its finalizer is still on: the detach had not finished when the state was dumped"
	headline := what
	if e := va.DetachError; e != nil {
		what, headline = "has status.detachError "+strconv.Quote(e.Message), errorHeadline("detachError", e.Message)
	}
	f := stateFinding(snap, va, va.Deleted, va.DetachError)
	f.Summary = fmt.Sprintf("detach of %s from %s: its VolumeAttachment %s (only the cluster state shows it; no log names the volume)", vol, nodeOr(va.Node), headline)
	f.Explanation = fmt.Sprintf("The VolumeAttachment %s asks the external-attacher to detach %s from %s (it is deleted when the detach is done: its finalizer holds it until then) and %s. Until ControllerUnpublishVolume succeeds, the attach/detach controller counts the volume as attached to %s, so it cannot be attached elsewhere (Multi-Attach). No log given here names the volume, so when and why the detach started is not known.",
		va.Name, vol, nodeOr(va.Node), what, nodeOr(va.Node))
	steps := []Step{
		{Confirm, fmt.Sprintf("Read the external-attacher's and the CSI controller plugin's logs%s for ControllerUnpublishVolume of %s, and check the disk in the cloud: is it still attached to %s?", driverNote(va.Attacher), vol, nodeHere(va.Node))},
		{Fix, "If the disk is already detached or deleted in the cloud (a 404 or NotFound detachError), the detach cannot succeed: remove the VolumeAttachment's finalizer (kubectl patch volumeattachment " + va.Name + " --type=merge -p '{\"metadata\":{\"finalizers\":null}}'); else fix what the detachError names and let the external-attacher retry."},
	}
	if va.Attached {
		steps = append([]Step{{Recover, "Once the detach is done (or the finalizer removed), the controller attaches the volume where its pod now runs."}}, steps...)
	}
	f.SetNext(steps...)
	return f
}

// detachFailures are v's failed detaches: the controller's (KCM
// DetachVolume.Detach failed, the in-tree cloud detacher's error), or —
// when the KCM log is not among the inputs — the external-attacher's and
// the CSI controller plugin's (ControllerUnpublishVolume errors, "failed to
// detach", detach timeouts), which are the same failures seen from below.
// A failure without a node takes the volume's only detach node.
func detachFailures(v *timeline.Volume) []parser.Event {
	kcm := filter(v, func(e *parser.Event) bool { return e.Kind == parser.DetachFailed })
	fails := kcm
	if len(kcm) == 0 {
		fails = filter(v, func(e *parser.Event) bool {
			return e.Kind == parser.CSIError && e.Detail == "detach" && e.Code != parser.CodeOperationPending
		})
	}
	nodes := map[string]bool{}
	for i := range v.Events {
		if e := &v.Events[i]; isDetach(e.Kind) && e.Node != "" {
			nodes[e.Node] = true
		}
	}
	if len(nodes) == 1 {
		for n := range nodes {
			for i := range fails {
				if fails[i].Node == "" {
					fails[i].SetNode(n, nil)
				}
			}
		}
	}
	return fails
}

// isBusyPoll: the cloud's "Waiting for volume state: actual=busy" poll.
func isBusyPoll(e *parser.Event) bool {
	return e.Kind == parser.Bookkeeping && e.Code == parser.CodeVolumeBusy
}

// volumelessBusy are the busy polls that name no volume (in-tree aws.go).
func volumelessBusy(tl *timeline.Timeline) []parser.Event {
	var out []parser.Event
	for i := range tl.Other {
		if isBusyPoll(&tl.Other[i]) {
			out = append(out, tl.Other[i])
		}
	}
	return out
}

// busyFinding reports a disk the cloud keeps busy while detaching, with no
// detach success after the last poll.
func busyFinding(v *timeline.Volume, busy []parser.Event) (Finding, bool) {
	last := busy[len(busy)-1]
	if firstAfterTime(v, last.Time.UTC(), func(e *parser.Event) bool {
		return kindIn(e.Kind, parser.DetachSucceeded, parser.CSIDetached, parser.MarkedDetached)
	}) != nil {
		return Finding{}, false
	}
	first := busy[0].Time
	f := Finding{
		Volume:      key(v),
		PV:          v.PV,
		Start:       first.UTC(),
		End:         last.Time.UTC(),
		Count:       len(busy),
		Code:        parser.CodeVolumeBusy,
		Summary:     fmt.Sprintf("detach of %s does not finish: the cloud reports the disk busy (%d polls over %s)", name(v), len(busy), dur(last.Time.Sub(first))),
		Explanation: fmt.Sprintf("The detacher (the CSI driver's ControllerUnpublishVolume, or the in-tree cloud detacher in the KCM) asked the cloud to detach %s and polls its state: it went from detaching to busy. EC2 reports busy while the instance still uses the device — the kubelet's UnmountDevice did not unmount the global mount (plugins/…/globalmount), or something outside Kubernetes holds it. Busy does not clear by itself; the detach times out and is retried while the volume stays attached and cannot move.", name(v)),
		Evidence:    append(series(busy[:1], "cloud reports the disk busy"), evidence(last, "still busy at the last poll")),
	}
	f.SetNext(busySteps()...)
	return f, true
}

// busySteps are the next steps for a detach the cloud reports busy.
func busySteps() []Step {
	return []Step{
		{Confirm, "On the old node, find what holds the device: grep the disk in /proc/mounts (the global mount under /var/lib/kubelet/plugins/…), lsof / fuser on the device."},
		{Recover, "Unmount the leftover global mount on that node (or drain and reboot it); the next detach retry then succeeds."},
		{Fix, "Read the kubelet's UnmountDevice / NodeUnstageVolume lines for the volume on that node: why it did not unmount."},
	}
}

// notAttachableFinding reports a volume whose plugin is not attachable but
// for which the attach/detach controller keeps trying to start a detach
// (FindAttachablePluginBySpec failed), once, quietly: nothing is attached,
// so nothing is stuck, but the reconciler logs it every 100ms.
func notAttachableFinding(v *timeline.Volume) (Finding, bool) {
	evs := timeline.Counted(filter(v, func(e *parser.Event) bool {
		return e.Kind == parser.DetachStartFailed && e.Code == parser.CodeNotAttachable
	}))
	if len(evs) == 0 {
		return Finding{}, false
	}
	first, last := spanOf(evs)
	n := total(evs)
	f := Finding{
		Severity:    Info,
		Volume:      key(v),
		PV:          v.PV,
		Start:       first,
		End:         last,
		Count:       n,
		Code:        parser.CodeNotAttachable,
		Summary:     fmt.Sprintf("attach/detach controller tried to start a detach of %s %s (%s): its plugin is not attachable", name(v), plural(n, "time"), dur(last.Sub(first))),
		Explanation: fmt.Sprintf("The attach/detach controller's actual state of world lists %s as attached, but DetachVolume cannot start: FindAttachablePluginBySpec finds no attachable plugin for it (a volume type that is never attached, e.g. NFS or a CSI driver without the attach capability, recorded as attached by an older controller or a changed CSIDriver attachRequired). The reconciler retries every loop, so the log fills with the same line; nothing is attached, so nothing waits on it.", name(v)),
		Evidence:    series(evs, "detach cannot start: plugin not attachable"),
	}
	f.SetNext(
		Step{Confirm, "kubectl get volumeattachments and kubectl get csidriver: is there a VolumeAttachment for this volume, and does its driver have attachRequired: false?"},
		Step{Fix, "Delete the stale VolumeAttachment (or restart the KCM so the actual state of world is rebuilt from node status); upgrade a KCM that keeps non-attachable volumes in its actual state."})
	return f, true
}

func detachFailedFinding(v *timeline.Volume, node, code string, evs []parser.Event) Finding {
	first, last := spanOf(evs)
	n := total(evs)
	class := code
	if class == "" {
		class = "an unclassified error"
	}
	ok := firstAfterTime(v, last, func(e *parser.Event) bool {
		return e.Node == node && e.Origin == 0 && (e.Kind == parser.DetachSucceeded || e.Kind == parser.MarkedDetached)
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
	if pvGone(evs) {
		ex.WriteString("The PersistentVolume the VolumeAttachment points to was deleted, so the external-attacher cannot read the volume handle to call ControllerUnpublishVolume; the VolumeAttachment keeps its finalizer and the disk may still be attached in the cloud. ")
	}
	switch code {
	case parser.CodeVolumeBusy:
		ex.WriteString("The cloud kept the disk busy: the instance still uses the device (the kubelet's global mount was not unmounted, or something outside Kubernetes holds it). ")
	case parser.CodeDeadlineExceeded:
		ex.WriteString("The detacher gave up waiting for the detach to complete (csi_attacher waits for the VolumeAttachment to go; the cloud for the disk's state). ")
	case parser.CodeThrottled:
		ex.WriteString(throttledMechanics + " ")
	}
	if code == parser.CodeStillMounted {
		ex.WriteString("The safe-to-detach check refused: the node still lists the volume in node.status.volumesInUse, i.e. its kubelet has not unmounted it. ")
	} else {
		ex.WriteString("Until it succeeds, the old attachment blocks the volume: a Multi-Attach error for any other node, and a shared backoff key for a re-created pod on the same node. On ≥1.28 a failed detach marks the attachment uncertain; before that it was reported attached again. ")
	}
	ev := series(evs, "detach failed")
	endT := last
	if ok != nil {
		fmt.Fprintf(&ex, "It finally succeeded at %s.", clock(ok.Time.UTC()))
		sum += fmt.Sprintf("; succeeded at %s", clock(ok.Time.UTC()))
		ev = append(ev, evidence(*ok, "detach finally succeeded"))
		endT = ok.Time.UTC()
	} else {
		ex.WriteString("No successful detach follows in these logs.")
	}
	next := "Read the error text; check the external-attacher and the CSI controller plugin's ControllerUnpublishVolume logs for this VolumeAttachment, and the disk's state in the cloud."
	switch {
	case code == parser.CodeVolumeBusy:
		next = "On the old node, find and unmount what holds the device (the global mount under /var/lib/kubelet/plugins/…, lsof / fuser); read the kubelet's UnmountDevice lines for the volume there."
	case code == parser.CodeThrottled:
		next = throttledCheck + " Then check that the disk is detached in the cloud once the retries succeed."
	case pvGone(evs):
		next = "Check the VolumeAttachment (kubectl get volumeattachment -o yaml: spec.source.persistentVolumeName, status.detachError); detach the disk in the cloud if it is still attached, then remove the VolumeAttachment's finalizer."
	}
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
//
// A "Verified volume is safe to detach" line opens a run when no start
// does (the start line may be filtered out or at a lower verbosity), and a
// detach still open when the logs end counts as stuck sooner than
// stuckAfter when the cloud reported the disk busy after it (busy: polls of
// this volume, or polls naming no volume in the same input).
func (d *detachStarts) retriedOrStuck(tl *timeline.Timeline, v *timeline.Volume, vf *volFacts, n int32, stuckAfter time.Duration, logEnd time.Time, busy []parser.Event) (Finding, bool) {
	node := vf.nodes[n]
	run, best := d.run[:0], d.best[:0] // detach starts since the last result; the last run of several
	for i := range v.Events {
		e := &v.Events[i]
		if vf.node[i] != n || e.Origin != 0 {
			continue
		}
		switch {
		case e.Kind == parser.DetachVerifiedSafe:
			if len(run) == 0 {
				run = append(run, i)
			}
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
			Start:   first.UTC(),
			End:     last.UTC(),
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
			if r.Time.After(v.Events[run[0]].Time.UTC()) {
				restartedSince = true // the controller was replaced: its detach's fate is unknowable
			}
		}
	}
	var busyAfter *parser.Event
	if len(run) == 1 {
		s := &v.Events[run[0]]
		for i := range busy {
			if b := &busy[i]; !b.Time.Before(s.Time) && (b.Volume != "" || b.Handle != "" || b.Source.Input == s.Source.Input) {
				busyAfter = b
			}
		}
	}
	if len(run) == 1 && !restartedSince && (logEnd.Sub(v.Events[run[0]].Time.UTC()) >= stuckAfter || busyAfter != nil) {
		s := v.Events[run[0]]
		if busyAfter != nil {
			f := Finding{
				Volume:  key(v),
				PV:      v.PV,
				Nodes:   []string{node},
				Start:   s.Time.UTC(),
				End:     logEnd,
				Count:   1,
				Code:    parser.CodeVolumeBusy,
				Summary: fmt.Sprintf("detach of %s from %s started at %s and never finished: the cloud reports the disk busy", name(v), nodeOr(node), clock(s.Time.UTC())),
				Explanation: fmt.Sprintf("The attach/detach controller started DetachVolume for %s on %s; the cloud's state poll then went to busy (%s) and no result follows before the logs end. Busy means the instance still uses the device — usually the kubelet left the global mount (UnmountDevice did not run or failed) — and it does not clear by itself: the detach times out and is retried while the volume stays in the controller's actual state of world for %s.",
					name(v), nodeOr(node), clock(busyAfter.Time.UTC()), nodeOr(node)),
				Evidence: []Evidence{evidence(s, "detach started; no result follows"), evidence(*busyAfter, "cloud reports the disk busy")},
			}
			f.SetNext(busySteps()...)
			return f, true
		}
		return Finding{
			Volume:  key(v),
			PV:      v.PV,
			Nodes:   []string{node},
			Start:   s.Time.UTC(),
			End:     logEnd,
			Count:   1,
			Summary: fmt.Sprintf("detach of %s from %s started at %s and never finished (%s until the logs end)", name(v), nodeOr(node), clock(s.Time.UTC()), dur(logEnd.Sub(s.Time.UTC()))),
			Explanation: fmt.Sprintf("DetachVolume for %s on %s started, but no success, failure or verification follows in the %s of logs after it. A detach that hangs is usually waiting in the CSI driver's ControllerUnpublishVolume (csi_attacher waits 2m for the VolumeAttachment to go; the external-attacher retries) or in the cloud; meanwhile the volume cannot be attached elsewhere.",
				name(v), nodeOr(node), dur(logEnd.Sub(s.Time.UTC()))),
			Next:     "Check the VolumeAttachment for this node (deletionTimestamp, status.detachError), the external-attacher and CSI controller plugin logs, and the disk's state in the cloud.",
			Evidence: []Evidence{evidence(s, "detach started; no result follows")},
		}, true
	}
	return Finding{}, false
}

// pvGone reports a detach failure because the PersistentVolume is deleted
// (the external-attacher's `persistentvolume "pvc-…" not found`).
func pvGone(evs []parser.Event) bool {
	for _, e := range evs {
		l := strings.ToLower(e.Error)
		if strings.Contains(l, "persistentvolume ") && strings.Contains(l, "not found") {
			return true
		}
	}
	return false
}

func causeDetachFailed(c *Chain) (Cause, bool) {
	f := c.First("detach-failed")
	switch f.Code {
	case parser.CodeNotAttachable:
		return Cause{
			Summary:   f.Summary,
			Component: "attach/detach controller actual state of world (a non-attachable volume recorded as attached)",
			RootCause: "The controller keeps a volume of a non-attachable plugin in its actual state of world and tries to detach it every reconciler loop; nothing is attached, only the log fills.",
		}, true
	case parser.CodeVolumeBusy:
		return Cause{
			Summary:   f.Summary,
			Component: "the old node's mount of the device (kubelet UnmountDevice) / cloud detach",
			RootCause: "The cloud keeps the disk busy because the old node still uses the device, so the detach cannot finish and the volume cannot move.",
		}, true
	}
	return Cause{
		Summary:   f.Summary,
		Component: "CSI driver ControllerUnpublishVolume / cloud detach API",
		RootCause: "The detach from the old node keeps failing or hangs, so the volume cannot move.",
	}, true
}
