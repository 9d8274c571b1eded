package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file holds the rules' questions to the cluster state (Rule.Verify):
// each turns a "check that …" next step into "confirmed: …" or
// "contradicted: …" with the objects as evidence, or says why the state
// cannot answer. A dump older than the log line a dynamic answer speaks to
// (an attachment, a registration, a count) does not overrule it: the
// verdict is then unknown, and says so.

// State is the cluster state read with the logs, or nil.
func (c *Context) State() *state.Snapshot { return c.Timeline.State }

// stateEvidence is a finding's evidence line for a state object.
func stateEvidence(ev state.Evidence, note string) Evidence {
	return Evidence{Path: ev.Source.Path, Line: ev.Source.Line, Time: ev.At, Text: ev.Text, Note: note, SourceKind: SourceState}
}

// answer records a check on f: its evidence, and for a confirmed or
// contradicted verdict the confirm step it answers (the first one whose
// text contains match; with match "" or none found, the verdict becomes a
// confirm step before the others).
func answer(f *Finding, ch Check, match string, evs ...Evidence) {
	f.Checks = append(f.Checks, ch)
	f.Evidence = append(f.Evidence, evs...)
	if ch.Verdict == Undecided {
		return
	}
	text := "Confirmed by the cluster state: " + ch.Text
	if ch.Verdict == Contradicted {
		text = "Contradicted by the cluster state: " + ch.Text
	}
	steps := slices.Clone(f.Steps)
	at := -1
	for i, s := range steps {
		if s.Phase == Confirm && match != "" && strings.Contains(s.Text, match) {
			at = i
			break
		}
	}
	if at >= 0 {
		steps[at].Text = text
	} else {
		i := slices.IndexFunc(steps, func(s Step) bool { return s.Phase >= Confirm })
		if i < 0 {
			i = len(steps)
		}
		steps = slices.Insert(steps, i, Step{Phase: Confirm, Text: text})
	}
	f.SetNext(steps...)
}

// stale says, when the dump behind evs was taken before the log time logAt,
// that the logs describe a newer state ("" when it is not older).
func stale(logAt time.Time, evs ...state.Evidence) string {
	for _, e := range evs {
		if !e.At.IsZero() && !logAt.IsZero() && e.At.Before(logAt) {
			return fmt.Sprintf("the state was taken by %s, before the log line at %s: the log wins", instant(e.At), instant(logAt))
		}
	}
	return ""
}

// volumeOf is the timeline volume of a finding, or nil.
func volumeOf(c *Context, f *Finding) *timeline.Volume {
	for _, v := range c.Timeline.Volumes {
		if key(v) == f.Volume {
			return v
		}
	}
	return nil
}

// stateName is the name to look a finding's volume up by in the state.
func stateName(f *Finding) string {
	if f.PV != "" {
		return f.PV
	}
	return f.Volume
}

// verifyZone: a ZoneNotMatch storm against the PV's zone and the node's.
func verifyZone(c *Context, f *Finding) {
	if f.Code != parser.CodeZoneNotMatch {
		return
	}
	snap, node := c.State(), nodeAt(f, 0)
	zc, ok := snap.CheckZone(stateName(f), node)
	if !ok {
		answer(f, Check{Check: "zone", Verdict: Undecided, Text: "the state does not name both the volume's zone and the zone of " + nodeOr(node) + "."}, "")
		verifyBinding(c, f)
		return
	}
	vz, nz := strings.Join(zc.Volume.Zones, ", "), strings.Join(zc.Node.Zones, ", ")
	evs := []Evidence{stateEvidence(zc.Volume.Evidence, "the disk's zone"), stateEvidence(zc.Node.Evidence, "the node's zone")}
	if zc.Match {
		answer(f, Check{Check: "zone", Verdict: Contradicted,
			Text: fmt.Sprintf("the volume may be attached in %s and %s is in %s: the zones match, so ZoneNotMatch comes from elsewhere (the disk's actual zone in the cloud, a stale PV).", vz, node, nz)},
			"Compare the disk's zone", evs...)
		return
	}
	answer(f, Check{Check: "zone", Verdict: Confirmed,
		Text: fmt.Sprintf("the disk is in %s (PV %s) and %s is in %s.", vz, zc.Volume.Key, node, nz)},
		"Compare the disk's zone", evs...)
	verifyBinding(c, f)
}

