package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// linkGap is the longest quiet stretch between two findings on one volume
// that still reads as one chain of events.
const linkGap = 2 * time.Hour

// causalRank orders findings that start together: causes before effects.
var causalRank = map[string]int{
	"attach-state-lost":      0,
	"attach-retry-storm":     1,
	"multi-attach":           2,
	"detach-failed":          3,
	"force-detach":           4,
	"slow-attach":            5,
	"attach-before-detach":   6,
	"mount-device-not-found": 7,
}

// Incidents groups findings (already in Result order) into incidents: the
// findings on one volume that follow each other without a long gap form one
// causal chain; a finding without a volume is an incident of its own. Chain
// holds indices into fs in causal order. Incidents are ordered by severity
// (most severe first), then first finding's start, then volume.
func Incidents(fs []Finding) []Incident {
	byVol := map[string][]int{}
	var vols []string
	var out []Incident
	for i, f := range fs {
		if f.Volume == "" {
			out = append(out, buildIncident(fs, []int{i}))
			continue
		}
		if byVol[f.Volume] == nil {
			vols = append(vols, f.Volume)
		}
		byVol[f.Volume] = append(byVol[f.Volume], i)
	}
	for _, v := range vols {
		idx := byVol[v]
		orderCausally(fs, idx)
		var chain []int
		var chainEnd time.Time
		for _, i := range idx {
			f := &fs[i]
			if len(chain) > 0 && f.Start.Sub(chainEnd) > linkGap {
				out = append(out, buildIncident(fs, chain))
				chain, chainEnd = nil, time.Time{}
			}
			chain = append(chain, i)
			if f.End.After(chainEnd) {
				chainEnd = f.End
			}
			if f.Start.After(chainEnd) {
				chainEnd = f.Start
			}
		}
		if len(chain) > 0 {
			out = append(out, buildIncident(fs, chain))
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		ia, ib := &out[a], &out[b]
		if ia.Severity != ib.Severity {
			return ia.Severity > ib.Severity
		}
		sa, sb := fs[ia.Chain[0]].Start, fs[ib.Chain[0]].Start
		if !sa.Equal(sb) {
			return sa.Before(sb)
		}
		if ia.Volume != ib.Volume {
			return ia.Volume < ib.Volume
		}
		return ia.Chain[0] < ib.Chain[0]
	})
	return out
}

// orderCausally sorts idx by start time, then causal rank, except that the
// clocks of different components (and describe rows' relative ages) must not
// put an effect before its cause: a device going missing on B is placed
// after the attach-before-detach that explains it, and a storm on A before it.
func orderCausally(fs []Finding, idx []int) {
	at := map[int]time.Time{}
	for _, i := range idx {
		at[i] = fs[i].Start
	}
	for _, j := range idx {
		if fs[j].Rule != "attach-before-detach" {
			continue
		}
		abd := &fs[j]
		for _, i := range idx {
			f := &fs[i]
			switch {
			case f.Rule == "mount-device-not-found" && related(f, abd) && !at[i].After(abd.Start):
				at[i] = abd.Start.Add(time.Nanosecond)
			case (f.Rule == "attach-retry-storm" || f.Rule == "multi-attach") && related(f, abd) && !at[i].Before(abd.Start):
				at[i] = abd.Start.Add(-time.Nanosecond)
			}
		}
	}
	// A kubelet timeout (slow-attach) overlapping a Multi-Attach is its effect.
	for _, j := range idx {
		if fs[j].Rule != "multi-attach" {
			continue
		}
		for _, i := range idx {
			if f := &fs[i]; f.Rule == "slow-attach" && !f.End.Before(fs[j].Start) && at[i].Before(fs[j].Start) {
				at[i] = fs[j].Start.Add(time.Nanosecond)
			}
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ta, tb := at[idx[a]], at[idx[b]]
		if !ta.Equal(tb) {
			return ta.Before(tb)
		}
		return causalRank[fs[idx[a]].Rule] < causalRank[fs[idx[b]].Rule]
	})
}

// related reports whether two findings on one volume share a node.
func related(a, b *Finding) bool {
	for _, n := range a.Nodes {
		if slices.Contains(b.Nodes, n) {
			return true
		}
	}
	return len(a.Nodes) == 0 || len(b.Nodes) == 0
}

