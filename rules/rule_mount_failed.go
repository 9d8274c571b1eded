package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleMountFailed = Register(Rule{
	Name:     "mount-failed",
	Severity: Warning,
	Doc: Doc{
		Title: "Mounting an attached volume fails although its device is there",
		Explanation: `Once the controller has attached a volume, the kubelet's volume manager has
the operation executor mount it in two steps: MountDevice (for CSI,
NodeStageVolume: format if empty, fsck, mount the device on the global mount
path) and SetUp (NodePublishVolume: bind-mount into the pod's directory).
When the device is present but mount(8) refuses it, mount-utils returns the
command and its output, and the kubelet retries with backoff (up to 2m2s) for
as long as the pod exists:

  - WrongFSType: "wrong fs type, bad option, bad superblock" (the kernel's
    generic EINVAL: the filesystem is not the one the PV says, a mount option
    the filesystem does not know such as xfs with -o debug on a newer kernel,
    or a damaged superblock), "can't read superblock" (the filesystem is
    damaged, often after the device went away under I/O), "unknown
    filesystem type" (the helper or kernel module is missing);
  - FsckFailed: fsck found errors it could not correct;
  - MountOptionRejected: the StorageClass / PV mountOptions are invalid;
  - DeviceBusy: "already mounted or mount point busy", "device or resource
    busy" — another holder owns the device (multipathd claiming it, a stale
    mount from an earlier pod, a second NodeStage);
  - PermissionDenied: SELinux (an avc denial in the node's audit log), NFS
    root squash, or a read-only device;
  - FormatFailed / MountFailed: mkfs or mount failed with no reason the
    output names.

None of these heals by retrying; the pod stays ContainerCreating and its
"Unable to attach or mount volumes" timeouts are this failure's consequence.`,
		Next: `Read the full mount output in the FailedMount event or the node plugin's
NodeStageVolume / NodePublishVolume log; on the node run lsblk -f and blkid on
the device, dmesg for filesystem and SELinux messages, and findmnt for the
device's current holders.`,
	},
	Params: []Param{
		{Key: "persistent", Default: "10m", Help: "a mount failing for longer than this (with no success after) is critical"},
	},
	Check:      checkMountFailed,
	Rank:       75,
	Story:      summaryStory,
	Cause:      causeMountFailed,
	CauseOrder: 35,
})

func checkMountFailed(c *Context) []Finding {
	persistent := c.Duration("persistent")
	var out []Finding
	for _, v := range c.Timeline.Volumes {
		nodes, groups := nodeGroups(filter(v, isMountFailure))
		for _, n := range nodes {
			out = append(out, mountFailedFinding(v, n, groups[n], v.Events, persistent))
		}
	}
	// Driver and mount-utils lines that name no volume the timeline knows,
	// one finding per input.
	byPath := map[string][]parser.Event{}
	var paths []string
	for i := range c.Timeline.Other {
		if e := &c.Timeline.Other[i]; isMountFailure(e) {
			if byPath[e.Source.Path()] == nil {
				paths = append(paths, e.Source.Path())
			}
			byPath[e.Source.Path()] = append(byPath[e.Source.Path()], *e)
		}
	}
	for _, p := range paths {
		out = append(out, mountFailedFinding(nil, byPath[p][0].Node, byPath[p], c.Timeline.Other, persistent))
	}
	return out
}

// mountReason is how findings name a mount failure's class, and what fixes it.
var mountReason = map[string]struct{ what, fix string }{
	parser.CodeWrongFSType: {"the filesystem or its mount options are refused (wrong fs type, bad option, bad superblock)",
		"Compare the filesystem on the device (blkid) with the PV's fsType, drop mount options the filesystem does not support (StorageClass mountOptions), and if the superblock is damaged repair it (fsck / xfs_repair) from a node where the device is not mounted."},
	parser.CodeFsckFailed: {"fsck found errors it could not correct",
		"Repair the filesystem by hand (fsck -y / xfs_repair) with the volume attached to a maintenance node or pod, or restore it from a snapshot."},
	parser.CodeMountOptionRejected: {"a mount option is rejected",
		"Fix the StorageClass or PV mountOptions (kubectl get pv -o yaml); a PV keeps the options it was created with."},
	parser.CodeDeviceBusy: {"the device or mount point is busy (already mounted or held)",
		"Find the device's holder on the node (findmnt, lsblk, ls /sys/block/<dev>/holders): blacklist the CSI devices in multipathd (e.g. devnode \"^sd[a-z0-9]+\" for Longhorn) or unmount the stale mount of an earlier pod."},
	parser.CodePermission: {"the mount is denied (permission)",
		"Read the node's audit log for an SELinux avc denial (set seLinuxOptions or the driver's SELinux support), or check NFS export options (root squash) and whether the device is read-only."},
	parser.CodeFormatFailed: {"formatting the device failed",
		"Read the mkfs output in the node plugin's log; check the device is not in use (multipathd) and not read-only."},
	parser.CodeMountFailed: {"mount(8) failed",
		"Fix what the mount output or dmesg names (its last lines after \"Output:\"): most often multipathd holding the device (blacklist the CSI devices in multipath.conf), a filesystem that needs fsck, or a mount option the filesystem rejects."},
}

