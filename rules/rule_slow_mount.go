package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleSlowMount = Register(Rule{
	Name:     "slow-mount",
	Severity: Warning,
	Doc: Doc{
		Title: "The volume was attached, but mounting it took too long or timed out",
		Explanation: `The kubelet's volume manager gives a pod 2m3s (podAttachAndMountTimeout) for
all its volumes to be attached and mounted, then logs "Unable to attach or
mount volumes: unmounted volumes=[…], unattached volumes=[…]: timed out
waiting for the condition" and tries again. When the controller had already
attached the volume (SuccessfulAttachVolume, the kubelet's "Controller attach
succeeded", WaitForAttach succeeded) and no MountDevice / SetUp error
explains the wait, the time goes into the mount itself: NodeStageVolume or
NodePublishVolume running long in the CSI node plugin (a large filesystem
being checked or resized, a slow network block device), or the kubelet's
recursive fsGroup ownership change. With fsGroup set and the default
fsGroupChangePolicy (Always), SetUp chowns and chmods every file of the
volume on every mount ("Setting volume ownership for … and fsGroup set. If
the volume has a lot of files then setting volume ownership could be slow",
then "Setting volume ownership for …, processed N files." and the
VolumePermissionChangeInProgress event "… is taking longer than expected,
consider using OnRootMismatch"); a volume with millions of files takes many
minutes.

Kubelets up to 1.25 list every volume of the pod as "unattached" (they
compared pod volume names with unique names), so that list proves nothing
there; tokens and other never-attached volumes (kube-api-access-…,
default-token-…) never count.`,
		Next: `Look for the fsGroup ownership lines of this pod's volume in the kubelet log;
read the node plugin's NodeStageVolume / NodePublishVolume timing; check the
pod's securityContext (fsGroup, fsGroupChangePolicy).`,
	},
	Params: []Param{
		{Key: "threshold", Default: "2m", Help: "a mount (SetUp) slower than this is reported"},
	},
	Check:      checkSlowMount,
	Rank:       55,
	Story:      summaryStory,
	Cause:      causeSlowMount,
	CauseOrder: 75,
})

func checkSlowMount(c *Context) []Finding {
	th := c.Duration("threshold")
	ms := c.mountSide()
	var out []Finding
	for _, v := range c.Timeline.Volumes {
		var tos []parser.Event
		for i := range v.Events {
			if e := &v.Events[i]; e.Kind == parser.MountTimeout && ms.mountIsSlow(e, v) {
				tos = append(tos, *e)
			}
		}
		if len(tos) > 0 {
			out = append(out, slowMountFinding(ms, v, tos))
		} else if f, ok := slowSetupFinding(ms, v, th); ok {
			out = append(out, f)
		}
	}
	byPath := map[string][]parser.Event{}
	var paths []string
	for i := range c.Timeline.Other {
		if e := &c.Timeline.Other[i]; e.Kind == parser.MountTimeout && ms.mountIsSlow(e, nil) {
			if byPath[e.Source.Path()] == nil {
				paths = append(paths, e.Source.Path())
			}
			byPath[e.Source.Path()] = append(byPath[e.Source.Path()], *e)
		}
	}
	for _, p := range paths {
		out = append(out, slowMountFinding(ms, nil, byPath[p]))
	}
	return out
}

// slowMountFinding reports mount timeouts tos (of volume v, nil when
// unjoined) that came after a confirmed attach or name no volume waiting
// for one.
func slowMountFinding(ms *mountSide, v *timeline.Volume, tos []parser.Event) Finding {
	tos = timeline.Counted(tos)
	byTime(tos)
	first, last := spanOf(tos)
	n := total(tos)
	att := ms.confirmed(&tos[0], v)
	if v == nil && att != nil {
		v = att.v // the attached volume the timeouts wait for
	}
	f := Finding{Pods: podsOf(tos), Start: first, End: last, Count: n, Code: parser.CodeDeadlineExceeded}
	what := "the pod's volumes"
	if v != nil {
		f.Volume, f.PV = key(v), v.PV
		what = name(v)
	}
	for _, e := range tos {
		if e.Node != "" {
			f.Nodes = []string{e.Node}
			break
		}
	}
	f.Summary = fmt.Sprintf("mounting %s took too long after the attach: kubelet timed out ×%d", what, n)
	if last.Sub(first) > 0 {
		f.Summary += " over " + dur(last.Sub(first))
	}
	var ex strings.Builder
	f.Evidence = series(tos, "kubelet: timed out mounting")
	if att != nil {
		fmt.Fprintf(&ex, "The attach of %s was confirmed %s, before the first timeout; no MountDevice or SetUp error follows, so the kubelet is waiting on the mount itself. ", what, clockOr(att.e.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*att.e, "attach confirmed before the timeouts"))
	} else {
		ex.WriteString("The timeouts name no volume still waiting for the attach (token and other never-attached volumes aside): the volumes are attached and the mount is what is slow. ")
	}
	if unmounted, _, ok := mountLists(&tos[0]); ok && len(unmounted) > 0 {
		fmt.Fprintf(&ex, "Still unmounted: %s. ", strings.Join(unmounted, ", "))
	}
	steps := slowMountSteps(ms, &tos[0], v, &ex, &f)
	if n == 1 {
		if ok := ms.mountedAfter(&tos[0], v); ok != nil {
			f.Severity = Info
			fmt.Fprintf(&ex, "The mount went through %s: one transient timeout.", clockOr(ok.e.Time.UTC()))
			f.Evidence = append(f.Evidence, evidence(*ok.e, "mounted after the timeout"))
		}
	}
	f.Explanation = strings.TrimSpace(ex.String())
	f.SetNext(steps...)
	return f
}

