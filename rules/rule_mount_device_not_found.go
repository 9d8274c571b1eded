package rules

import (
	"fmt"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleMountDeviceNotFound = Register(Rule{
	Name:     "mount-device-not-found",
	Severity: Critical,
	Doc: Doc{
		Title: "The kubelet cannot find the device of a volume the controller says is attached",
		Explanation: `The kubelet mounts a volume only after the attach/detach controller reports it
attached (VerifyControllerAttachedVolume → WaitForAttach → MountDevice, which
is NodeStageVolume for CSI). When MountDevice then fails because the block
device is not on the node — "can not find diskId … by serial" (Tencent CBS),
VolumeDeviceNotFound, "could not find device path", "not attached to node" —
the controller and the cloud disagree: the VolumeAttachment says attached,
the machine has no such disk.

The usual causes: the disk was detached behind Kubernetes' back, most often
by a detach meant for another node (see attach-before-detach: a driver whose
ControllerUnpublishVolume does not check the instance detaches the disk from
wherever it is); or the disk never reached this node (multipath/iSCSI path
down, attach reported early). The controller's periodic
VerifyVolumesAreAttached does not notice for CSI volumes as long as the
VolumeAttachment says attached, so the kubelet retries MountDevice with
backoff (up to 2m2s) indefinitely and the pod stays ContainerCreating.`,
		Next: `Check on the node whether the disk is present (lsblk, /dev/disk/by-id,
/sys/block/*/serial) and in the cloud console which instance the disk is
attached to now; look for a detach of this volume from another node shortly
before the first failure; read the CSI node plugin's NodeStageVolume log.`,
	},
	Check:      checkMountDeviceNotFound,
	Rank:       80,
	Story:      storyMountDeviceNotFound,
	Cause:      causeMountDeviceNotFound,
	CauseOrder: 30,
})

func checkMountDeviceNotFound(c *Context) []Finding {
	var out []Finding
	for i, v := range c.Timeline.Volumes {
		if !c.vol(i).has(deviceNotFoundKinds) {
			continue
		}
		nodes, groups := nodeGroups(filter(v, isDeviceNotFound))
		for _, n := range nodes {
			evs := timeline.Counted(groups[n])
			byTime(evs)
			f := deviceFinding(v, n, evs)
			if c, sp := apiCount(groups[n]); c > f.Count {
				f.Explanation += fmt.Sprintf(" The API's own tally (describe/Events) says ×%d", c)
				if sp > 0 {
					f.Explanation += " over " + dur(sp)
				}
				f.Explanation += "."
				f.Summary += fmt.Sprintf("; Events say ×%d", c)
			}
			out = append(out, f)
		}
	}
	return out
}

func deviceFinding(v *timeline.Volume, node string, evs []parser.Event) Finding {
	first, last := spanOf(evs)
	n := total(evs)
	code := evs[0].Code
	if code == "" {
		code = parser.CodeSerialNotFound
	}
	what := "cannot find the device"
	if strings.Contains(strings.ToLower(evs[0].Error+evs[0].Text.String()), "by serial") {
		what = "cannot find the disk by serial"
	}
	ev := series(evs, "kubelet "+what)

	// The detach that removed the device, if one precedes the first failure.
	var det *parser.Event
	for i := range v.Events {
		e := &v.Events[i]
		if e.Origin == 0 && kindIn(e.Kind, parser.DetachSucceeded, parser.DetachStarted, parser.ForceDetach, parser.CSIDetached) && !e.Time.UTC().After(first) {
			if det == nil || e.Time.After(det.Time) || (e.Time.Equal(det.Time) && e.Kind == parser.DetachSucceeded) {
				det = &v.Events[i]
			}
		}
	}
	// A successful mount on this node before: the device was there once.
	var mounted *parser.Event
	for i := range v.Events {
		e := &v.Events[i]
		if (e.Node == node || node == "") && e.Kind == parser.MountDeviceSucceeded && e.Time.UTC().Before(first) {
			mounted = &v.Events[i]
		}
	}

	sum := fmt.Sprintf("kubelet on %s %s for %s", nodeOr(node), what, name(v))
	if t := tally(n, first, last); t != "" {
		sum += " (" + t + ")"
	}
	var ex strings.Builder
	fmt.Fprintf(&ex, "MountDevice (NodeStageVolume) for %s on %s failed %s because the device is not on the node, while the controller considers the volume attached there. ", name(v), nodeOr(node), plural(n, "time"))
	if mounted != nil {
		fmt.Fprintf(&ex, "The device was there at %s (MountDevice succeeded), so it disappeared afterwards. ", clock(mounted.Time.UTC()))
	}
	if det != nil {
		if det.Node != node && det.Node != "" {
			fmt.Fprintf(&ex, "A detach of the same volume from %s (%s, %s) precedes the first failure: a detach meant for %s that the driver executed against the disk wherever it was — on %s. ", det.Node, strings.TrimPrefix(det.Kind.String(), "detach-"), clock(det.Time.UTC()), det.Node, nodeOr(node))
			sum += fmt.Sprintf(", after the detach from %s at %s", det.Node, clock(det.Time.UTC()))
		} else {
			fmt.Fprintf(&ex, "A detach of the volume (%s, %s) precedes the first failure. ", strings.TrimPrefix(det.Kind.String(), "detach-"), clock(det.Time.UTC()))
		}
		ev = append(ev[:1], append([]Evidence{evidence(*det, "detach that likely removed the device")}, ev[1:]...)...)
	}
	if evs[0].Origin == parser.OriginDescribe {
		ex.WriteString("Counted from kubectl describe rows (the API's aggregated count). ")
	}
	ex.WriteString("The kubelet retries with backoff up to 2m2s; VerifyVolumesAreAttached does not correct a CSI volume whose VolumeAttachment still says attached, so this does not heal by itself.")
	next := []Step{{Confirm, fmt.Sprintf("On %s check whether the disk is present (lsblk, /dev/disk/by-id, /sys/block/*/serial), and in the cloud console which instance holds it now.", nodeHere(node))}}
	if det != nil && det.Node != node && det.Node != "" {
		next = append(next, unpublishSteps(v, det.Node, nodeHere(node))...)
	} else {
		next = append(next,
			Step{Recover, fmt.Sprintf("Once the disk is back on %s (re-attached by hand, or the pod deleted so the controller attaches it again), the kubelet's next retry mounts it.", nodeHere(node))},
			Step{Confirm, "Read the CSI node plugin's NodeStageVolume log and the cloud audit log for a detach of this disk."})
	}
	f := Finding{
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(evs),
		Start:       first,
		End:         last,
		Count:       n,
		Code:        code,
		Summary:     sum,
		Explanation: ex.String(),
		Evidence:    ev,
	}
	f.SetNext(next...)
	if det != nil && det.Node != "" {
		f.Nodes = append(f.Nodes, det.Node)
	}
	return f
}

func storyMountDeviceNotFound(f *Finding, _ *Chain) ([]string, []Step) {
	what := "cannot find the device"
	if strings.Contains(f.Summary, "by serial") {
		what = "cannot find the disk by serial"
	}
	return []string{stamp(f.Start, fmt.Sprintf("kubelet on %s %s (×%d)", nodeOr(nodeAt(f, 0)), what, f.Count))}, f.Steps
}

func causeMountDeviceNotFound(c *Chain) (Cause, bool) {
	dev := c.First("mount-device-not-found")
	out := Cause{
		Summary:   fmt.Sprintf("The device of %s is missing on %s although the controller considers it attached.", c.Name(), nodeOr(nodeAt(dev, 0))),
		Component: "CSI node plugin NodeStageVolume / whatever detached the disk",
		RootCause: "The VolumeAttachment says attached but the disk is not on the node: it was detached behind Kubernetes' back (a detach meant for another node, a manual or cloud-side detach) or never reached the node (multipath/iSCSI path down).",
	}
	if len(dev.Nodes) > 1 {
		out.Component = "CSI driver ControllerUnpublishVolume"
		if driver := c.Driver(); driver != "" {
			out.Component += " (" + driver + ")"
		}
		out.RootCause = fmt.Sprintf("A detach of the same volume from %s preceded the failures; a driver that detaches without checking the instance removes the disk from %s.", dev.Nodes[1], dev.Nodes[0])
	}
	return out, true
}
