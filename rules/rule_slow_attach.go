package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleSlowAttach = Register(Rule{
	Name:     "slow-attach",
	Severity: Warning,
	Doc: Doc{
		Title: "Attaching a volume took too long, or never finished",
		Explanation: `A healthy attach takes seconds: the attach/detach controller starts
AttachVolume, the CSI plugin creates a VolumeAttachment and waits (up to
2m, csiTimeout) for the external-attacher to call ControllerPublishVolume,
then marks the volume attached and adds it to node.status.volumesAttached.
The kubelet meanwhile waits in VerifyControllerAttachedVolume ("Volume not
attached according to node status", "not yet added to the list of
VolumesInUse"), retrying with backoff up to 2m2s, and gives up on the pod
after 2m3s with "Unable to attach or mount volumes … timed out waiting for
the condition" — then tries again.

A slow attach is the cloud or the driver being slow (disk stuck attaching,
API throttling), the attach waiting behind an operation on the same volume
(RWO attach/detach share one backoff key, so an attach to a new node can wait
out up to 2m2s of backoff left by failures elsewhere), or the controller not
attaching at all (attach/detach disabled, controller down).

The cluster state shows an attach no log does: a VolumeAttachment not
attached with a status.attachError (of any class but the node's volume
limit, which is attach-limit's), or without one threshold after it was
made when the state was dumped, is reported for a volume the logs do not
name (with state alone too).`,
		Next: `Look at the VolumeAttachment (status.attachError), the external-attacher and
CSI controller plugin logs, and the disk's state in the cloud; on the kubelet
side check node.status.volumesAttached / volumesInUse for the volume.`,
	},
	Params: []Param{
		{Key: "threshold", Default: "2m", Help: "an attach slower than this is reported"},
	},
	Check:      checkSlowAttach,
	Verify:     verifySlowAttach,
	Rank:       60,
	Story:      summaryStory,
	Cause:      causeSlowAttach,
	CauseOrder: 80,
})

func checkSlowAttach(c *Context) []Finding {
	th := c.Duration("threshold")
	logEnd := end(c.Timeline)
	var out []Finding
	var runs attachRunner
	ms := c.mountSide()
	for i, v := range c.Timeline.Volumes {
		vf := c.vol(i)
		// Controller side: whole attach runs on one node.
		for _, r := range runs.runs(v, vf) {
			switch {
			case r.Succeeded && r.End.Sub(r.Start) > th:
				out = append(out, slowRunFinding(v, r.events(v, vf), r, th, logEnd))
			case !r.Succeeded && !r.Abandoned && r.Failures == 0 && logEnd.Sub(r.Start) > th:
				out = append(out, slowRunFinding(v, r.events(v, vf), r, th, logEnd))
			}
		}
		// Kubelet side: waiting for the controller.
		if f, ok := kubeletWaitFinding(v, vf, th); ok {
			out = append(out, f)
		}
		if !vf.has(timeoutKinds) {
			continue
		}
		if f, ok := mountTimeoutFinding(v, v.Events, ms); ok {
			out = append(out, f)
		}
	}
	// Mount timeouts the timeline could not join to a volume (they name
	// the pod's volume, not the PV).
	if f, ok := mountTimeoutFinding(nil, c.Timeline.Other, ms); ok {
		out = append(out, f)
	}
	// Attaches only the cluster state shows.
	snap, vas := unloggedAttachments(c.Timeline)
	for _, u := range unloggedAttachFailures(vas, false, th) {
		out = append(out, stateAttachFinding(snap, u.va, u.taken))
	}
	return out
}