// verifyBinding: the StorageClass's volumeBindingMode decides the zone
// storm's prevent step. Immediate creates the disk before the pod is
// scheduled, in a zone of the provisioner's choosing: WaitForFirstConsumer
// prevents the mismatch. With WaitForFirstConsumer already set the disk
// followed the pod's first node, and the pod moved zones since.
func verifyBinding(c *Context, f *Finding) {
	sc, ev, ok := c.State().Class(stateName(f))
	if !ok {
		return
	}
	evs := []Evidence{stateEvidence(ev, "the volume's StorageClass")}
	var ch Check
	var prevent string
	if sc.BindingMode == "WaitForFirstConsumer" {
		ch = Check{Check: "binding", Verdict: Contradicted, Text: fmt.Sprintf("StorageClass %s already uses volumeBindingMode: WaitForFirstConsumer: the disk was created in the zone of the pod's first node, and the pod was scheduled into another zone since.", sc.Name)}
		prevent = fmt.Sprintf("As shown by the cluster state, StorageClass %s already waits for the first consumer: keep the workload in the disk's zone (node affinity on %s), or move the data with a snapshot restored in the new zone.", sc.Name, state.LabelZone)
	} else {
		ch = Check{Check: "binding", Verdict: Confirmed, Text: fmt.Sprintf("StorageClass %s uses volumeBindingMode: %s: the disk was created before the pod was scheduled, in a zone the pod's node need not be in.", sc.Name, sc.BindingMode)}
		prevent = fmt.Sprintf("As shown by the cluster state, StorageClass %s uses volumeBindingMode: %s: change it to WaitForFirstConsumer (or set allowedTopologies) so disks are created in the zone of the pod's node.", sc.Name, sc.BindingMode)
	}
	f.Checks = append(f.Checks, ch)
	f.Evidence = append(f.Evidence, evs...)
	steps := slices.Clone(f.Steps)
	if i := slices.IndexFunc(steps, func(s Step) bool { return s.Phase == Prevent }); i >= 0 {
		steps[i].Text = prevent
	} else {
		steps = append(steps, Step{Phase: Prevent, Text: prevent})
	}
	f.SetNext(steps...)
}

