package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleAttachBeforeDetach = Register(Rule{
	Name:     "attach-before-detach",
	Severity: Critical,
	Doc: Doc{
		Title: "An RWO volume was attached to a new node before it was detached from the old one",
		Explanation: `For a volume that is not ReadWriteMany/ReadOnlyMany, the attach/detach
controller should detach it from the old node A before attaching it to the new
node B. Its reconciler runs every 100ms: first the detach loop over every
(volume, node) in the actual state of world that no pod wants any more, then
the attach loop. The multi-attach check in the attach loop refuses an attach
to B while the volume is attach-confirmed on A.

Two things let B go first. A detach is skipped (silently, below -v5) while
node A still lists the volume in node.status.volumesInUse (MountedByNode),
while an operation for the volume is pending or in backoff, or while the
node status update fails. And an attachment whose last attach failed is
uncertain: it stays in the actual state of world for the detach loop, but the
multi-attach check ignores it. So after an attach to A fails (ZoneNotMatch, a
timeout) and the pod moves, the attach to B goes through with no Multi-Attach
error, and only afterwards is the volume "detached" from A.

That detach is harmless only if the driver's ControllerUnpublishVolume checks
which instance holds the disk. A driver that detaches the disk wherever it is
pulls it off B, and the kubelet on B then cannot find the device.`,
		Next: `Check the CSI driver's ControllerUnpublishVolume (or the in-tree detacher):
does it verify the disk is attached to the node being unpublished before
detaching? Check where the disk is attached now (cloud console) against the
VolumeAttachment objects, and the kubelet on B for device errors.`,
	},
	Check:      checkAttachBeforeDetach,
	Verify:     verifyAttachBeforeDetach,
	Rank:       70,
	Story:      storyAttachBeforeDetach,
	Cause:      causeAttachBeforeDetach,
	CauseOrder: 10,
	Reorder:    reorderAttachBeforeDetach,
})

func checkAttachBeforeDetach(c *Context) []Finding {
	var out []Finding
	rs := c.restarts()
	for i, v := range c.Timeline.Volumes {
		if v.Multi {
			continue // RWX/ROX: many nodes at once is legitimate
		}
		vf := c.vol(i)
		fs := attachBeforeDetach(v, vf, rs)
		if len(fs) == 0 && vf.has(attachFailedKinds) {
			fs = attachedElsewhereByBackend(v)
		}
		out = append(out, fs...)
	}
	return out
}

// attachKinds are the attaches to node B attachBeforeDetach starts from;
// attachFailedKinds are what attachedElsewhereByBackend reads.
var (
	attachKinds       = kindsOf(parser.AttachStarted, parser.AttachSucceeded)
	attachFailedKinds = kindsOf(parser.AttachFailed)
)

func attachBeforeDetach(v *timeline.Volume, vf *volFacts, rs []restart) []Finding {
	if len(vf.nodes) < 2 || !vf.has(attachKinds) {
		return nil // no attach, or no other node A to attach before detaching from
	}
	x := newABDIndex(v, vf)
	var out []Finding
	seen := map[abdKey]bool{}
	var cands []abdCand
	for i := range v.Events {
		eb, bn := &v.Events[i], vf.node[i]
		if eb.Origin != 0 || bn < 0 || (eb.Kind != parser.AttachStarted && eb.Kind != parser.AttachSucceeded) {
			continue
		}
		cands = x.candidates(cands[:0], i, bn, rs)
		for _, c := range cands {
			k := abdKey{c.node, bn, c.det}
			if seen[k] {
				continue
			}
			seen[k] = true
			// (B's name read only here: an event's names are behind a
			// pointer, and most attaches pair with no node)
			out = append(out, abdFinding(v, vf.nodes[c.node], eb.Node, c.state, c.inferred, i, c.det, x.deviceNotFound()))
		}
	}
	return out
}

// firstAfter returns the index of the first event after i whose index
// satisfies ok, or -1.
func firstAfter(v *timeline.Volume, i int, ok func(j int) bool) int {
	for j := i + 1; j < len(v.Events); j++ {
		if ok(j) {
			return j
		}
	}
	return -1
}

