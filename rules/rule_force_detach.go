package rules

import (
	"fmt"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleForceDetach = Register(Rule{
	Name:     "force-detach",
	Severity: Warning,
	Doc: Doc{
		Title: "A volume was detached without the node confirming it was unmounted",
		Explanation: `Normally the attach/detach controller detaches a volume from a node only after
the node's kubelet has unmounted it and removed it from
node.status.volumesInUse ("Verified volume is safe to detach"). When the pod
is gone from the desired state but the node keeps reporting the volume in use,
the controller records a detach request time and waits
maxWaitForUnmountDuration (6 minutes, not configurable); then it detaches
anyway: "This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s
expired, force detaching". Since 1.25 the timeout path applies only to nodes
that are not Ready; since 1.30 --disable-force-detach-on-timeout turns it
off; and with the node.kubernetes.io/out-of-service taint (GA 1.28) the
detach is forced at once ("node has out-of-service taint").

A forced detach of a volume a live node is still writing to can corrupt its
filesystem; on a dead node it is what lets the pod start elsewhere, after a
6-minute outage.`,
		Next: `Find out why the node never confirmed the unmount: node NotReady or shut down,
kubelet down, unmount failing (kubelet UnmountDevice/TearDown errors). If the
node was alive, check the filesystem on the volume. For planned node
shutdowns use graceful node shutdown or the out-of-service taint.`,
	},
	Check:      checkForceDetach,
	Verify:     verifyForceDetach,
	Rank:       50,
	Story:      summaryStory,
	Cause:      causeForceDetach,
	CauseOrder: 40,
})

func checkForceDetach(c *Context) []Finding {
	var out []Finding
	forceKinds := kindsOf(parser.ForceDetach)
	for i, v := range c.Timeline.Volumes {
		if !c.vol(i).has(forceKinds) {
			continue
		}
		forced := timeline.Counted(filter(v, func(e *parser.Event) bool { return e.Kind == parser.ForceDetach }))
		nodes, groups := groupByNode(forced)
		for _, n := range nodes {
			evs := groups[n]
			byTime(evs)
			out = append(out, forceFinding(v, n, evs))
		}
	}
	return out
}

func forceFinding(v *timeline.Volume, node string, evs []parser.Event) Finding {
	fe := evs[0]
	text := strings.ToLower(fe.Detail + " " + fe.Error + " " + fe.Text.String())
	taint := strings.Contains(text, "out-of-service")
	ev := []Evidence{evidence(fe, "forced detach")}
	// When the wait began: the detach request, or the first "still mounted" skip.
	req := lastBeforeTime(v, fe, func(e *parser.Event) bool {
		return e.Node == node && e.Kind == parser.DetachRequested
	})
	if req == nil {
		for i := range v.Events {
			e := &v.Events[i]
			if e.Node == node && e.Kind == parser.DetachBlockedMounted && e.Time.Before(fe.Time) {
				req = &v.Events[i]
				break
			}
		}
	}
	if req != nil {
		ev = append(ev, evidence(*req, "detach requested: the 6-minute wait for the unmount starts"))
	}
	res := firstAfterTime(v, fe.Time.UTC(), func(e *parser.Event) bool {
		return e.Node == node && e.Origin == 0 && kindIn(e.Kind, parser.DetachSucceeded, parser.DetachFailed)
	})
	if res != nil {
		ev = append(ev, evidence(*res, "forced detach "+strings.TrimPrefix(res.Kind.String(), "detach-")))
	}
	// Who was waiting for it: a Multi-Attach on another node, then its attach.
	var blocked, attached *parser.Event
	for i := range v.Events {
		e := &v.Events[i]
		if e.Kind == parser.MultiAttach && e.Node != node && e.Time.Before(fe.Time) && blocked == nil {
			blocked = &v.Events[i]
		}
		if e.Kind == parser.AttachSucceeded && e.Node != node && e.Time.After(fe.Time) && attached == nil {
			attached = &v.Events[i]
		}
	}
	var sum, ex strings.Builder
	if taint {
		fmt.Fprintf(&sum, "%s force-detached from %s because the node has the out-of-service taint", name(v), nodeOr(node))
		fmt.Fprintf(&ex, "The attach/detach controller detached %s from %s without the safe-to-detach check because the node carries node.kubernetes.io/out-of-service: an operator declared the node down. ", name(v), nodeOr(node))
	} else {
		fmt.Fprintf(&sum, "%s force-detached from %s after maxWaitForUnmountDuration (6m) expired", name(v), nodeOr(node))
		fmt.Fprintf(&ex, "%s no longer wanted %s, but its kubelet kept reporting it in node.status.volumesInUse (or never reported at all), so the attach/detach controller skipped the detach for maxWaitForUnmountDuration (6m) and then detached it without the safe-to-detach check. ", nodeOr(node), name(v))
		if req != nil {
			fmt.Fprintf(&ex, "The wait started at %s; the forced detach came %s later. ", clock(req.Time.UTC()), dur(fe.Time.Sub(req.Time)))
		}
		ex.WriteString("On ≥1.25 this path is only taken when the node is not Ready, so the node was most likely down. ")
	}
	if blocked != nil {
		fmt.Fprintf(&ex, "Meanwhile the attach to %s was refused with Multi-Attach since %s", nodeOr(blocked.Node), clock(blocked.Time.UTC()))
		if attached != nil {
			fmt.Fprintf(&ex, "; it went through at %s, %s after the first refusal", clock(attached.Time.UTC()), dur(attached.Time.Sub(blocked.Time)))
		}
		ex.WriteString(". ")
		ev = append(ev, evidence(*blocked, "attach elsewhere blocked until this detach"))
	}
	if attached != nil {
		ev = append(ev, evidence(*attached, "attach to the new node after the forced detach"))
		if blocked == nil {
			fmt.Fprintf(&ex, "The volume was attached to %s at %s. ", attached.Node, clock(attached.Time.UTC()))
		}
	}
	ex.WriteString("If the node was in fact still running and writing, the filesystem may be damaged.")
	nodes := []string{node}
	if attached != nil {
		nodes = append(nodes, attached.Node)
	}
	start := fe.Time
	if req != nil {
		start = req.Time
	}
	endT := fe.Time
	if res != nil {
		endT = res.Time
	}
	next := []Step{
		{Confirm, fmt.Sprintf("Check %s around %s: NotReady / shut down / kubelet stopped? Were the kubelet's UnmountDevice or TearDown failing?", nodeHere(node), clock(fe.Time.UTC()))},
		{Fix, fmt.Sprintf("If %s was alive when the volume was force-detached, fsck the volume before trusting its data.", nodeHere(node))},
	}
	if !taint {
		next = append(next, Step{Prevent, "For planned shutdowns use graceful node shutdown; for dead nodes the out-of-service taint avoids the 6-minute wait."})
	}
	return Finding{
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       nodes,
		Pods:        podsOf(evs),
		Start:       start.UTC(),
		End:         endT.UTC(),
		Count:       total(evs),
		Summary:     sum.String(),
		Explanation: ex.String(),
		Steps:       next,
		Evidence:    ev,
	}
}

// lastBeforeTime returns the last event before ref (by time, then line)
// satisfying ok.
func lastBeforeTime(v *timeline.Volume, ref parser.Event, ok func(*parser.Event) bool) *parser.Event {
	var out *parser.Event
	for i := range v.Events {
		e := &v.Events[i]
		if e.Time.After(ref.Time) || e.Source == ref.Source {
			continue
		}
		if ok(e) {
			out = &v.Events[i]
		}
	}
	return out
}

func causeForceDetach(c *Chain) (Cause, bool) {
	f := c.First("force-detach")
	return Cause{
		Summary:   f.Summary,
		Component: "node " + nodeOr(nodeAt(f, 0)) + " (kubelet never confirmed the unmount)",
		RootCause: "The old node kept the volume in node.status.volumesInUse (or stopped reporting) so the controller waited maxWaitForUnmountDuration (6m) and force-detached, or the out-of-service taint forced it.",
	}, true
}