// verifyForceDetach: was the node down (Ready condition, out-of-service
// taint), and did the forced detach reach the external-attacher (the
// node's VolumeAttachment gone, or still deleting / with a detachError)?
func verifyForceDetach(c *Context, f *Finding) {
	node := nodeAt(f, 0)
	if node == "" {
		return
	}
	snap := c.State()
	forcedAt := f.Start
	for _, e := range f.Evidence {
		if e.Note == "forced detach" {
			forcedAt = e.Time
		}
	}
	if h, ok := snap.NodeHealth(node); ok {
		evs := []Evidence{stateEvidence(h.Evidence, "the node's Ready condition and taints")}
		switch {
		case h.OutOfService != nil:
			added := ""
			if !h.OutOfService.Added.IsZero() {
				added = " since " + instant(h.OutOfService.Added)
			}
			answer(f, Check{Check: "node", Verdict: Confirmed, Text: fmt.Sprintf("Node %s carries the %s taint (%s)%s: an operator declared it down, so the detach was forced on purpose.", node, state.OutOfServiceTaint, h.OutOfService.Effect, added)}, "NotReady", evs...)
		case h.Ready == "False" || h.Ready == "Unknown":
			answer(f, Check{Check: "node", Verdict: Confirmed, Text: fmt.Sprintf("Node %s is NotReady (Ready=%s%s): the node was down, so the forced detach is what let the volume move.", node, h.Ready, since(h.ReadySince))}, "NotReady", evs...)
		case h.Ready == "True" && !h.ReadySince.IsZero() && !forcedAt.IsZero() && h.ReadySince.Before(forcedAt):
			answer(f, Check{Check: "node", Verdict: Contradicted, Text: fmt.Sprintf("Node %s has been Ready since %s, before the forced detach at %s, and has no out-of-service taint: the node was alive, so check the volume's filesystem.", node, instant(h.ReadySince), instant(forcedAt))}, "NotReady", evs...)
		case h.Ready == "True":
			answer(f, Check{Check: "node", Verdict: Undecided, Text: fmt.Sprintf("Node %s is Ready%s, after the forced detach: it says nothing about the node at the time.", node, since(h.ReadySince))}, "", evs...)
		}
	}
	vol := stateName(f)
	va := snap.AttachmentOn(vol, node)
	switch {
	case va == nil && len(snap.VolumeAttachments) > 0:
		answer(f, Check{Check: "attachment", Verdict: Confirmed, Text: fmt.Sprintf("the state holds no VolumeAttachment of the volume for %s: the forced detach went through.", node)}, "")
	case va == nil:
	case va.Deleting() || va.DetachError != nil:
		what := "is being deleted"
		if len(va.Finalizers) > 0 {
			what += " but kept by its finalizers [" + strings.Join(va.Finalizers, " ") + "]"
		}
		if va.DetachError != nil {
			what += ", detachError " + strconv.Quote(va.DetachError.Message)
		}
		answer(f, Check{Check: "attachment", Verdict: Confirmed, Text: fmt.Sprintf("VolumeAttachment %s for %s %s: the controller forced the detach and the external-attacher has not finished it.", va.Name, node, what)}, "", stateEvidence(snap.AttachmentEvidence(va), "the VolumeAttachment for "+node))
	default:
		ev := snap.AttachmentEvidence(va)
		evs := []Evidence{stateEvidence(ev, "the VolumeAttachment for "+node)}
		if why := stale(f.End, ev); why != "" {
			answer(f, Check{Check: "attachment", Verdict: Undecided, Text: why + "."}, "", evs...)
			return
		}
		answer(f, Check{Check: "attachment", Verdict: Contradicted, Text: fmt.Sprintf("VolumeAttachment %s for %s says status.attached=%t and is not being deleted: the volume was attached there again since, or the detach never reached the attacher.", va.Name, node, va.Attached)}, "", evs...)
	}
}

// since is " since T" for a known time.
func since(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " since " + instant(t)
}

// verifyAttachBeforeDetach: the VolumeAttachment for B attached while A's
// is gone or being deleted.
func verifyAttachBeforeDetach(c *Context, f *Finding) {
	a, b := nodeAt(f, 0), nodeAt(f, 1)
	if a == "" || b == "" {
		return
	}
	snap, vol := c.State(), stateName(f)
	vaB, vaA := snap.AttachmentOn(vol, b), snap.AttachmentOn(vol, a)
	if vaB == nil {
		if len(snap.VolumeAttachments) > 0 {
			answer(f, Check{Check: "attachment", Verdict: Undecided, Text: "the state holds no VolumeAttachment of the volume for " + b + "."}, "")
		}
		return
	}
	evB := snap.AttachmentEvidence(vaB)
	evs := []Evidence{stateEvidence(evB, "the VolumeAttachment for "+b)}
	var evA state.Evidence
	if vaA != nil {
		evA = snap.AttachmentEvidence(vaA)
		evs = append(evs, stateEvidence(evA, "the VolumeAttachment for "+a))
	}
	if why := stale(f.End, evB); why != "" {
		answer(f, Check{Check: "attachment", Verdict: Undecided, Text: why + "."}, "", evs...)
		return
	}
	aSide := "node " + a + " has none (deleted)"
	if vaA != nil {
		switch {
		case vaA.Deleting():
			aSide = "the one for " + a + " is being deleted"
		case !vaA.Attached:
			aSide = "the one for " + a + " says status.attached=false"
		default:
			aSide = "the one for " + a + " still says status.attached=true"
		}
	}
	if !vaB.Attached {
		answer(f, Check{Check: "attachment", Verdict: Contradicted,
			Text: fmt.Sprintf("VolumeAttachment %s for %s says status.attached=false; %s.", vaB.Name, b, aSide)}, "", evs...)
		return
	}
	answer(f, Check{Check: "attachment", Verdict: Confirmed,
		Text: fmt.Sprintf("VolumeAttachment %s for %s says status.attached=true while %s: Kubernetes believes the disk is on %s even if the detach from %s took it away.", vaB.Name, b, aSide, b, a)}, "", evs...)
}