// slowRunFinding reports attach run r, whose events are evs.
func slowRunFinding(v *timeline.Volume, evs []parser.Event, r attachRun, th time.Duration, logEnd time.Time) Finding {
	var sum, ex strings.Builder
	f := Finding{
		Volume: key(v),
		PV:     v.PV,
		Nodes:  []string{r.Node},
		Pods:   podsOf(evs),
		Start:  r.Start,
		Count:  1,
	}
	if r.Succeeded {
		took := r.End.Sub(r.Start)
		f.End = r.End
		fmt.Fprintf(&sum, "attach of %s to %s took %s (threshold %s)", name(v), r.Node, dur(took), dur(th))
		fmt.Fprintf(&ex, "The attach/detach controller first tried to attach %s to %s at %s; it succeeded at %s, %s later", name(v), r.Node, clock(r.Start), clock(r.End), dur(took))
		if r.Failures > 0 {
			fmt.Fprintf(&ex, ", after %s (each retried with backoff 500ms doubling to 2m2s)", plural(r.Failures, "failed attempt"))
			sum.WriteString(fmt.Sprintf(", %s first", plural(r.Failures, "failure")))
		}
		ex.WriteString(". ")
		f.Evidence = []Evidence{evidence(evs[len(evs)-1], "attach finally succeeded"), evidence(evs[0], "first attach attempt")}
		if mid := evs[1 : len(evs)-1]; len(mid) > 0 {
			f.Evidence = append(f.Evidence, series(mid, "attempt")...)
		}
	} else {
		open := logEnd.Sub(r.Start)
		f.End = logEnd
		fmt.Fprintf(&sum, "attach of %s to %s started at %s and has not finished (%s until the logs end)", name(v), r.Node, clock(r.Start), dur(open))
		fmt.Fprintf(&ex, "AttachVolume for %s on %s started at %s; no success and no failure follows in %s of logs. csi_attacher waits up to 2m for the VolumeAttachment to be attached before it fails the attempt, so a silent attach this long usually means the controller's operation is stuck or the lines after it are missing. ", name(v), r.Node, clock(r.Start), dur(open))
		f.Evidence = []Evidence{evidence(evs[0], "attach started; no result follows")}
	}
	ex.WriteString("The kubelet waits for the attach in VerifyControllerAttachedVolume and times the pod out after 2m3s (\"Unable to attach or mount volumes\").")
	f.Summary = sum.String()
	f.Explanation = ex.String()
	f.Next = "Check the VolumeAttachment for this node (status.attachError), the external-attacher and CSI controller plugin (ControllerPublishVolume) logs, and the disk's state in the cloud (stuck attaching, throttling)."
	return f
}

// waitKinds are the kubelet's lines about waiting for the controller's
// attach; waitKindSet is the same as a set.
var (
	waitKinds   = []parser.Kind{parser.VerifyAttachedFailed, parser.WaitForAttachFailed}
	waitKindSet = kindsOf(waitKinds...)
)

// kubeletWaitFinding reports a kubelet waiting for the controller's attach
// (VerifyControllerAttachedVolume / WaitForAttach failing) for longer than th,
// measured from the lines or implied by the backoff they carry.
func kubeletWaitFinding(v *timeline.Volume, vf *volFacts, th time.Duration) (Finding, bool) {
	if !vf.has(waitKindSet) {
		return Finding{}, false
	}
	waits := timeline.Counted(filter(v, func(e *parser.Event) bool {
		if !slices.Contains(waitKinds, e.Kind) || isDeviceNotFound(e) {
			return false
		}
		return e.Kind == parser.VerifyAttachedFailed || slices.Contains([]string{parser.CodeNotAttached, parser.CodeNotInUse, parser.CodeDeadlineExceeded}, e.Code)
	}))
	if len(waits) == 0 {
		return Finding{}, false
	}
	byTime(waits)
	first, last := spanOf(waits)
	implied := failingFor(maxBackoff(waits))
	node := waits[0].Node
	ok := firstAfterTime(v, last, func(e *parser.Event) bool {
		return e.Kind == parser.VerifyAttachedSucceeded && (node == "" || e.Node == node || e.Node == "")
	})
	waited := last.Sub(first)
	if ok != nil {
		waited = ok.Time.UTC().Sub(first)
	}
	if waited <= th && implied <= th {
		return Finding{}, false
	}
	n := total(waits)
	f := Finding{
		Volume: key(v),
		PV:     v.PV,
		Nodes:  []string{node},
		Pods:   podsOf(waits),
		Start:  first,
		End:    last,
		Count:  n,
		Code:   waits[0].Code,
	}
	var sum, ex strings.Builder
	fmt.Fprintf(&sum, "kubelet on %s waited for the controller to attach %s", nodeOr(node), name(v))
	fmt.Fprintf(&ex, "The kubelet on %s kept finding %s not attached according to node status (or not yet in node.status.volumesInUse) — it waits for the attach/detach controller to attach the volume and record it, retrying with backoff up to 2m2s. ", nodeOr(node), name(v))
	if waited > th {
		fmt.Fprintf(&sum, " for %s", dur(waited))
	}
	if mb := maxBackoff(waits); mb > 0 && implied > th {
		fmt.Fprintf(&sum, " (backoff already %s)", dur(mb))
		fmt.Fprintf(&ex, "Its retry backoff had reached %s, which takes about %s of consecutive failures. ", dur(mb), dur(failingFor(mb)))
	}
	f.Evidence = series(waits, "kubelet: not attached yet")
	if ok != nil {
		f.End = ok.Time.UTC()
		fmt.Fprintf(&ex, "The controller's attach was confirmed at %s.", clock(ok.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*ok, "controller attach confirmed"))
	} else {
		ex.WriteString("No confirmation of the attach follows in these logs.")
	}
	f.Summary = sum.String()
	f.Explanation = ex.String()
	f.Next = "Check the KCM log for this volume's AttachVolume on this node (did it start? fail?), the VolumeAttachment object, and node.status.volumesAttached; in old clusters also whether the kubelet runs with --enable-controller-attach-detach matching the KCM."
	return f, true
}

