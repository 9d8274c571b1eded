package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleAttachLimit = Register(Rule{
	Name:     "attach-limit",
	Severity: Warning,
	Doc: Doc{
		Title: "An attach was refused because the node's volume limit is reached",
		Explanation: `Every machine type takes only so many disks: AWS Nitro instances share about
28 attachment slots between EBS volumes, ENIs and NVMe instance stores, Azure
VM sizes allow N data disks, GCE machine types a maximum_persistent_disks,
OpenStack nova a maximum of disk devices per instance. The scheduler keeps
pods off full nodes by counting the volumes on each node against the
CSINode's spec.drivers[].allocatable.count (the NodeVolumeLimits filter,
"node(s) exceed max volume count") — but only when that count is right and
only for volumes it knows about. When the count is too high (a wrong or
missing --volume-attach-limit, ENIs or disks attached outside Kubernetes,
leaked attachments), the pod is placed anyway, the attach/detach controller
creates the VolumeAttachment, the external-attacher calls
ControllerPublishVolume, and the cloud refuses: AttachmentLimitExceeded,
OperationNotAllowed "The maximum number of data disks allowed to be attached
to a VM of this size is N", nova 403 "maximum allowed number of disk
devices". The operation executor retries with backoff (nestedpendingoperations,
500ms doubling to 2m2s) and every retry fails the same way until a disk is
detached from that node or the pod moves. Since Kubernetes 1.33 a driver
that returns ResourceExhausted can have the external-attacher lower the
CSINode's allocatable count (MutableCSINodeAllocatableCount). A
VolumeAttachment whose status.attachError is such a refusal is reported from
the cluster state alone when no log names its volume.`,
		Next: `Count the disks attached to the node in the cloud console (all of them, not
only Kubernetes'), compare with kubectl get csinode <node> -o yaml
(allocatable.count) and with the node's VolumeAttachments; detach leaked
disks or move the pod to another node; then set the driver's volume attach
limit to what the instance really takes (e.g. aws-ebs-csi-driver
volumeAttachLimit, or a larger instance size).`,
	},
	Check:      checkAttachLimit,
	Verify:     verifyAttachLimit,
	Rank:       25,
	Story:      summaryStory,
	Cause:      causeAttachLimit,
	CauseOrder: 65,
})

// limitJoin is how long before a volume-less limit error the attach it
// belongs to may have started in the same input (a controller plugin logs
// the call, the request, then the cloud's error).
const limitJoin = 30 * time.Second

func isAttachLimit(e *parser.Event) bool {
	return ownCode(e, parser.CodeAttachLimit)
}

func checkAttachLimit(c *Context) []Finding {
	var out []Finding
	joined := map[*timeline.Volume][]parser.Event{}
	var loose []parser.Event
	for i := range c.Timeline.Other {
		e := c.Timeline.Other[i]
		if !isAttachLimit(&e) {
			continue
		}
		if v := attachInFlight(c.Timeline, &e); v != nil {
			joined[v] = append(joined[v], e)
		} else {
			loose = append(loose, e)
		}
	}
	for _, v := range c.Timeline.Volumes {
		evs := append(filter(v, isAttachLimit), joined[v]...)
		if len(evs) == 0 {
			continue
		}
		nodes, groups := groupByNode(evs)
		for _, n := range nodes {
			out = append(out, attachLimitFinding(v, n, timeline.Counted(groups[n])))
		}
	}
	nodes, groups := groupByNode(loose)
	for _, n := range nodes {
		out = append(out, attachLimitFinding(nil, n, timeline.Counted(groups[n])))
	}
	// Refusals only the cluster state shows.
	snap, vas := unloggedAttachments(c.Timeline)
	for _, u := range unloggedAttachFailures(vas, true, 0) {
		out = append(out, stateLimitFinding(snap, u.va))
	}
	return out
}

// attachInFlight finds the volume whose attach (a CSI or cloud attach
// start naming it) was logged in e's input within limitJoin before e.
func attachInFlight(tl *timeline.Timeline, e *parser.Event) *timeline.Volume {
	var best *timeline.Volume
	var at time.Time
	for _, v := range tl.Volumes {
		for i := range v.Events {
			s := &v.Events[i]
			if s.Source.Input != e.Source.Input || !kindIn(s.Kind, parser.CSIAttaching, parser.AttachStarted) {
				continue
			}
			if d := e.Time.Sub(s.Time); d >= 0 && d <= limitJoin && !s.Time.UTC().Before(at) {
				best, at = v, s.Time.UTC()
			}
		}
	}
	return best
}