// verifyDetachFailed: the VolumeAttachment stuck in deletion or with a
// detachError, and whether the PV is gone.
func verifyDetachFailed(c *Context, f *Finding) {
	node := nodeAt(f, 0)
	snap, vol := c.State(), stateName(f)
	va := snap.AttachmentOn(vol, node)
	p := snap.VolumePresence(vol)
	var evs []Evidence
	for _, e := range p.Evidence {
		evs = append(evs, stateEvidence(e, "the PV and its claim"))
	}
	pvSide := ""
	switch {
	case p.PV == nil && p.Listed:
		pvSide = " The PV is not in the dumped PersistentVolumes: deleted."
	case p.Deleting:
		pvSide = " The PV or its claim is being deleted."
	}
	if va == nil {
		if len(snap.VolumeAttachments) > 0 {
			answer(f, Check{Check: "detach", Verdict: Undecided, Text: "the state holds no VolumeAttachment of the volume for " + nodeOr(node) + ": the detach finished since, or it was not dumped." + pvSide}, "", evs...)
		}
		return
	}
	ev := snap.AttachmentEvidence(va)
	evs = append([]Evidence{stateEvidence(ev, "the VolumeAttachment for "+nodeOr(node))}, evs...)
	switch {
	case va.StuckDetach() || va.DetachError != nil:
		what := "has a detachError"
		if va.StuckDetach() {
			what = "is being deleted but kept by its finalizers [" + strings.Join(va.Finalizers, " ") + "]: the external-attacher has not confirmed the detach"
			if va.DetachError != nil {
				what += ", detachError " + strconv.Quote(va.DetachError.Message)
			}
		}
		answer(f, Check{Check: "detach", Verdict: Confirmed, Text: fmt.Sprintf("VolumeAttachment %s for %s %s.%s", va.Name, nodeOr(node), what, pvSide)}, "", evs...)
	case !va.Attached && !va.Deleting():
		if why := stale(f.End, ev); why != "" {
			answer(f, Check{Check: "detach", Verdict: Undecided, Text: why + "."}, "", evs...)
			return
		}
		answer(f, Check{Check: "detach", Verdict: Contradicted, Text: fmt.Sprintf("VolumeAttachment %s for %s says status.attached=false with no detachError: the detach has finished.", va.Name, nodeOr(node))}, "", evs...)
	default:
		answer(f, Check{Check: "detach", Verdict: Undecided, Text: fmt.Sprintf("VolumeAttachment %s for %s is attached and not being deleted.", va.Name, nodeOr(node))}, "", evs...)
	}
}

// verifyDriverRegistered: the CSINode's drivers.
func verifyDriverRegistered(c *Context, f *Finding) {
	node := nodeAt(f, 0)
	driver := ""
	for _, e := range f.Evidence {
		if driver = driverNamed(e.Text); driver != "" {
			break
		}
	}
	if v := volumeOf(c, f); driver == "" && v != nil {
		driver = driverOf(v)
	}
	if node == "" || driver == "" {
		return
	}
	snap := c.State()
	d, ok := snap.DriverOnNode(node, driver)
	if !ok {
		answer(f, Check{Check: "driver", Verdict: Undecided, Text: "the state holds no CSINode for " + node + "."}, "")
		return
	}
	ev := []Evidence{stateEvidence(d.Evidence, "the node's registered drivers")}
	if !d.Registered {
		answer(f, Check{Check: "driver", Verdict: Confirmed, Text: fmt.Sprintf("CSINode %s does not list %s in spec.drivers.", node, driver)}, "spec.drivers should list", ev...)
		return
	}
	text := fmt.Sprintf("CSINode %s lists %s (nodeID %s)", node, driver, d.NodeID)
	if !d.Evidence.At.IsZero() && d.Evidence.At.After(f.End) {
		text += fmt.Sprintf(" at %s, after the last failure: registered since?", instant(d.Evidence.At))
	}
	answer(f, Check{Check: "driver", Verdict: Contradicted, Text: text + "."}, "spec.drivers should list", ev...)
}