// timeoutKinds are the kinds mountTimeoutFinding reads.
var timeoutKinds = kindsOf(parser.MountTimeout)

// mountTimeoutFinding reports the kubelet's pod-level "Unable to attach or
// mount volumes" timeouts in evs that are about the attach (see
// mountSide.attachIsSlow). With v nil the events are the timeline's
// unjoined ones. A timeout whose pod has a mount failing (device missing,
// driver not registered, mount refused) is that failure's consequence, and
// one after a confirmed attach is slow-mount's.
func mountTimeoutFinding(v *timeline.Volume, evs []parser.Event, ms *mountSide) (Finding, bool) {
	var tos []parser.Event
	for i := range evs {
		if e := &evs[i]; e.Kind == parser.MountTimeout && ms.attachIsSlow(e, v) {
			tos = append(tos, *e)
		}
	}
	tos = timeline.Counted(tos)
	if len(tos) == 0 {
		return Finding{}, false
	}
	byTime(tos)
	first, last := spanOf(tos)
	n := total(tos)
	pods := podsOf(tos)
	var nodes []string
	for _, e := range tos {
		nodes = append(nodes, e.Node)
	}
	unattached := strings.Contains(strings.ToLower(tos[0].Error+tos[0].Text.String()), "unattached")
	f := Finding{
		Nodes: nodes,
		Pods:  pods,
		Start: first,
		End:   last,
		Count: n,
		Code:  parser.CodeDeadlineExceeded,
	}
	what := "pod " + strings.Join(pods, ", ")
	if v != nil {
		f.Volume, f.PV = key(v), v.PV
		what = name(v)
	}
	if len(pods) == 0 {
		what = "a pod"
	}
	if n == 1 && ms.mountedAfter(&tos[0], v) != nil {
		// one timeout, then the mount went through: a transient wait
		f.Severity = Info
	}
	f.Summary = fmt.Sprintf("kubelet timed out waiting to attach/mount volumes for %s (×%d)", what, n)
	if v != nil && len(pods) > 0 {
		f.Summary = fmt.Sprintf("kubelet timed out waiting to attach/mount %s for pod %s (×%d)", what, strings.Join(pods, ", "), n)
	}
	var ex strings.Builder
	ex.WriteString("The kubelet gives a pod 2m3s (podAttachAndMountTimeout) for all its volumes to be attached by the controller and mounted; this pod hit that limit")
	if n > 1 {
		fmt.Fprintf(&ex, " %s", plural(n, "time"))
	}
	ex.WriteString(". ")
	if unattached {
		ex.WriteString("The message lists unattached volumes: the attach/detach controller had not attached them (on ≤1.25 the list also names non-attachable volumes such as tokens, so read it with care). ")
	} else {
		ex.WriteString("The volumes were attached but not mounted: look at MountDevice/SetUp errors for them. ")
	}
	ex.WriteString("Newer kubelets may not log this timeout at all, so its absence proves nothing.")
	f.Explanation = ex.String()
	f.Next = "Find the volume's attach in the KCM log (Multi-Attach? failures? nothing?) and the kubelet's per-operation FailedMount errors for it; check the VolumeAttachment object."
	f.Evidence = series(tos, "kubelet: timed out waiting for volumes")
	return f, true
}

// samePod compares "ns/name" with "name" leniently.
func samePod(a, b string) bool {
	if a == b {
		return true
	}
	_, an, _ := strings.Cut(a, "/")
	_, bn, _ := strings.Cut(b, "/")
	if an == "" {
		an = a
	}
	if bn == "" {
		bn = b
	}
	return an == bn
}

func causeSlowAttach(c *Chain) (Cause, bool) {
	return Cause{
		Summary:   c.First("slow-attach").Summary,
		Component: "external-attacher / CSI driver ControllerPublishVolume / cloud API",
		RootCause: "Attaching took longer than expected or did not finish.",
	}, true
}