func buildIncident(fs []Finding, chain []int) Incident {
	inc := Incident{Chain: chain}
	var by = map[string][]*Finding{}
	for _, i := range chain {
		f := &fs[i]
		inc.Volume, inc.PV = f.Volume, firstNonEmpty(inc.PV, f.PV)
		if f.Severity > inc.Severity {
			inc.Severity = f.Severity
		}
		by[f.Rule] = append(by[f.Rule], f)
	}
	driver := driverOfName(inc.Volume)
	cbs := strings.Contains(driver, "tencent.cloud.csi.cbs") || strings.Contains(driver, "qcloud-cbs")
	volName := firstNonEmpty(inc.PV, inc.Volume)

	abd := first(by["attach-before-detach"])
	dev := first(by["mount-device-not-found"])
	// The story: one step per finding, the attach-before-detach finding
	// told as its three moves.
	for _, i := range chain {
		inc.Story = append(inc.Story, steps(&fs[i])...)
	}

	// Next steps: every finding's, ordered by phase, each said once. Once
	// the pod has moved (attach-before-detach), the storm's "move the pod"
	// recovery is history. Within a phase the symptom's steps come first
	// (the last finding in causal order is what the on-call engineer sees).
	var next []Step
	for j := len(chain) - 1; j >= 0; j-- {
		i := chain[j]
		for _, st := range fs[i].Steps {
			if abd != nil && fs[i].Rule == "attach-retry-storm" && st.Phase == Recover {
				continue
			}
			next = append(next, st)
		}
	}
	inc.Next = MergeSteps(next)

	switch {
	case abd != nil && len(abd.Nodes) >= 2 && (dev != nil || strings.HasPrefix(abd.Summary, "the disk was pulled off")):
		a, b := abd.Nodes[0], abd.Nodes[1]
		inc.Summary = fmt.Sprintf("The disk was pulled off %s by a detach meant for %s: the CSI driver's ControllerUnpublishVolume detached it without checking which instance held it.", b, a)
		inc.Component = "CSI driver ControllerUnpublishVolume"
		if driver != "" {
			inc.Component += " (" + driver + ")"
		}
		inc.RootCause = fmt.Sprintf("%s's attach to %s had failed, which leaves (volume, %s) uncertain in the attach/detach controller's actual state of world. Uncertain attachments are skipped by the multi-attach check, so when the pod moved, the attach to %s succeeded first; the detach loop then detached the stale uncertain entry on %s. The driver's ControllerUnpublishVolume for %s detached the disk wherever it was — from %s — so the kubelet on %s cannot find the device, while the VolumeAttachment for %s still says attached.", volName, a, a, b, a, a, b, b, b)
		if cbs {
			inc.RootCause += " The Tencent Cloud CBS CSI driver before image v2.3.2 called DetachDisks without an instance check; v2.3.2 (commit db69d52, 2023-02-15) returns success when the disk is attached to another instance."
			inc.Component += ", fixed in cbs-csi image v2.3.2"
		}
	case abd != nil && len(abd.Nodes) < 2:
		inc.Summary = abd.Summary
		inc.Component = "the detach from the previous node (not in these logs)"
		inc.RootCause = "The attach to this node was tried while the cloud still had the disk on another instance: the controller did not hold the old attachment as confirmed (a failed attach or detach there, or a restart), so no Multi-Attach error stopped it. The cloud refused, so the cost is the delay until the old detach finished."
	case abd != nil:
		a, b := nodeAt(abd, 0), nodeAt(abd, 1)
		inc.Summary = fmt.Sprintf("%s was attached to %s before it was detached from %s; check that the driver's detach checks the instance.", volName, b, a)
		inc.Component = "attach/detach controller ordering + CSI driver ControllerUnpublishVolume"
		inc.RootCause = "An uncertain (failed) or unconfirmed attachment on the old node does not block an attach elsewhere; the old node's detach runs afterwards. Harmless only if the driver's ControllerUnpublishVolume refuses to detach a disk that is attached to another instance."
	case by["attach-state-lost"] != nil && fs[chain[0]].Rule == "attach-state-lost":
		f := by["attach-state-lost"][0]
		inc.Summary = f.Summary
		inc.Component = "attach/detach controller state (KCM restart / VerifyVolumesAreAttached) and the cloud"
		inc.RootCause = "The controller's actual state of world changed without a normal detach: either periodic verification found the disk gone (something outside Kubernetes detached it), or a restarted controller rebuilt its state and detached volumes whose pods it did not see."
		if dev != nil {
			inc.RootCause += " The kubelet's device errors that follow are the consequence."
		}
	case dev != nil:
		inc.Summary = fmt.Sprintf("The device of %s is missing on %s although the controller considers it attached.", volName, nodeOr(nodeAt(dev, 0)))
		inc.Component = "CSI node plugin NodeStageVolume / whatever detached the disk"
		inc.RootCause = "The VolumeAttachment says attached but the disk is not on the node: it was detached behind Kubernetes' back (a detach meant for another node, a manual or cloud-side detach) or never reached the node (multipath/iSCSI path down)."
		if len(dev.Nodes) > 1 {
			inc.Component = "CSI driver ControllerUnpublishVolume"
			if driver != "" {
				inc.Component += " (" + driver + ")"
			}
			inc.RootCause = fmt.Sprintf("A detach of the same volume from %s preceded the failures; a driver that detaches without checking the instance removes the disk from %s.", dev.Nodes[1], dev.Nodes[0])
		}
	case by["attach-state-lost"] != nil:
		f := by["attach-state-lost"][0]
		inc.Summary = f.Summary
		inc.Component = "attach/detach controller state (KCM restart / VerifyVolumesAreAttached) and the cloud"
		inc.RootCause = "The controller's actual state of world changed without a normal detach: either periodic verification found the disk gone, or a restarted controller rebuilt its state and detached volumes whose pods it did not see."
	case by["force-detach"] != nil:
		f := by["force-detach"][0]
		inc.Summary = f.Summary
		inc.Component = "node " + nodeOr(nodeAt(f, 0)) + " (kubelet never confirmed the unmount)"
		inc.RootCause = "The old node kept the volume in node.status.volumesInUse (or stopped reporting) so the controller waited maxWaitForUnmountDuration (6m) and force-detached, or the out-of-service taint forced it."
	case by["multi-attach"] != nil:
		f := by["multi-attach"][0]
		inc.Summary = f.Summary
		inc.Component = "the old node's kubelet / node lifecycle (volume not released)"
		inc.RootCause = "An RWO volume must be detached from the old node before it can attach to the new one; the old node had not released it (unmount not reported in node.status.volumesInUse)."
		if f.Severity == Info {
			inc.Component = "none (normal detach-before-attach ordering)"
			inc.RootCause = "A pod move: the attach to the new node waited for the detach from the old one, as designed."
		}
	case by["detach-failed"] != nil:
		f := by["detach-failed"][0]
		inc.Summary = f.Summary
		inc.Component = "CSI driver ControllerUnpublishVolume / cloud detach API"
		inc.RootCause = "The detach from the old node keeps failing or hangs, so the volume cannot move."
	case by["attach-retry-storm"] != nil:
		f := by["attach-retry-storm"][0]
		inc.Summary = f.Summary
		switch f.Code {
		case "ZoneNotMatch":
			inc.Component = "StorageClass topology (volumeBindingMode / allowedTopologies) and scheduling"
			inc.RootCause = "The disk lives in another availability zone than the node; the cloud refuses every attach."
		case "VolumeInUse":
			inc.Component = "detach from the previous node"
			inc.RootCause = "The disk is still attached to another instance."
		default:
			inc.Component = "CSI driver ControllerPublishVolume / external-attacher / cloud API"
			inc.RootCause = "The attach keeps failing with the same error."
		}
	case by["slow-attach"] != nil:
		f := by["slow-attach"][0]
		inc.Summary = f.Summary
		inc.Component = "external-attacher / CSI driver ControllerPublishVolume / cloud API"
		inc.RootCause = "Attaching took longer than expected or did not finish."
	default:
		f := &fs[chain[0]]
		inc.Summary = f.Summary
		inc.RootCause = f.Explanation
	}
	return inc
}