// verifyAttachLimit: attached volumes against allocatable.count.
func verifyAttachLimit(c *Context, f *Finding) {
	node := nodeAt(f, 0)
	if node == "" {
		return
	}
	driver := ""
	if v := volumeOf(c, f); v != nil {
		driver = driverOf(v)
	}
	l, ok := c.State().LoadOnNode(node, driver)
	if !ok {
		return
	}
	var evs []Evidence
	for _, e := range l.Evidence {
		evs = append(evs, stateEvidence(e, "the node's attached volumes and limit"))
	}
	switch {
	case l.Limit < 0:
		answer(f, Check{Check: "limit", Verdict: Undecided, Text: fmt.Sprintf("%s has %d volumes attached and the state names no limit (no CSINode allocatable.count).", node, l.Count)}, "", evs...)
	case l.Full:
		answer(f, Check{Check: "limit", Verdict: Confirmed, Text: fmt.Sprintf("%s has %d volumes attached against allocatable.count %d.", node, l.Count, l.Limit)}, "Count every disk attached", evs...)
	default:
		answer(f, Check{Check: "limit", Verdict: Contradicted, Text: fmt.Sprintf("%s has %d volumes attached against allocatable.count %d: below the limit (non-Kubernetes disks count in the cloud too).", node, l.Count, l.Limit)}, "Count every disk attached", evs...)
	}
}

// verifyAccess: a Multi-Attach error against the PV's access modes.
func verifyAccess(c *Context, f *Finding) {
	modes, ev, ok := c.State().Access(stateName(f))
	if !ok {
		return
	}
	evs := []Evidence{stateEvidence(ev, "the PV's access modes")}
	list := strings.Join(modes, " ")
	if slices.Contains(modes, "RWX") || slices.Contains(modes, "ROX") {
		answer(f, Check{Check: "access", Verdict: Contradicted, Text: fmt.Sprintf("the PV's accessModes are [%s]: it may be attached to several nodes, so a Multi-Attach error means the driver or plugin does not support that mode.", list)}, "", evs...)
		return
	}
	answer(f, Check{Check: "access", Verdict: Confirmed, Text: fmt.Sprintf("the PV's accessModes are [%s]: one node at a time.", list)}, "", evs...)
}

// verifySlowAttach: is there a VolumeAttachment for the node at all?
func verifySlowAttach(c *Context, f *Finding) {
	snap, node := c.State(), nodeAt(f, 0)
	if node == "" || len(snap.VolumeAttachments) == 0 {
		return // a dump without VolumeAttachments says nothing about them
	}
	pv := snap.PV(stateName(f))
	if pv != nil && !pv.CSI() {
		return // in-tree volumes have no VolumeAttachment
	}
	va := snap.AttachmentOn(stateName(f), node)
	if va == nil {
		var evs []Evidence
		if pv != nil {
			evs = append(evs, stateEvidence(snap.VolumePresence(pv.Name).Evidence[0], "the PV"))
		}
		answer(f, Check{Check: "attachment", Verdict: Confirmed, Text: fmt.Sprintf("no VolumeAttachment of the volume for %s is in the state: the external-attacher never saw the attach (the controller did not create one, or it was deleted).", node)}, "", evs...)
		return
	}
	ev := snap.AttachmentEvidence(va)
	evs := []Evidence{stateEvidence(ev, "the VolumeAttachment for "+node)}
	switch {
	case va.Attached:
		answer(f, Check{Check: "attachment", Verdict: Undecided, Text: fmt.Sprintf("VolumeAttachment %s for %s says status.attached=true by the time of the dump: the attach finished.", va.Name, node)}, "", evs...)
	case va.AttachError != nil:
		answer(f, Check{Check: "attachment", Verdict: Confirmed, Text: fmt.Sprintf("VolumeAttachment %s for %s is not attached, attachError %s.", va.Name, node, strconv.Quote(va.AttachError.Message))}, "", evs...)
	default:
		answer(f, Check{Check: "attachment", Verdict: Confirmed, Text: fmt.Sprintf("VolumeAttachment %s for %s exists, not attached and without attachError: the external-attacher has it and is waiting on the driver.", va.Name, node)}, "", evs...)
	}
}
