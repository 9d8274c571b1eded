package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleAttachStateLost = Register(Rule{
	Name:     "attach-state-lost",
	Severity: Warning,
	Doc: Doc{
		Title: "The controller dropped an attachment without a detach, or detached a burst of volumes after a restart",
		Explanation: `The attach/detach controller keeps its actual state of world in memory. Two
paths change it without a normal detach:

VerifyVolumesAreAttached (syncStates, every
--attach-detach-reconcile-sync-period, default 1m) asks the volume plugin
whether each attach-confirmed volume is still attached; when the answer is no
it logs "… is no longer attached to node …, therefore it was marked as
detached" and forgets the attachment. Something outside Kubernetes detached
the disk (or the plugin answered wrongly); pods on that node lose their
device. For CSI the check reads VolumeAttachment.status.attached, so a disk
pulled off behind a VA that still says attached is not noticed at all.

On start (restart or leader change) the controller rebuilds its state from
node.status.volumesAttached and VolumeAttachment objects — VAs with
attached=false become uncertain — and from the pods it can see. A volume the
rebuilt desired state does not list is detached at once. A burst of detaches
right after a controller start, for volumes whose pods were not deleted and
whose kubelets never unmounted them, means the rebuilt state was wrong.`,
		Next: `For "marked as detached": find who detached the disk (cloud audit log, another
cluster or node, a detach meant for another node) and restart the affected
pods. For a burst after a restart: compare the detached volumes with the pods
still running, check the VolumeAttachment objects against the cloud, and the
new leader's informer sync before the detaches.`,
	},
	Params: []Param{
		{Key: "burst-window", Default: "5m", Help: "detaches this soon after a controller start count as part of a burst"},
		{Key: "burst-min", Default: "2", Help: "volumes detached in the window before it is a burst"},
	},
	Check:      checkAttachStateLost,
	Rank:       10,
	Story:      summaryStory,
	Cause:      causeAttachStateLost,
	CauseOrder: 20,
})

func checkAttachStateLost(c *Context) []Finding {
	window := c.Duration("burst-window")
	minVols := max(c.Int("burst-min"), 1)
	var out []Finding
	markedKinds := kindsOf(parser.MarkedDetached)
	for i, v := range c.Timeline.Volumes {
		if !c.vol(i).has(markedKinds) {
			continue
		}
		marked := timeline.Counted(filter(v, func(e *parser.Event) bool { return e.Kind == parser.MarkedDetached }))
		nodes, byNode := groupByNode(marked)
		for _, n := range nodes {
			out = append(out, markedDetachedFinding(v, n, byNode[n]))
		}
	}
	for _, r := range c.restarts() {
		// Only a start the logs show (controller start line, leader
		// election). A restart inferred from a new pid or a smaller m=+
		// is dated by the first line of the new process — often the detach
		// itself — so "right after the restart" cannot be told.
		if !strings.Contains(r.Reason, "start") && !strings.Contains(r.Reason, "leader") {
			continue
		}
		out = append(out, detachBurst(c, r, window, minVols)...)
	}
	return out
}

func markedDetachedFinding(v *timeline.Volume, node string, evs []parser.Event) Finding {
	byTime(evs)
	e := evs[0]
	ev := []Evidence{evidence(e, "controller forgot the attachment: no detach operation")}
	var later []parser.Event
	for i := range v.Events {
		if x := &v.Events[i]; x.Time.After(e.Time) && (x.Node == node || x.Node == "") && (isDeviceNotFound(x) || kindIn(x.Kind, parser.MountDeviceFailed, parser.SetupFailed)) {
			later = append(later, *x)
		}
	}
	later = timeline.Counted(later)
	if len(later) > 0 {
		ev = append(ev, evidence(later[0], "the node's mounts fail afterwards"))
	}
	ex := fmt.Sprintf("At %s VerifyVolumesAreAttached found %s no longer attached to %s and removed it from the controller's actual state of world without running a detach. The controller will attach it again if a pod on %s still wants it; until then the pod's I/O fails. Only attach-confirmed entries are verified, and for CSI the answer comes from the VolumeAttachment status.", clock(e.Time.UTC()), name(v), nodeOr(node), nodeOr(node))
	return Finding{
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(later),
		Start:       e.Time.UTC(),
		End:         evs[len(evs)-1].Time.UTC(),
		Count:       total(evs),
		Summary:     fmt.Sprintf("controller marked %s detached from %s without a detach (VerifyVolumesAreAttached)", name(v), nodeOr(node)),
		Explanation: ex,
		Steps: []Step{
			{Recover, "Restart the pods on " + nodeHere(node) + " that use the volume."},
			{Confirm, "Find what detached the disk from " + nodeHere(node) + ": the cloud audit log, a detach of this volume meant for another node, another cluster using the same disk."},
		},
		Evidence: ev,
	}
}

// burstKinds are the detach lines detachBurst counts.
var burstKinds = []parser.Kind{parser.DetachStarted, parser.DetachVerifiedSafe, parser.DetachSucceeded, parser.ForceDetach}