// steps tells one finding as story steps.
func steps(f *Finding) []string {
	switch f.Rule {
	case "attach-before-detach":
		if len(f.Nodes) < 2 {
			return []string{stamp(f.Start, f.Summary)}
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
		return out
	case "attach-retry-storm":
		s := stamp(f.Start, fmt.Sprintf("attach to %s failed %d× with %s", nodeOr(nodeAt(f, 0)), f.Count, firstNonEmpty(f.Code, "the same error")))
		if span := f.End.Sub(f.Start); span > 0 {
			s += " over " + dur(span)
		}
		s += " (retry storm; the attachment stays uncertain)"
		return []string{s}
	case "mount-device-not-found":
		what := "cannot find the device"
		if strings.Contains(f.Summary, "by serial") {
			what = "cannot find the disk by serial"
		}
		return []string{stamp(f.Start, fmt.Sprintf("kubelet on %s %s (×%d)", nodeOr(nodeAt(f, 0)), what, f.Count))}
	}
	return []string{stamp(f.Start, f.Summary)}
}

func first(fs []*Finding) *Finding {
	if len(fs) == 0 {
		return nil
	}
	return fs[0]
}

func nodeAt(f *Finding, i int) string {
	if i < len(f.Nodes) {
		return f.Nodes[i]
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// driverOfName reads the driver out of a UniqueName.
func driverOfName(u string) string {
	if rest, ok := strings.CutPrefix(u, "kubernetes.io/csi/"); ok {
		d, _, _ := strings.Cut(rest, "^")
		return d
	}
	if strings.HasPrefix(u, "kubernetes.io/") {
		if i := strings.Index(u[len("kubernetes.io/"):], "/"); i >= 0 {
			return u[:len("kubernetes.io/")+i]
		}
	}
	return ""
}