// lastBefore returns the index of the last event before i whose index
// satisfies ok, or -1.
func lastBefore(v *timeline.Volume, i int, ok func(j int) bool) int {
	for j := i - 1; j >= 0; j-- {
		if ok(j) {
			return j
		}
	}
	return -1
}

// abdFinding tells the pair (a, b) of the attach at bi and the detach at
// di; dnf are the indexes of the volume's device-not-found events.
func abdFinding(v *timeline.Volume, a, b string, st timeline.State, inferred bool, bi, di int, dnf []int) Finding {
	eb, ed := v.Events[bi], v.Events[di]
	// The attach to B that matters is its success when there is one.
	succ := -1
	if eb.Kind == parser.AttachStarted {
		succ = firstAfter(v, bi, func(j int) bool {
			e := &v.Events[j]
			return e.Node == b && e.Origin == 0 && (e.Kind == parser.AttachSucceeded || e.Kind == parser.AttachFailed || isDetach(e.Kind))
		})
		if succ >= 0 && v.Events[succ].Kind != parser.AttachSucceeded {
			succ = -1
		}
	}
	// What A was doing: its last controller event before B's attach.
	ai := lastBefore(v, bi, func(j int) bool {
		e := &v.Events[j]
		return e.Node == a && e.Origin == 0 && kindIn(e.Kind, parser.AttachStarted, parser.AttachSucceeded, parser.AttachFailed)
	})
	// How A's detach ended.
	done := firstAfter(v, di-1, func(j int) bool {
		e := &v.Events[j]
		return e.Node == a && e.Origin == 0 && kindIn(e.Kind, parser.DetachSucceeded, parser.DetachFailed)
	})
	// Did the kubelet on B then miss the device?
	var missing []parser.Event
	for _, i := range dnf {
		if e := &v.Events[i]; (e.Node == b || e.Node == "") && !e.Time.Before(ed.Time) {
			missing = append(missing, *e)
		}
	}
	missing = timeline.Counted(missing)
	byTime(missing)

	stateWord := map[timeline.State]string{
		timeline.Uncertain: "still uncertain (its last attach had failed)",
		timeline.Attaching: "still attaching",
		timeline.Attached:  "still attached",
	}[st]
	if inferred {
		stateWord = "still held by the controller (uncertain: no Multi-Attach error, and a detach followed)"
	}
	code := ""
	if ai >= 0 && v.Events[ai].Kind == parser.AttachFailed {
		code = v.Events[ai].Code
	}

	var ev []Evidence
	bOK := eb
	if succ >= 0 {
		bOK = v.Events[succ]
	}
	if bOK.Kind == parser.AttachSucceeded {
		ev = append(ev, evidence(bOK, fmt.Sprintf("attach to %s succeeded while %s was %s", b, a, strings.SplitN(stateWord, " (", 2)[0])))
	} else {
		ev = append(ev, evidence(bOK, fmt.Sprintf("attach to %s started while %s was %s", b, a, strings.SplitN(stateWord, " (", 2)[0])))
	}
	if ai >= 0 {
		note := map[parser.Kind]string{
			parser.AttachFailed:    "last attach to " + a + " failed: the controller keeps it as uncertain",
			parser.AttachStarted:   "attach to " + a + " in progress",
			parser.AttachSucceeded: "attach to " + a + " succeeded earlier",
		}[v.Events[ai].Kind]
		ev = append(ev, evidence(v.Events[ai], note))
	}
	if succ >= 0 && eb.Kind == parser.AttachStarted {
		ev = append(ev, evidence(eb, "attach to "+b+" started"))
	}
	ev = append(ev, evidence(ed, "detach from "+a+" only now, after "+b+" has the volume"))
	if done >= 0 {
		ev = append(ev, evidence(v.Events[done], "detach from "+a+" "+strings.TrimPrefix(v.Events[done].Kind.String(), "detach-")))
	}
	if len(missing) > 0 {
		ev = append(ev, evidence(missing[0], "kubelet on "+b+" cannot find the device afterwards"))
	}

	sev := Critical
	if inferred && len(missing) == 0 {
		sev = Warning // a's state is inferred and nothing shows harm on b
	}
	f := Finding{
		Severity: sev,
		Volume:   key(v),
		PV:       v.PV,
		Nodes:    []string{a, b},
		Pods:     podsOf(append([]parser.Event{eb, bOK}, missing...)),
		Start:    eb.Time.UTC(),
		End:      ed.Time.UTC(),
		Count:    1,
		Code:     code,
		Evidence: ev,
	}
	if done >= 0 {
		f.End = v.Events[done].Time.UTC()
	}
	gap := ed.Time.Sub(bOK.Time)
	f.Summary = fmt.Sprintf("attach to %s %s at %s while %s was %s; the detach from %s came %s later",
		b, map[bool]string{true: "succeeded", false: "started"}[bOK.Kind == parser.AttachSucceeded], clock(bOK.Time.UTC()), a, stateWord, a, dur(gap))

	var ex strings.Builder
	switch {
	case inferred:
		fmt.Fprintf(&ex, "These logs do not show how (volume, %s) entered the attach/detach controller's actual state of world, but the controller detached %s from %s %s after the attach to %s, and the detach loop only visits entries of that state: (volume, %s) was held when the attach to %s went through. No Multi-Attach error stopped that attach, so the entry was not attach-confirmed — the usual cause is a failed attach to %s, which leaves the entry uncertain: ignored by the multi-attach check, detached later. ", a, name(v), a, dur(ed.Time.Sub(eb.Time)), b, a, b, a)
	case st == timeline.Uncertain:
		fmt.Fprintf(&ex, "The last attach of %s to %s failed", name(v), a)
		if code != "" {
			fmt.Fprintf(&ex, " (%s)", code)
		}
		fmt.Fprintf(&ex, ", so the attach/detach controller kept (volume, %s) as an uncertain attachment. Uncertain entries are ignored by the multi-attach check, so when the pod moved to %s the attach there went ahead with no Multi-Attach error; the detach loop, which does include uncertain entries, detached %s only afterwards (%s after the attach to %s). ", a, b, a, dur(gap), b)
	case st == timeline.Attaching:
		fmt.Fprintf(&ex, "The attach of %s to %s had not completed when the attach to %s started; the multi-attach check only counts attach-confirmed nodes. ", name(v), a, b)
	default:
		fmt.Fprintf(&ex, "%s was attach-confirmed on %s, yet the attach to %s started without a Multi-Attach error — the controller's state for %s was likely rebuilt (restart) or the volume's access mode was read as multi-node. ", name(v), a, b, a)
	}
	ex.WriteString("The reconciler runs detaches before attaches, but a detach is skipped while the old node still reports the volume in node.status.volumesInUse, or while the volume's operation is pending or backing off, so the attach to the new node can win. ")
	if len(missing) > 0 {
		n := total(missing)
		f.Summary = fmt.Sprintf("the disk was pulled off %s by a detach meant for %s: attach to %s at %s while %s was %s, detach from %s %s later, then the kubelet on %s could not find the device (×%d)",
			b, a, b, clock(bOK.Time.UTC()), a, strings.SplitN(stateWord, " (", 2)[0], a, dur(gap), b, n)
		fmt.Fprintf(&ex, "After the detach from %s, the kubelet on %s failed to find the device %s — the detach removed the disk from %s, the node that was actually using it: the driver's ControllerUnpublishVolume for %s did not check which instance held the disk. The VolumeAttachment for %s still says attached, so the controller will not re-attach it by itself.", a, b, plural(n, "time"), b, a, b)
		f.End = missing[len(missing)-1].Time.UTC()
		f.SetNext(unpublishSteps(v, a, b)...)
	} else {
		fmt.Fprintf(&ex, "Whether this harmed %s depends on the driver: ControllerUnpublishVolume for %s must only detach the disk if %s holds it.", b, a, a)
		steps := []Step{
			{Confirm, fmt.Sprintf("Check in the cloud console that the disk is still attached to %s, and the kubelet log on %s for device errors (these logs have none from %s).", b, b, b)},
			{Fix, fmt.Sprintf("Make sure the driver's ControllerUnpublishVolume%s checks which instance holds the disk before detaching.", driverNote(driverOf(v)))},
		}
		if isCBS(v) {
			steps = append(steps, Step{Fix, "Tencent CBS CSI images before v2.3.2 detach without that check: upgrade the cbs-csi controller."})
		}
		f.SetNext(steps...)
	}
	f.Explanation = ex.String()
	return f
}