// detachBurst reports the volumes detached within window after restart r,
// when there are at least minVols of them and their nodes show no unmount.
func detachBurst(c *Context, r restart, window time.Duration, minVols int) []Finding {
	type hit struct {
		v *timeline.Volume
		e parser.Event
	}
	var hits []hit
	detaches := kindsOf(burstKinds...)
	for vi, v := range c.Timeline.Volumes {
		if vf := c.vol(vi); !vf.has(detaches) || !vf.mayHaveAfter(r.Time, window) {
			continue
		}
		for i := range v.Events {
			e := &v.Events[i]
			if e.Origin != 0 || !slices.Contains(burstKinds, e.Kind) {
				continue
			}
			if !e.Time.UTC().After(r.Time) || e.Time.UTC().Sub(r.Time) > window {
				continue
			}
			if unmountedBefore(v, e) || attachedSince(v, e, r.Time) {
				break
			}
			hits = append(hits, hit{v, *e})
			break // the first detach line per volume
		}
	}
	if len(hits) < minVols {
		return nil
	}
	var vols []string
	for _, h := range hits {
		vols = append(vols, name(h.v))
	}
	var out []Finding
	for _, h := range hits {
		after := h.e.Time.UTC().Sub(r.Time)
		ev := []Evidence{evidence(h.e, fmt.Sprintf("detach %s after the controller start", dur(after)))}
		if r.Event != nil {
			ev = append(ev, evidence(*r.Event, "controller (re)started: state rebuilt from node status and VolumeAttachments"))
		}
		if done := firstAfterTime(h.v, h.e.Time.Add(-time.Nanosecond).UTC(), func(x *parser.Event) bool {
			return x.Node == h.e.Node && x.Origin == 0 && kindIn(x.Kind, parser.DetachSucceeded, parser.DetachFailed) && x.Source != h.e.Source
		}); done != nil {
			ev = append(ev, evidence(*done, "detach "+strings.TrimPrefix(done.Kind.String(), "detach-")))
		}
		reason := r.Reason
		if reason == "" {
			reason = "controller-started"
		}
		out = append(out, Finding{
			Volume:  key(h.v),
			PV:      h.v.PV,
			Nodes:   []string{h.e.Node},
			Start:   h.e.Time.UTC(),
			End:     h.e.Time.UTC(),
			Count:   1,
			Summary: fmt.Sprintf("%s detached from %s %s after a controller restart (%s), one of %d volumes detached in a burst with no unmount seen", name(h.v), nodeOr(h.e.Node), dur(after), reason, len(hits)),
			Explanation: fmt.Sprintf("The attach/detach controller (re)started at %s (%s) and rebuilt its state; within %s it detached %s (%s), including %s from %s. No kubelet unmount of these volumes precedes the detaches in the input, so nothing shows their pods were gone: the rebuilt desired state of world likely missed pods that were still running (informers not synced, pods not yet visible), and the detach loop removed their volumes.",
				clock(r.Time), reason, dur(window), plural(len(hits), "volume"), strings.Join(vols, ", "), name(h.v), nodeOr(h.e.Node)),
			Next:     "Check whether the pods using these volumes were still running at the time; compare VolumeAttachment objects with the cloud's view and re-create any that were lost; look at the new leader's informer cache sync lines before the first detach.",
			Evidence: ev,
		})
	}
	return out
}

// attachedSince reports an attach of v to e.Node logged after since and
// before e: this controller instance attached it itself, so its detach is
// ordinary bookkeeping of a pod that went away, not state lost in a rebuild
// (which can only drop attachments made before the restart).
func attachedSince(v *timeline.Volume, e *parser.Event, since time.Time) bool {
	for i := range v.Events {
		x := &v.Events[i]
		if x.Time.After(e.Time) {
			break
		}
		if x.Time.UTC().After(since) && x.Node == e.Node && x.Origin == 0 && kindIn(x.Kind, parser.AttachStarted, parser.AttachSucceeded) {
			return true
		}
	}
	return false
}

// unmountedBefore reports kubelet unmount evidence for (v, e.Node) before e.
func unmountedBefore(v *timeline.Volume, e *parser.Event) bool {
	for i := range v.Events {
		x := &v.Events[i]
		if x.Time.After(e.Time) {
			break
		}
		if (x.Node == e.Node || x.Node == "") && kindIn(x.Kind, parser.UnmountStarted, parser.TeardownSucceeded, parser.UnmountDeviceSucceeded, parser.KubeletVolumeDetached) {
			return true
		}
	}
	for _, iv := range v.Kubelet() {
		if iv.Node == e.Node && iv.State == timeline.Unmounted && !iv.Start().After(e.Time.UTC()) {
			return true
		}
	}
	return false
}

// causeAttachStateLost: a lost attachment that opens the chain explains the
// device errors after it; later in the chain, a missing device names the
// incident instead.
func causeAttachStateLost(c *Chain) (Cause, bool) {
	f := c.First("attach-state-lost")
	dev := c.First("mount-device-not-found")
	out := Cause{Summary: f.Summary, Component: "attach/detach controller state (KCM restart / VerifyVolumesAreAttached) and the cloud"}
	switch {
	case c.Findings[0].Rule == "attach-state-lost":
		out.RootCause = "The controller's actual state of world changed without a normal detach: either periodic verification found the disk gone (something outside Kubernetes detached it), or a restarted controller rebuilt its state and detached volumes whose pods it did not see."
		if dev != nil {
			out.RootCause += " The kubelet's device errors that follow are the consequence."
		}
	case dev != nil:
		return Cause{}, false
	default:
		out.RootCause = "The controller's actual state of world changed without a normal detach: either periodic verification found the disk gone, or a restarted controller rebuilt its state and detached volumes whose pods it did not see."
	}
	return out, true
}
