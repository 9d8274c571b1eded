package report

import (
	"fmt"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// handSeed builds the seed incident by hand (docs/DESIGN.md): attach to A fails
// with ZoneNotMatch for over an hour, the pod moves to B, the attach to B
// succeeds while A is uncertain, then the detach from A pulls the disk off B
// and kubelet on B cannot find it. hostile puts terminal and Markdown
// attacks into the log-derived strings.
func handSeed(hostile bool) *Analysis {
	const (
		uniq   = "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync"
		pv     = "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36"
		handle = "disk-rhtsqync"
	)
	nodeA, nodeB := "172.28.16.10", "172.28.1.72"
	pod := "db/redis-master-0"
	kcm, kubelet := "kcm.log", "kubelet.log"
	if hostile {
		nodeB = "node|b`x"
		pod = "db/<script>alert(1)</script>"
		kubelet = "kube|let.log"
	}
	t0 := time.Date(2021, 1, 13, 8, 27, 15, 120000000, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	var evs []parser.Event
	line := 10
	add := func(d time.Duration, kind parser.Kind, node, path string, comp parser.Component, code, text string) parser.Event {
		line++
		e := parser.Draft{Time: parser.StampOf(at(d)), Kind: kind, Volume: uniq, PV: pv, Handle: handle, Node: node,
			Component: comp, Code: code, Source: parser.Source{File: parser.InternPath(path), Line: parser.Int32(line)}, Text: parser.TextOf(text), RWXKey: parser.HasRWXKey(text)}
		if comp == parser.ComponentKubelet {
			e.Pod = pod
		}
		evs = append(evs, e.Event())
		return evs[len(evs)-1]
	}
	klog := func(ts time.Time, file, msg string) string {
		return fmt.Sprintf("I%s       1 %s] %s", ts.Add(8*time.Hour).Format("0102 15:04:05.000000"), file, msg)
	}
	startA := add(0, parser.AttachStarted, nodeA, kcm, parser.ComponentKCM, "",
		klog(at(0), "reconciler.go:304", `attacherDetacher.AttachVolume started for volume "`+pv+`" (UniqueName: "`+uniq+`") from node "`+nodeA+`"`))
	_ = startA
	var fails []parser.Event
	backoff := 500 * time.Millisecond
	d := time.Second
	for i := 0; i < 6; i++ {
		text := klog(at(d), "nestedpendingoperations.go:301", `Operation for "{volumeName:`+uniq+` podName: nodeName:`+nodeA+`}" failed. No retries permitted until 2021-01-13 16:27:17.12 +0800 CST m=+1234.5 (durationBeforeRetry `+backoff.String()+`). Error: AttachVolume.Attach failed for volume "`+pv+`" (UniqueName: "`+uniq+`") from node "`+nodeA+`" : rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=zone not match, RequestId=9f3c2a51-7d0b-4b7e-9c55-1e2f3a4b5c6d`)
		if hostile && i == 0 {
			text += "\x1b[2J\x1b]0;pwned\x07 ``` | <script>alert(1)</script>\n# not a heading\r\b"
		}
		fails = append(fails, add(d, parser.AttachFailed, nodeA, kcm, parser.ComponentKCM, parser.CodeZoneNotMatch, text))
		d += backoff + time.Second
		if backoff < 2*time.Minute {
			backoff *= 2
		}
		if i == 4 {
			d = 83*time.Minute + 30*time.Second
		}
	}
	tB := 83*time.Minute + 41*time.Second
	startB := add(tB, parser.AttachStarted, nodeB, kcm, parser.ComponentKCM, "",
		klog(at(tB), "reconciler.go:304", `attacherDetacher.AttachVolume started for volume "`+pv+`" (UniqueName: "`+uniq+`") from node "`+nodeB+`"`))
	okB := add(tB+12*time.Second, parser.AttachSucceeded, nodeB, kcm, parser.ComponentKCM, "",
		klog(at(tB+12*time.Second), "operation_generator.go:370", `AttachVolume.Attach succeeded for volume "`+pv+`" (UniqueName: "`+uniq+`") from node "`+nodeB+`"`))
	detA := add(tB+12*time.Second+100*time.Millisecond, parser.DetachStarted, nodeA, kcm, parser.ComponentKCM, "",
		klog(at(tB+12*time.Second+100*time.Millisecond), "reconciler.go:221", `attacherDetacher.DetachVolume started for volume "`+pv+`" (UniqueName: "`+uniq+`") on node "`+nodeA+`"`))
	add(tB+12*time.Second+103*time.Millisecond, parser.DetachVerifiedSafe, nodeA, kcm, parser.ComponentKCM, "",
		klog(at(tB+12*time.Second+103*time.Millisecond), "operation_generator.go:1578", `Verified volume is safe to detach for volume "`+pv+`" on node "`+nodeA+`"`))
	line = 100
	add(tB+14*time.Second, parser.WaitForAttachSucceeded, nodeB, kubelet, parser.ComponentKubelet, "",
		klog(at(tB+14*time.Second), "operation_generator.go:587", `MountVolume.WaitForAttach succeeded for volume "`+pv+`" (UniqueName: "`+uniq+`") pod "redis-master-0"`))
	line = 30
	detOK := add(tB+19*time.Second, parser.DetachSucceeded, nodeA, kcm, parser.ComponentKCM, "",
		klog(at(tB+19*time.Second), "operation_generator.go:485", `DetachVolume.Detach succeeded for volume "`+pv+`" (UniqueName: "`+uniq+`") on node "`+nodeA+`"`))
	line = 101
	var mf []parser.Event
	for i := 0; i < 4; i++ {
		dt := tB + 25*time.Second + time.Duration(i)*2*time.Minute
		mf = append(mf, add(dt, parser.MountDeviceFailed, nodeB, kubelet, parser.ComponentKubelet, parser.CodeSerialNotFound,
			klog(at(dt), "nestedpendingoperations.go:301", `Operation for "{volumeName:`+uniq+` podName: nodeName:}" failed. No retries permitted until 2021-01-13 17:53:12 +0800 CST m=+99.1 (durationBeforeRetry 2m2s). Error: MountVolume.MountDevice failed for volume "`+pv+`" (UniqueName: "`+uniq+`") pod "redis-master-0" (UID: "5d2f3c1a-1111-2222-3333-444455556666") : rpc error: code = Internal desc = can not find diskId `+handle+` by serial`)))
	}
	ev := func(e parser.Event, note string) rules.Evidence {
		return rules.Evidence{Path: e.Source.Path(), Line: int(e.Source.Line), Time: e.Time.UTC(), Text: e.Text.String(), Note: note}
	}
	last := mf[len(mf)-1]
	vol := &timeline.Volume{
		UniqueName: uniq, PV: pv, Handle: handle,
		Events: evs,
		Intervals: []timeline.Interval{
			timeline.NewInterval(nodeA, timeline.Attaching, at(0), fails[0].Time.UTC(), 0, 1),
			timeline.NewInterval(nodeA, timeline.Uncertain, fails[0].Time.UTC(), detA.Time.UTC(), 1, 9),
			timeline.NewInterval(nodeB, timeline.Attaching, startB.Time.UTC(), okB.Time.UTC(), 7, 8),
			timeline.NewInterval(nodeB, timeline.Attached, okB.Time.UTC(), time.Time{}, 8, -1),
			timeline.NewInterval(nodeA, timeline.Detaching, detA.Time.UTC(), detOK.Time.UTC(), 9, 12),
			timeline.NewInterval(nodeA, timeline.Detached, detOK.Time.UTC(), time.Time{}, 12, -1),
		},
	}
	vol.SetNames([]string{uniq, pv, handle})
	vol.SetNodes([]string{nodeA, nodeB})
	vol.SetPods([]string{pod})
	vol.SetKey(uniq)
	vol.SetDriver("com.tencent.cloud.csi.cbs")
	vol.SetSpan(evs[0].Time.UTC(), last.Time.UTC())
	vol.SetKubelet([]timeline.Interval{
		timeline.NewInterval(nodeB, timeline.Mounting, at(tB+14*time.Second), mf[0].Time.UTC(), 11, 13),
		timeline.NewInterval(nodeB, timeline.MountFailing, mf[0].Time.UTC(), time.Time{}, 13, -1),
	})
	vol.SetOverlaps([]timeline.Overlap{{Start: okB.Time.UTC(), End: detOK.Time.UTC(), Nodes: []string{nodeA, nodeB},
		States: map[string]timeline.State{nodeA: timeline.Uncertain, nodeB: timeline.Attached}}})
	// A second volume: a clean move plus a transient multi-attach.
	other := &timeline.Volume{UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-8h2kq0aa",
		PV: "pvc-11111111-2222-3333-4444-555555555555", Handle: "disk-8h2kq0aa"}
	other.SetNodes([]string{nodeA})
	other.SetPods([]string{"web/nginx-0"})
	other.SetKey(other.UniqueName)
	other.SetDriver("com.tencent.cloud.csi.cbs")
	other.SetSpan(at(time.Minute), at(2*time.Minute))
	multi := parser.Draft{Time: parser.StampOf(at(time.Minute)), Kind: parser.MultiAttach, Volume: other.UniqueName, PV: other.PV, Handle: other.Handle,
		Node: nodeA, Pod: "web/nginx-0", Component: parser.ComponentKCM, Code: parser.CodeMultiAttach,
		Source: parser.Source{File: parser.InternPath(kcm), Line: 5},
		Text:   parser.TextOf(`W0113 16:28:15.000000       1 reconciler.go:370] Multi-Attach error for volume "` + other.PV + `" Volume is already exclusively attached to one node and can't be attached to another`)}.Event()
	other.Events = []parser.Event{multi}

	tl := &timeline.Timeline{
		Inputs: []parser.Input{
			{Path: kcm, Component: "kcm", Wrapper: "none", Format: "klog-text", Lines: 4211, Relevant: 40, Events: 14, Unknown: 1,
				First: at(-time.Minute), Last: at(tB + 30*time.Second), Year: 2021, YearFrom: "retry-deadline", Zone: "+08:00", ZoneFrom: "retry-deadline",
				Skipped: map[string]int{"too-long": 1}, Problems: []parser.Problem{{Line: 4211, Message: "half-written last line"}}},
			{Path: kubelet, Component: "kubelet", Wrapper: "journald", Format: "klog-text", Lines: 880, Relevant: 9, Events: 5,
				First: at(tB), Last: last.Time.UTC(), Year: 2021, YearFrom: "wrapper", Zone: "+08:00", ZoneFrom: "retry-deadline"},
		},
		Volumes:  []*timeline.Volume{vol, other},
		Restarts: []timeline.Restart{{Time: at(-30 * time.Second), Source: parser.Source{File: parser.InternPath(kcm), Line: 2}, Reason: "leader-elected"}},
		Skews:    []timeline.Skew{{Path: kubelet, Offset: 1500 * time.Millisecond, Pairs: 1, From: "estimated"}},
		Start:    at(-time.Minute), End: last.Time.UTC(),
	}
	storm := rules.Finding{Rule: "attach-retry-storm", Severity: rules.Critical, Volume: uniq, PV: pv, Nodes: []string{nodeA}, Pods: []string{pod},
		Start: fails[0].Time.UTC(), End: fails[len(fails)-1].Time.UTC(), Count: 40, Code: parser.CodeZoneNotMatch,
		Summary:     "attach to " + nodeA + " failed 40× with ZoneNotMatch over 1h23m; backoff reached 2m2s",
		Explanation: "ZoneNotMatch is permanent: the disk lives in another zone than the node. The controller retries with exponential backoff (0.5 s doubling to 2m2s) for as long as the pod stays on the node, and each failed attach leaves (volume, node) uncertain in the actual state of world.",
		Next:        "Compare the PV's topology (zone) with the node's zone; check the StorageClass uses WaitForFirstConsumer.",
		Evidence:    []rules.Evidence{ev(fails[0], "first failure"), ev(fails[len(fails)-1], "last failure")}}
	abd := rules.Finding{Rule: "attach-before-detach", Severity: rules.Critical, Volume: uniq, PV: pv, Nodes: []string{nodeA, nodeB}, Pods: []string{pod},
		Start: okB.Time.UTC(), End: detOK.Time.UTC(), Count: 1,
		Summary:     "attach to " + nodeB + " succeeded while " + nodeA + " was still uncertain; the detach from " + nodeA + " came 100ms later",
		Explanation: "Uncertain entries are excluded from the multi-attach check, so the attach to the new node went ahead; the reconciler then detached the old, uncertain attachment.",
		Evidence:    []rules.Evidence{ev(fails[len(fails)-1], "A uncertain"), ev(okB, "attach to B succeeded"), ev(detA, "detach from A started"), ev(detOK, "detach from A succeeded")}}
	mdnf := rules.Finding{Rule: "mount-device-not-found", Severity: rules.Critical, Volume: uniq, PV: pv, Nodes: []string{nodeB}, Pods: []string{pod},
		Start: mf[0].Time.UTC(), End: last.Time.UTC(), Count: 4, Code: parser.CodeSerialNotFound,
		Summary:     "kubelet on " + nodeB + " cannot find disk " + handle + " by serial (×4), 6s after the detach from " + nodeA,
		Explanation: "The device the kubelet waits for is gone: the detach meant for " + nodeA + " removed the disk from " + nodeB + ".",
		Next:        "Check the CSI driver's ControllerUnpublishVolume: it must verify which instance the disk is attached to.",
		Evidence:    []rules.Evidence{ev(mf[0], "first failure"), ev(detOK, "the detach that removed it")}}
	ma := rules.Finding{Rule: "multi-attach", Severity: rules.Info, Volume: other.UniqueName, PV: other.PV, Nodes: []string{nodeA}, Pods: []string{"web/nginx-0"},
		Start: multi.Time.UTC(), End: multi.Time.UTC(), Count: 1, Summary: "Multi-Attach error for web/nginx-0, resolved within 1m",
		Explanation: "The controller refused to attach an RWO volume to a second node until the first detach finished.",
		Evidence:    []rules.Evidence{ev(multi, "")}}
	res := rules.Result{
		Findings: []rules.Finding{abd, mdnf, storm, ma},
		Incidents: []rules.Incident{{Volume: uniq, PV: pv, Severity: rules.Critical,
			Summary:   "The disk was pulled off " + nodeB + " by a detach meant for " + nodeA,
			RootCause: "A failed attach leaves (volume, " + nodeA + ") uncertain in the controller's actual state of world; uncertain entries do not block an attach elsewhere and are detached later. The CSI driver detached the disk without checking which instance held it.",
			Component: "CSI driver ControllerUnpublishVolume (com.tencent.cloud.csi.cbs)",
			Story: []string{"attach to " + nodeA + " failed 40× with ZoneNotMatch", "pod moved to " + nodeB, "attach to " + nodeB + " succeeded while " + nodeA + " was uncertain",
				"detach from " + nodeA + " pulled the disk off " + nodeB, "kubelet on " + nodeB + " cannot find the disk by serial"},
			Chain: []int{2, 0, 1}}},
	}
	rs := []rules.Rule{
		{Name: "attach-before-detach", Severity: rules.Critical, Doc: rules.Doc{Title: "An attach to a new node went ahead before the detach from the old one", Explanation: "…", Next: "Check the driver."}},
		{Name: "multi-attach", Severity: rules.Warning, Doc: rules.Doc{Title: "Multi-Attach error", Explanation: "The controller refuses.\n\nSecond paragraph.", Next: "Check which pod holds the volume on the old node."},
			Params: []rules.Param{{Key: "grace", Default: "1m", Help: "a Multi-Attach cleared within this is info, not warning"}}},
	}
	n := 0
	for _, v := range tl.Volumes {
		n += len(v.Events)
	}
	return &Analysis{Timeline: tl, Result: res, Rules: rs, Events: n}
}