// unpublishSteps are the next steps when a detach meant for A hit B.
func unpublishSteps(v *timeline.Volume, a, b string) []Step {
	steps := []Step{
		{Recover, fmt.Sprintf("Delete the pod on %s (or its VolumeAttachment) so the controller attaches the volume again.", b)},
		{Confirm, fmt.Sprintf("In the cloud audit log, confirm the disk was detached from %s at the time of the detach from %s.", b, a)},
		{Fix, fmt.Sprintf("Fix the CSI driver's ControllerUnpublishVolume%s: it must compare the disk's current instance with the node being unpublished (%s) and do nothing when they differ.", driverNote(driverOf(v)), a)},
	}
	if isCBS(v) {
		steps = append(steps, Step{Fix, "Upgrade the cbs-csi controller to image v2.3.2 or later (commit db69d52, 2023-02-15: \"disk … is already attached to node …, assuming the disk is detached\")."})
	}
	return steps
}

// attachedElsewhereByBackend covers logs that show only the new node's side:
// the cloud refused the attach because the disk is still on another instance
// (VolumeInUse), so the attach to this node was tried before the detach.
func attachedElsewhereByBackend(v *timeline.Volume) []Finding {
	fails := timeline.Counted(filter(v, func(e *parser.Event) bool {
		return e.Kind == parser.AttachFailed && e.Code == parser.CodeVolumeInUse
	}))
	if len(fails) == 0 {
		return nil
	}
	byTime(fails)
	first, last := spanOf(fails)
	n := total(fails)
	node := fails[0].Node
	succ := firstAfterTime(v, last, func(e *parser.Event) bool { return e.Kind == parser.AttachSucceeded })
	ev := series(fails, "attach refused: the disk is still attached to another instance")
	sum := fmt.Sprintf("attach of %s to %s was tried %d× while the disk was still attached to another instance (VolumeInUse)", name(v), nodeOr(node), n)
	ex := fmt.Sprintf("The attach/detach controller started the attach to %s while the cloud still had the disk attached elsewhere; the old node's side is not in these logs. The controller only does this when it does not count the old attachment as confirmed — an uncertain attachment (a failed attach or detach there), or a state rebuilt after a restart. The cloud refused, so the harm here is delay: the attach is retried with backoff (500ms doubling to 2m2s) until the detach from the old instance completes.", nodeOr(node))
	end := last
	if succ != nil {
		ev = append(ev, evidence(*succ, "attach finally succeeded"))
		ex += fmt.Sprintf(" The attach succeeded at %s, %s after the first refusal.", clock(succ.Time.UTC()), dur(succ.Time.UTC().Sub(first)))
		end = succ.Time.UTC()
	}
	return []Finding{{
		Severity:    Warning,
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(fails),
		Start:       first,
		End:         end,
		Count:       n,
		Code:        parser.CodeVolumeInUse,
		Summary:     sum,
		Explanation: ex,
		Next:        "Add the old node's KCM and kubelet logs to see why the controller did not detach it first (failed attach there → uncertain, or a controller restart); check the old node's VolumeAttachment and the detach lines for it.",
		Evidence:    ev,
	}}
}

