package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleOperationPending = Register(Rule{
	Name:     "operation-pending",
	Severity: Warning,
	Doc: Doc{
		Title: "CSI calls for a volume are refused because an earlier operation on it is still running",
		Explanation: `CSI drivers serialise the operations on one volume: while a
ControllerPublishVolume / ControllerUnpublishVolume (controller side, called
by the external-attacher for a VolumeAttachment) or a NodeStageVolume /
NodeUnstageVolume (node side, called by the kubelet's operation executor for
MountDevice / UnmountDevice) is in flight, every new call for the same volume
ID returns Aborted: "An operation with the given Volume ID … already
exists", Longhorn's "The volume … is attaching". Kubernetes retries with
backoff (the external-attacher's workqueue, the kubelet's
nestedpendingoperations), so a storm of Aborted lines means the first call
has not returned — it hangs in the cloud API, on a dead storage path, in a
stuck mount (blobfuse, SMB on Windows, an iSCSI login) — and everything
queued behind it waits: a pending NodeUnstage keeps the device mounted, so
the node keeps the volume in volumesInUse and the attach/detach controller
cannot detach it; a pending ControllerPublish keeps the VolumeAttachment
unattached and the kubelet waits in VerifyControllerAttachedVolume. An Aborted
"… is attached" for a volume already attached is a driver that is not
idempotent, not a pending operation.`,
		Next: `Find the first call for the volume in the driver's log (the controller plugin
for ControllerPublish/Unpublish, the node plugin on that node for
NodeStage/NodeUnstage) and what it waits on; restart the driver container
holding the lock if the call is hung (the lock is in memory); then fix what
hung it.`,
	},
	Params: []Param{
		{Key: "min-repeats", Default: "2", Help: "Aborted replies for one volume that make a warning (fewer: info)"},
	},
	Check:      checkOperationPending,
	Rank:       35,
	Story:      summaryStory,
	Cause:      causeOperationPending,
	CauseOrder: 45,
})

// callWindow is how long before a CSI error the call it answers may have
// been logged ("GRPC call: /csi.v1.Node/NodeUnstageVolume" and its request).
const callWindow = 5 * time.Second

func isOperationPending(e *parser.Event) bool {
	return ownCode(e, parser.CodeOperationPending)
}

func checkOperationPending(c *Context) []Finding {
	minRep := c.Int("min-repeats")
	calls := grpcCalls(c.Timeline)
	var out []Finding
	for _, v := range c.Timeline.Volumes {
		evs := timeline.Counted(filter(v, isOperationPending))
		if len(evs) == 0 {
			continue
		}
		byTime(evs)
		out = append(out, operationPendingFinding(v, evs, calls, minRep))
	}
	return out
}

// grpcCalls lists the "GRPC call: /csi.v1.…" lines of the timeline (volume
// or not), in time order.
func grpcCalls(tl *timeline.Timeline) []parser.Event {
	var out []parser.Event
	add := func(e *parser.Event) {
		if strings.HasPrefix(e.Detail, "/csi.v1.") {
			out = append(out, *e)
		}
	}
	for _, v := range tl.Volumes {
		for i := range v.Events {
			add(&v.Events[i])
		}
	}
	for i := range tl.Other {
		add(&tl.Other[i])
	}
	byTime(out)
	return out
}

// callOf returns the CSI method ("NodeUnstageVolume") of the last call
// logged in e's input within callWindow before e, or "".
func callOf(calls []parser.Event, e *parser.Event) string {
	m := ""
	for i := range calls {
		k := &calls[i]
		if k.Source.Input != e.Source.Input || k.Time.After(e.Time) {
			continue
		}
		if e.Time.Sub(k.Time) <= callWindow {
			m = k.Detail[strings.LastIndexByte(k.Detail, '/')+1:]
		}
	}
	return m
}

// operationSide names the side of a pending operation from the call it
// answers or, without one, from the event.
func operationSide(method string, e *parser.Event) string {
	l := strings.ToLower(e.Error)
	switch {
	case strings.HasPrefix(method, "Controller"), kindIn(e.Kind, parser.AttachFailed, parser.DetachFailed),
		e.Detail == "attach" || e.Detail == "detach", strings.Contains(l, "is attaching"), strings.Contains(l, "is detaching"):
		return "controller"
	case strings.HasPrefix(method, "Node"), e.Component == parser.ComponentKubelet,
		kindIn(e.Kind, parser.MountDeviceFailed, parser.SetupFailed, parser.TeardownFailed, parser.UnmountDeviceFailed):
		return "node"
	}
	return ""
}