func attachLimitFinding(v *timeline.Volume, node string, evs []parser.Event) Finding {
	byTime(evs)
	first, last := spanOf(evs)
	n := total(evs)
	what, limit, fix := limitWording(evs[0].Error + " " + evs[0].Text.String())
	vol := "a volume"
	if v != nil {
		vol = name(v)
	}
	where := nodeHere(node)
	sum := fmt.Sprintf("attach of %s to %s refused: %s", vol, where, what)
	if n > 1 {
		sum += fmt.Sprintf(" (×%d", n)
		if last.Sub(first) > 0 {
			sum += " over " + dur(last.Sub(first))
		}
		sum += ")"
	}
	var ex strings.Builder
	sched := evs[0].Kind == parser.Bookkeeping
	if sched {
		fmt.Fprintf(&ex, "The scheduler found no node with room for another volume (%s): the NodeVolumeLimits filter counts each node's attached and pending volumes against its CSINode allocatable count, so the pod stays Pending and no attach is tried. ", what)
	} else {
		fmt.Fprintf(&ex, "ControllerPublishVolume (the attach the attach/detach controller asked for through the VolumeAttachment) for %s on %s was refused %s by the cloud: %s%s. ", vol, where, plural(n, "time"), what, limit)
		ex.WriteString("The scheduler placed the pod there, so the node's CSINode allocatable count is higher than what the instance takes (disks or ENIs attached outside Kubernetes, a wrong volume attach limit, or attachments leaked by earlier detaches). The operation executor retries with backoff and every retry fails the same way until a disk leaves the node or the pod moves.")
	}
	steps := append(limitSteps(node, fix), Step{Prevent, "Spread volume-heavy pods (topology spread constraints) and alert on VolumeAttachments with attachError."})
	if sched {
		steps = steps[1:]
	}
	f := Finding{
		Nodes:       []string{node},
		Pods:        podsOf(evs),
		Start:       first,
		End:         last,
		Count:       n,
		Code:        parser.CodeAttachLimit,
		Summary:     sum,
		Explanation: ex.String(),
		Evidence:    series(evs, "attach refused: volume limit"),
	}
	if v != nil {
		f.Volume, f.PV = key(v), v.PV
	}
	if node == "" {
		f.Nodes = nil
	}
	f.SetNext(steps...)
	return f
}

// limitSteps are the recover, confirm and fix steps of an attach refused
// for node's volume limit, fix the fix step limitWording gave.
func limitSteps(node, fix string) []Step {
	where := nodeHere(node)
	return []Step{
		{Recover, fmt.Sprintf("Free a slot on %s (detach a leaked or unused disk) or move the pod to another node (cordon %s and delete the pod).", where, where)},
		{Confirm, fmt.Sprintf("Count every disk attached to %s in the cloud console and compare with kubectl get csinode %s -o yaml (allocatable.count) and kubectl get volumeattachments for that node.", where, nodeOrAngle(node))},
		{Fix, fix},
	}
}

// limitWording names the limit an error text reports, the number when it
// gives one (", at most N"), and the fix step for the cloud or driver that
// set it (a generic one when the text does not say).
func limitWording(text string) (what, limit, fix string) {
	l := strings.ToLower(text)
	fix = "Set the CSI driver's volume attach limit (its node plugin's option) to what the instance really takes, or use a larger instance size."
	switch {
	case strings.Contains(l, "maximum number of data disks"):
		what = "the VM size's maximum number of data disks (Azure OperationNotAllowed)"
		limit = numberAfter(text, "of this size is ")
		fix = "Use a VM size that takes more data disks, or take off the node the disks Kubernetes does not count (attached by hand, or left by an earlier detach): the Azure Disk CSI driver reports the size's maximum as the CSINode allocatable count."
	case strings.Contains(l, "maximum_persistent_disks"):
		what = "the machine type's maximum_persistent_disks (GCE)"
		fix = "Use a machine type that takes more persistent disks, or detach the disks Kubernetes does not count: the PD CSI driver reports the type's maximum as the CSINode allocatable count."
	case strings.Contains(l, "number of disk devices"):
		what = "the instance's maximum number of disk devices (OpenStack nova)"
		limit = numberAfter(text, "disk devices (")
		fix = "Raise nova's max_disk_devices_to_attach on the compute hosts, or set cinder-csi-plugin's --node-volume-attach-limit to what nova allows, so that the scheduler stops placing pods over it."
	case strings.Contains(l, "exceed max volume count"):
		what = "node(s) exceed max volume count"
		fix = "Add nodes or use a larger instance size so that the pod fits; raise the driver's volume attach limit only if the instance really takes more volumes."
	case strings.Contains(l, "volumes to one instance"):
		what = "the instance's maximum number of volumes"
		limit = numberAfter(text, "attach [")
	case strings.Contains(l, "attachmentlimitexceeded") || strings.Contains(l, "attachment limit exceeded"):
		what = "the instance's attachment limit (AWS AttachmentLimitExceeded)"
		limit = numberAfter(text, "attach up to ")
		fix = "Set the aws-ebs-csi-driver's volumeAttachLimit (--volume-attach-limit) to what the instance really takes (ENIs and instance-store volumes share its attachment slots), or use a larger instance type."
	default:
		what = "the node's volume limit (ResourceExhausted)"
	}
	if limit != "" {
		limit = ", at most " + limit
	}
	return what, limit, fix
}

// numberAfter returns the digits right after marker in s, or "".
func numberAfter(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	r := s[i+len(marker):]
	j := 0
	for j < len(r) && '0' <= r[j] && r[j] <= '9' {
		j++
	}
	return r[:j]
}

// nodeOrAngle is the node's name, or a placeholder for a command line.
func nodeOrAngle(n string) string {
	if n == "" {
		return "<node>"
	}
	return n
}

func causeAttachLimit(c *Chain) (Cause, bool) {
	f := c.First("attach-limit")
	return Cause{
		Summary:   f.Summary,
		Component: "cloud volume limit of the node / CSINode allocatable count",
		RootCause: "The node already holds as many disks as its instance type allows, but the scheduler's count (CSINode allocatable) let the pod land there; the attach fails until a disk leaves the node or the pod moves.",
	}, true
}