// firstAfterTime returns the first event after t satisfying ok.
func firstAfterTime(v *timeline.Volume, t time.Time, ok func(*parser.Event) bool) *parser.Event {
	for i := range v.Events {
		if v.Events[i].Time.UTC().After(t) && ok(&v.Events[i]) {
			return &v.Events[i]
		}
	}
	return nil
}

// storyAttachBeforeDetach tells the finding as its three moves: the attach
// to B, its success while A still held the volume, the late detach from A.
func storyAttachBeforeDetach(f *Finding, _ *Chain) ([]string, []Step) {
	if len(f.Nodes) < 2 {
		return []string{stamp(f.Start, f.Summary)}, f.Steps
	}
	a, b := f.Nodes[0], f.Nodes[1]
	out := []string{
		stamp(f.Start, fmt.Sprintf("pod moved: attach to %s started", b)),
	}
	var bOK, det, done string
	for _, e := range f.Evidence {
		switch {
		case strings.HasPrefix(e.Note, "attach to "+b+" succeeded"):
			bOK = clock(e.Time)
		case strings.HasPrefix(e.Note, "detach from "+a+" only now"):
			det = clock(e.Time)
		case strings.HasPrefix(e.Note, "detach from "+a+" "):
			done = strings.TrimPrefix(e.Note, "detach from "+a+" ") + " " + clock(e.Time)
		}
	}
	state := "still uncertain"
	if strings.Contains(f.Summary, "still attaching") {
		state = "still attaching"
	} else if strings.Contains(f.Summary, "still attached") {
		state = "still attached"
	}
	if bOK != "" {
		out = append(out, fmt.Sprintf("%s attach to %s succeeded while %s was %s (no Multi-Attach error)", bOK, b, a, state))
	}
	if det != "" {
		s := fmt.Sprintf("%s detach from %s", det, a)
		if done != "" {
			s += " → " + done
		}
		out = append(out, s)
	}
	return out, f.Steps
}