// slowMountSteps names the fsGroup ownership change as the cause when the
// kubelet logged it for this volume or pod, and returns the next steps.
func slowMountSteps(ms *mountSide, t *parser.Event, v *timeline.Volume, ex *strings.Builder, f *Finding) []Step {
	var own *parser.Event
	for i := range ms.slowOwn {
		o := ms.slowOwn[i]
		if (v != nil && o.v == v) || (t != nil && near(t, v, o)) || (v != nil && o.e.PV != "" && o.e.PV == v.PV) {
			own = o.e
			break
		}
	}
	if own != nil {
		fmt.Fprintf(ex, "The kubelet's recursive fsGroup ownership change of the volume is running long (%s %s): with fsGroupChangePolicy Always every file is chowned on every mount. ", own.Detail, clockOr(own.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*own, "fsGroup ownership change running long"))
		f.Code = "FSGroupOwnershipChange"
		f.Summary += "; the kubelet's fsGroup ownership change is still running"
		return []Step{
			{Fix, "Set fsGroupChangePolicy: OnRootMismatch in the pod's securityContext so the kubelet skips the recursive chown when the volume's root already matches (or drop fsGroup if the image does not need it)."},
			{Recover, "Let the current ownership change finish; deleting the pod starts it over."},
			{Prevent, "For CSI drivers that support it, fsGroupPolicy: File with VOLUME_MOUNT_GROUP lets the driver apply the group at mount time instead."},
		}
	}
	return []Step{
		{Confirm, "Look in the kubelet log for \"Setting volume ownership for … processed N files\" (fsGroup) for this pod's volume, and read the node plugin's NodeStageVolume / NodePublishVolume timing."},
		{Fix, "If the fsGroup ownership change is the cause, set fsGroupChangePolicy: OnRootMismatch in the pod's securityContext; otherwise look at the node plugin (fsck or resize of a large filesystem, a slow network block device)."},
	}
}

// slowSetupFinding reports a mount of v that started and succeeded more
// than th apart on one node (operationExecutor.MountVolume started →
// MountVolume.SetUp succeeded) with no failure between, or an fsGroup
// ownership change reported as slow.
func slowSetupFinding(ms *mountSide, v *timeline.Volume, th time.Duration) (Finding, bool) {
	var start *parser.Event
	for i := range v.Events {
		e := &v.Events[i]
		switch {
		case kindIn(e.Kind, parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed, parser.VerifyAttachedFailed, parser.MountTimeout):
			// a failure between start and success is what took the time:
			// the rule of that failure tells it
			start = nil
		case e.Kind == parser.MountStarted && e.Origin == 0:
			if start == nil || (start.Node != "" && e.Node != start.Node) {
				start = e
			}
		case e.Kind == parser.SetupSucceeded && start != nil && (e.Node == "" || start.Node == "" || e.Node == start.Node):
			if took := e.Time.Sub(start.Time); took > th {
				f := Finding{Volume: key(v), PV: v.PV, Nodes: []string{firstNonEmpty(e.Node, start.Node)}, Pods: podsOf([]parser.Event{*start, *e}),
					Start: start.Time.UTC(), End: e.Time.UTC(), Count: 1}
				f.Summary = fmt.Sprintf("mounting %s on %s took %s (threshold %s)", name(v), nodeOr(f.Nodes[0]), dur(took), dur(th))
				var ex strings.Builder
				fmt.Fprintf(&ex, "The kubelet started mounting %s %s and SetUp succeeded %s, %s later. ", name(v), clockOr(start.Time.UTC()), clockOr(e.Time.UTC()), dur(took))
				f.Evidence = []Evidence{evidence(*e, "mount finally succeeded"), evidence(*start, "mount started")}
				steps := slowMountSteps(ms, nil, v, &ex, &f)
				f.Explanation = strings.TrimSpace(ex.String())
				f.SetNext(steps...)
				return f, true
			}
			start = nil
		}
	}
	for i := range ms.slowOwn {
		if o := ms.slowOwn[i]; o.v == v {
			f := Finding{Volume: key(v), PV: v.PV, Nodes: []string{o.e.Node}, Pods: podsOf([]parser.Event{*o.e}), Start: o.e.Time.UTC(), End: o.e.Time.UTC(), Count: 1}
			f.Summary = fmt.Sprintf("the kubelet's fsGroup ownership change of %s is taking long (%s)", name(v), o.e.Detail)
			var ex strings.Builder
			steps := slowMountSteps(ms, nil, v, &ex, &f)
			f.Explanation = strings.TrimSpace(ex.String())
			f.SetNext(steps...)
			return f, true
		}
	}
	return Finding{}, false
}

func causeSlowMount(c *Chain) (Cause, bool) {
	f := c.First("slow-mount")
	out := Cause{
		Summary:   f.Summary,
		Component: "kubelet SetUp / CSI node plugin NodeStageVolume, NodePublishVolume",
		RootCause: "The volume was attached; the mount itself (NodeStage / NodePublish, or the kubelet's fsGroup ownership change) took longer than the kubelet's 2m3s wait.",
	}
	if f.Code == "FSGroupOwnershipChange" {
		out.Component = "kubelet fsGroup ownership change (pod securityContext)"
		out.RootCause = "The kubelet changes the ownership of every file of the volume on every mount (fsGroup with fsGroupChangePolicy Always); on a volume with many files that outlasts the 2m3s wait. fsGroupChangePolicy: OnRootMismatch avoids it."
	}
	return out, true
}