func operationPendingFinding(v *timeline.Volume, evs []parser.Event, calls []parser.Event, minRep int) Finding {
	first, last := spanOf(evs)
	n := total(evs)
	var methods []string
	side := ""
	attached := false
	for i := range evs {
		m := callOf(calls, &evs[i])
		if m != "" && !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
		if s := operationSide(m, &evs[i]); side == "" {
			side = s
		}
		attached = attached || strings.Contains(strings.ToLower(evs[i].Error), " is attached")
	}
	node := ""
	if nodes, _ := groupByNode(evs); len(nodes) > 0 {
		node = nodes[len(nodes)-1]
	}
	ops := strings.Join(methods, ", then ")
	if ops == "" {
		l := strings.ToLower(evs[0].Error)
		switch {
		case strings.Contains(l, "is attaching") || strings.Contains(l, "is attached"):
			ops = "ControllerPublishVolume"
		case strings.Contains(l, "is detaching"):
			ops = "ControllerUnpublishVolume"
		}
	}
	if ops == "" {
		switch side {
		case "controller":
			ops = "ControllerPublish/ControllerUnpublish"
		case "node":
			ops = "NodeStage/NodeUnstage"
		default:
			ops = "CSI calls"
		}
	}
	sideName := map[string]string{"controller": "controller side (external-attacher → CSI controller plugin)",
		"node": "node side (kubelet → CSI node plugin)", "": "side not shown"}[side]
	sum := fmt.Sprintf("%s for %s refused %s with Aborted: an earlier operation on the volume is still running (%s side)", ops, name(v), plural(n, "time"), side)
	if side == "" {
		sum = fmt.Sprintf("%s for %s refused %s with Aborted: an earlier operation on the volume is still running", ops, name(v), plural(n, "time"))
	}
	if last.Sub(first) > 0 {
		sum += " over " + dur(last.Sub(first))
	}
	var ex strings.Builder
	fmt.Fprintf(&ex, "The CSI driver answered %s for %s %s with Aborted (%s): it holds a per-volume lock for an earlier call that has not returned, and refuses every new call for the same volume ID until it does. ", ops, name(v), plural(n, "time"), sideName)
	var blocks string
	var steps []Step
	switch {
	case attached:
		ex.WriteString(`The reply says the volume "is attached": a driver that answers Aborted for a volume already attached to the requested node is not idempotent (CSI requires OK), so the attach never completes although nothing is pending. `)
		steps = append(steps, Step{Fix, "Upgrade the CSI driver: ControllerPublishVolume must return OK for a volume already published to that node."})
	case side == "node" && strings.Contains(ops, "NodeUnstage"):
		blocks = "the unmount (UnmountDevice → NodeUnstageVolume), hence the detach: the node keeps the volume in node.status.volumesInUse, so the attach/detach controller's safe-to-detach check refuses and the volume cannot move to another node"
	case side == "node":
		blocks = "the mount (MountDevice → NodeStageVolume), hence the pod, which stays ContainerCreating with \"Unable to attach or mount volumes\""
	case side == "controller" && strings.Contains(ops, "Unpublish"):
		blocks = "the detach (ControllerUnpublishVolume), hence an attach of the volume elsewhere (Multi-Attach)"
	case side == "controller":
		blocks = "the attach: the VolumeAttachment stays attached=false and the kubelet waits in VerifyControllerAttachedVolume"
	}
	if blocks != "" {
		fmt.Fprintf(&ex, "Waiting behind it: %s.", blocks)
	}
	plugin := "the CSI node plugin on " + nodeHere(node)
	if side == "controller" {
		plugin = "the CSI controller plugin (and the external-attacher)"
	}
	if !attached {
		steps = append(steps,
			Step{Confirm, fmt.Sprintf("In the log of %s, find the first call for this volume before %s and what it waits on (a hung mount, cloud API, storage path).", plugin, clock(first))},
			Step{Recover, fmt.Sprintf("If that call is hung, restart %s: the per-volume lock is in memory, and the kubelet / external-attacher retries the call.", plugin)},
			Step{Fix, "Fix what hung the first call; make sure the driver times out its own operations rather than holding the lock forever."})
	}
	f := Finding{
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(evs),
		Start:       first,
		End:         last,
		Count:       n,
		Code:        parser.CodeOperationPending,
		Summary:     sum,
		Explanation: ex.String(),
		Evidence:    series(evs, "Aborted: operation pending"),
	}
	if node == "" {
		f.Nodes = nil
	}
	if n < minRep {
		f.Severity = Info
	}
	f.SetNext(steps...)
	return f
}

func causeOperationPending(c *Chain) (Cause, bool) {
	f := c.First("operation-pending")
	comp := "CSI driver (per-volume operation lock)"
	if strings.Contains(f.Summary, "(node side)") {
		comp = "CSI node plugin NodeStage/NodeUnstage"
	} else if strings.Contains(f.Summary, "(controller side)") {
		comp = "CSI controller plugin ControllerPublish/ControllerUnpublish"
	}
	return Cause{
		Summary:   f.Summary,
		Component: comp,
		RootCause: "An earlier CSI call for the volume never returned; the driver refuses every later call for it with Aborted, and the operations queued behind it (unmount and detach, or attach and mount) wait.",
	}, true
}