// causeAttachBeforeDetach: an attach-before-detach is the root cause of
// whatever follows it on the volume.
func causeAttachBeforeDetach(c *Chain) (Cause, bool) {
	abd, dev := c.First("attach-before-detach"), c.First("mount-device-not-found")
	driver, volName := c.Driver(), c.Name()
	var out Cause
	switch {
	case len(abd.Nodes) >= 2 && (dev != nil || strings.HasPrefix(abd.Summary, "the disk was pulled off")):
		a, b := abd.Nodes[0], abd.Nodes[1]
		out.Summary = fmt.Sprintf("The disk was pulled off %s by a detach meant for %s: the CSI driver's ControllerUnpublishVolume detached it without checking which instance held it.", b, a)
		out.Component = "CSI driver ControllerUnpublishVolume"
		if driver != "" {
			out.Component += " (" + driver + ")"
		}
		out.RootCause = fmt.Sprintf("%s's attach to %s had failed, which leaves (volume, %s) uncertain in the attach/detach controller's actual state of world. Uncertain attachments are skipped by the multi-attach check, so when the pod moved, the attach to %s succeeded first; the detach loop then detached the stale uncertain entry on %s. The driver's ControllerUnpublishVolume for %s detached the disk wherever it was — from %s — so the kubelet on %s cannot find the device, while the VolumeAttachment for %s still says attached.", volName, a, a, b, a, a, b, b, b)
		if strings.Contains(driver, "tencent.cloud.csi.cbs") || strings.Contains(driver, "qcloud-cbs") {
			out.RootCause += " The Tencent Cloud CBS CSI driver before image v2.3.2 called DetachDisks without an instance check; v2.3.2 (commit db69d52, 2023-02-15) returns success when the disk is attached to another instance."
			out.Component += ", fixed in cbs-csi image v2.3.2"
		}
	case len(abd.Nodes) < 2:
		out.Summary = abd.Summary
		out.Component = "the detach from the previous node (not in these logs)"
		out.RootCause = "The attach to this node was tried while the cloud still had the disk on another instance: the controller did not hold the old attachment as confirmed (a failed attach or detach there, or a restart), so no Multi-Attach error stopped it. The cloud refused, so the cost is the delay until the old detach finished."
	default:
		a, b := nodeAt(abd, 0), nodeAt(abd, 1)
		out.Summary = fmt.Sprintf("%s was attached to %s before it was detached from %s; check that the driver's detach checks the instance.", volName, b, a)
		out.Component = "attach/detach controller ordering + CSI driver ControllerUnpublishVolume"
		out.RootCause = "An uncertain (failed) or unconfirmed attachment on the old node does not block an attach elsewhere; the old node's detach runs afterwards. Harmless only if the driver's ControllerUnpublishVolume refuses to detach a disk that is attached to another instance."
	}
	return out, true
}

// reorderAttachBeforeDetach places a device going missing on the same node
// after the attach-before-detach that explains it, and a retry storm or a
// Multi-Attach error there before it.
func reorderAttachBeforeDetach(abd, f *Finding, at time.Time) time.Time {
	switch {
	case f.Rule == "mount-device-not-found" && related(f, abd) && !at.After(abd.Start):
		return abd.Start.Add(time.Nanosecond)
	case (f.Rule == "attach-retry-storm" || f.Rule == "multi-attach") && related(f, abd) && !at.Before(abd.Start):
		return abd.Start.Add(-time.Nanosecond)
	}
	return at
}