// mountFailedFinding reports the failures evs of volume v (nil: unjoined)
// on node; all are the events to look for the attach and a later success in.
func mountFailedFinding(v *timeline.Volume, node string, evs, all []parser.Event, persistent time.Duration) Finding {
	evs = timeline.Counted(withoutSecondReports(evs))
	byTime(evs)
	first, last := spanOf(evs)
	n := total(evs)
	code := evs[0].Code
	for _, c := range mountCodes { // the most telling class among the lines
		if hasCode(evs, c) {
			code = c
			break
		}
	}
	reason := mountReason[code]
	step := "MountDevice (NodeStageVolume)"
	if evs[0].Kind == parser.SetupFailed {
		step = "SetUp (NodePublishVolume)"
	} else if evs[0].Kind == parser.CSIError {
		step = "the node plugin's mount"
	}
	what := "a volume"
	if v != nil {
		what = name(v)
	} else if evs[0].PV != "" {
		what = evs[0].PV
	}
	f := Finding{Nodes: []string{node}, Pods: podsOf(evs), Start: first, End: last, Count: n, Code: code}
	if v != nil {
		f.Volume, f.PV = key(v), v.PV
	}
	f.Summary = fmt.Sprintf("%s of %s on %s fails: %s", step, what, nodeOr(node), reason.what)
	if t := tally(n, first, last); t != "" {
		f.Summary += " (" + t + ")"
	}
	var ex strings.Builder
	fmt.Fprintf(&ex, "%s of %s on %s failed %s with the device present: %s. ", step, what, nodeOr(node), plural(n, "time"), reason.what)
	f.Evidence = series(evs, "mount failed ("+code+")")
	if a := lastEventBefore(all, first, isAttachConfirmed); a != nil {
		fmt.Fprintf(&ex, "The attach that preceded it was confirmed %s, so the controller's part is done and the problem is on the node. ", clockOr(a.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*a, "attach that preceded the failure"))
	}
	ok := healedAfter(all, node, last)
	switch {
	case ok != nil:
		fmt.Fprintf(&ex, "A mount succeeded %s afterwards.", clockOr(ok.Time.UTC()))
		f.End = ok.Time.UTC()
		f.Evidence = append(f.Evidence, evidence(*ok, "mount succeeded afterwards"))
	case last.Sub(first) >= persistent || apiSpanAtLeast(evs, persistent):
		f.Severity = Critical
		ex.WriteString("It kept failing with no success after: retries do not fix this class, the pod stays ContainerCreating.")
	default:
		ex.WriteString("No success follows in these logs; the kubelet retries with backoff up to 2m2s, and this class rarely heals by retrying.")
	}
	f.Explanation = ex.String()
	f.SetNext(
		Step{Confirm, fmt.Sprintf("Read the full mount output (the FailedMount event, the node plugin's NodeStageVolume / NodePublishVolume log) and on %s run lsblk -f, blkid and dmesg for the device.", nodeHere(node))},
		Step{Fix, reason.fix},
		Step{Recover, "After the fix the kubelet's next retry mounts the volume; delete the pod only if its backoff is long."},
	)
	return f
}

// hasCode reports whether an event of evs carries code.
func hasCode(evs []parser.Event, code string) bool {
	for i := range evs {
		if evs[i].Code == code {
			return true
		}
	}
	return false
}

// apiSpanAtLeast reports whether a describe row / event of evs covers at
// least d ("x23 over 40m").
func apiSpanAtLeast(evs []parser.Event, d time.Duration) bool {
	_, sp := apiCount(evs)
	return sp >= d
}

func causeMountFailed(c *Chain) (Cause, bool) {
	f := c.First("mount-failed")
	return Cause{
		Summary:   f.Summary,
		Component: "kubelet MountDevice / SetUp (CSI node plugin NodeStageVolume / NodePublishVolume) on " + nodeOr(nodeAt(f, 0)),
		RootCause: "The volume is attached and its device is on the node, but mounting it fails (" + f.Code + "): " + mountReason[f.Code].what + ". Retrying does not fix it.",
	}, true
}
