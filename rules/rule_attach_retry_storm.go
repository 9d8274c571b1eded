package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleAttachRetryStorm = Register(Rule{
	Name:     "attach-retry-storm",
	Severity: Warning,
	Doc: Doc{
		Title: "The same attach keeps failing with the same error",
		Explanation: `Every failed AttachVolume.Attach is logged once by nestedpendingoperations
("Operation for … failed. No retries permitted until …") and retried after an
exponential backoff: 500ms, doubling per consecutive failure, capped at 2m2s
(2m0s before ≈1.8). After about eight attempts (≈2m7s) the attach is retried
once every ≈2m2s for as long as the pod wants the volume on that node.

Each failure also marks (volume, node) uncertain in the attach/detach
controller's actual state of world (since 1.13): the controller cannot know
whether the cloud attached the disk, so it keeps the entry for the detach
loop, but the multi-attach check ignores it. A long storm therefore leaves a
stale uncertain attachment behind, which is what lets a later attach to
another node go ahead before this one is detached (see attach-before-detach).

For a non-RWX volume the backoff key has no node ({volumeName:V podName:
nodeName:}), so an attach to a new node also waits out the backoff left by
the failures here. Counts come from log lines, not from Events: the API's
spam filter stops counting after 25.

Some error classes are permanent: ZoneNotMatch / ZoneMismatch (the disk and
the node are in different availability zones) and NotFound (the disk is
gone) never succeed by retrying, so those fire on the first failure.`,
		Next: `Read the error class: for a zone mismatch compare the PV's zone (node affinity,
topology labels) with the node's, and check the StorageClass uses
volumeBindingMode: WaitForFirstConsumer or allowedTopologies; for VolumeInUse
find the node the disk is still attached to; for DeadlineExceeded look at the
external-attacher and the driver's ControllerPublishVolume logs and the cloud
API; for NotFound check the disk still exists.`,
	},
	Params: []Param{
		{Key: "min-failures", Default: "3", Help: "failures of one class on one (volume, node) before it is a storm"},
		{Key: "critical-after", Default: "30m", Help: "a storm lasting longer than this is critical"},
	},
	Check:      checkAttachRetryStorm,
	Verify:     verifyZone,
	Rank:       20,
	Story:      storyAttachRetryStorm,
	Cause:      causeAttachRetryStorm,
	CauseOrder: 70,
})

// permanentCodes never succeed by retrying.
var permanentCodes = []string{parser.CodeZoneNotMatch, parser.CodeNotFound}

// checkAttachRetryStorm works on indices into the volume's events: only a
// storm that becomes a finding has its events copied, once (a flood of
// failures used to be copied four or five times).
func checkAttachRetryStorm(c *Context) []Finding {
	minFailures := max(c.Int("min-failures"), 1)
	criticalAfter := c.Duration("critical-after")
	var out []Finding
	failedKinds := kindsOf(parser.AttachFailed)
	for i, v := range c.Timeline.Volumes {
		if !c.vol(i).has(failedKinds) {
			continue
		}
		var all []int // every attach failure
		for k := range v.Events {
			if v.Events[k].Kind == parser.AttachFailed {
				all = append(all, k)
			}
		}
		type key struct{ node, code string }
		groups := map[key][]int{}
		var keys []key
		idx := timeline.CountedIdx(v.Events, all)
		for _, k := range idx {
			e := &v.Events[k]
			g := key{e.Node, e.Code}
			if groups[g] == nil {
				keys = append(keys, g)
			}
			groups[g] = append(groups[g], k)
		}
		for _, g := range keys {
			idx := groups[g]
			// nestedpendingoperations lines are one per attempt; when a group
			// has them, other lines about the same attempt (csi_attacher,
			// in-tree plugin) are not counted again.
			if withRetry := slices.DeleteFunc(slices.Clone(idx), func(k int) bool { return v.Events[k].Retry == nil }); len(withRetry) > 0 {
				idx = withRetry
			}
			n := 0
			for _, k := range idx {
				n += weight(v.Events[k])
			}
			permanent := slices.Contains(permanentCodes, g.code)
			if n < minFailures && !permanent {
				continue
			}
			evs := make([]parser.Event, len(idx))
			for j, k := range idx {
				evs[j] = v.Events[k]
			}
			byTime(evs)
			f := stormFinding(v, g.node, g.code, evs, n, permanent, criticalAfter)
			// Pods: echoes and describe rows name them when log lines do not.
			api, apiSpan := 0, time.Duration(0)
			for _, k := range all {
				e := &v.Events[k]
				if e.Code == g.code && (e.Node == g.node || e.Node == "") {
					f.Pods = append(f.Pods, e.Pod)
				}
				if e.Origin != 0 && int(e.Count) > api {
					api, apiSpan = int(e.Count), e.Span
				}
			}
			for k := range v.Events {
				if e := &v.Events[k]; e.Kind == parser.AttachStarted && e.Node == g.node {
					f.Pods = append(f.Pods, e.Pod)
				}
			}
			if api > n {
				f.Explanation += fmt.Sprintf(" The API's own tally (describe/Events) says ×%d", api)
				if apiSpan > 0 {
					f.Explanation += " over " + dur(apiSpan)
				}
				f.Explanation += "."
			}
			out = append(out, f)
		}
	}
	return out
}

func stormFinding(v *timeline.Volume, node, code string, evs []parser.Event, n int, permanent bool, criticalAfter time.Duration) Finding {
	first, last := spanOf(evs)
	span := last.Sub(first)
	sev := Warning
	if span > criticalAfter {
		sev = Critical
	}
	class := code
	if class == "" {
		class = "an unclassified error"
	}
	var sum strings.Builder
	fmt.Fprintf(&sum, "attach of %s to %s failed %d× with %s", name(v), nodeOr(node), n, class)
	if span > 0 {
		fmt.Fprintf(&sum, " over %s", dur(span))
	}
	cad := cadence(evs)
	if mb := maxBackoff(evs); mb > 0 {
		fmt.Fprintf(&sum, " (backoff reached %s)", dur(mb))
	}
	if permanent {
		sum.WriteString("; this error does not go away by retrying")
	}

	var ex strings.Builder
	fmt.Fprintf(&ex, "The attach/detach controller tried to attach %s to %s and failed %s", name(v), nodeOr(node), plural(n, "time"))
	if span > 0 {
		fmt.Fprintf(&ex, " between %s and %s", clock(first), clock(last))
	}
	ex.WriteString(". ")
	if cad != "" {
		fmt.Fprintf(&ex, "Observed cadence: %s; nestedpendingoperations backs off from 500ms, doubling per failure up to 2m2s. ", cad)
	}
	if evs[0].Retry != nil && evs[0].Retry.Backoff > 500*time.Millisecond {
		fmt.Fprintf(&ex, "The first failure here already carries a %s backoff, so the attach had been failing for at least %s before these logs begin. ",
			dur(evs[0].Retry.Backoff), dur(failingFor(evs[0].Retry.Backoff)))
	}
	if evs[0].Origin == parser.OriginDescribe {
		ex.WriteString("Counted from kubectl describe/get events rows (the API's count; its spam filter may undercount). ")
	} else if evs[0].Origin == parser.OriginEvent {
		ex.WriteString("Counted from Events echoed into the log (no nestedpendingoperations lines were found). ")
	}
	fmt.Fprintf(&ex, "After each failure the controller keeps (volume, %s) as an uncertain attachment: skipped by the multi-attach check, but still detached later by the detach loop. ", nodeOr(node))
	ex.WriteString(classMechanics(code))

	return Finding{
		Severity:    sev,
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       []string{node},
		Pods:        podsOf(evs),
		Start:       first,
		End:         last,
		Count:       n,
		Code:        code,
		Summary:     sum.String(),
		Explanation: ex.String(),
		Steps:       classSteps(code, driverOf(v)),
		Evidence:    series(evs, "attach failed"),
	}
}

func classMechanics(code string) string {
	switch code {
	case parser.CodeZoneNotMatch:
		return "ZoneNotMatch means the cloud refused to attach a disk to an instance in another availability zone: it is permanent, every retry fails the same way, and the pod waits until it is scheduled into the disk's zone."
	case parser.CodeNotFound:
		return "NotFound means the backing disk (or the node's instance) does not exist: retrying cannot succeed."
	case parser.CodeVolumeInUse:
		return "VolumeInUse means the cloud still has the disk attached to another instance: the controller attached here before the detach elsewhere finished, and retries until that detach completes."
	case parser.CodeDeadlineExceeded:
		return "DeadlineExceeded means the attach did not complete in time (csi_attacher waits 2m for the external-attacher; drivers have their own polls): the disk may be stuck attaching in the cloud."
	case parser.CodeMultiAttach:
		return "The attach is refused because the volume is exclusively attached elsewhere."
	case parser.CodePermission:
		return "PermissionDenied means the controller's or driver's cloud credentials lack the attach permission."
	case parser.CodeThrottled:
		return throttledMechanics
	}
	return ""
}

// throttledMechanics explains a storm (or a failed detach) of Throttled
// errors.
const throttledMechanics = "Throttled means the cloud's API refused the call for its request rate limit, not for anything about this disk: every attempt of every volume counts against the same limit, so a burst of operations (nodes drained, a zone's pods rescheduled, another cluster or tool on the same account) keeps failing until the rate drops; the controller's backoff (500ms doubling to 2m2s) lets it drop."

// throttledCheck is the step that confirms a Throttled storm.
const throttledCheck = "Check the cloud account's API throttling for the attach/detach calls at that time (AWS CloudTrail RequestLimitExceeded, Azure 429 responses, GCE rateLimitExceeded, the provider's API metrics) and what else called the API then (other clusters' controllers, autoscalers, backup jobs); count the volumes failing the same way (kcmtrace analyze lists each)."

// classSteps are the next steps for a storm of one error class, of a
// volume of CSI driver driver ("" when not known).
func classSteps(code, driver string) []Step {
	switch code {
	case parser.CodeZoneNotMatch:
		confirm := "Compare the disk's zone with the node's (PV nodeAffinity, node label topology.kubernetes.io/zone)."
		if isCBSDriver(driver) {
			confirm = "Compare the disk's zone with the node's (PV nodeAffinity, node label topology.kubernetes.io/zone); CBS AttachDisks answers ResourceUnavailable.ZoneNotMatch for a disk in another zone."
		}
		return []Step{
			{Recover, "Schedule the pod into the disk's zone (node affinity, or cordon the nodes of other zones)."},
			{Confirm, confirm},
			{Prevent, "Make the StorageClass use volumeBindingMode: WaitForFirstConsumer (or allowedTopologies) so disks are created in the zone of the pod's node."},
		}
	case parser.CodeNotFound:
		return []Step{{Confirm, "Check that the disk still exists in the cloud console, that the PV's volumeHandle names it, and the node's instance ID."}}
	case parser.CodeVolumeInUse:
		return []Step{{Confirm, "Find the instance the disk is attached to (cloud console) and whether its detach is progressing; check the old node's VolumeAttachment and the detach lines for it."}}
	case parser.CodeDeadlineExceeded:
		return []Step{{Confirm, "Read the external-attacher and CSI controller plugin logs for this VolumeAttachment; check the disk's state in the cloud (stuck attaching) and API rate limits."}}
	case parser.CodeThrottled:
		return []Step{
			{Recover, "Nothing to do for this volume: its attach succeeds once the API's rate drops; pause what floods the API (mass rescheduling, a drain) to shorten it."},
			{Confirm, throttledCheck},
			{Prevent, "Ask the provider for a higher API rate limit, or spread large rollouts and drains over time."},
		}
	}
	return []Step{{Confirm, "Read the error text on the evidence lines; check the external-attacher and CSI controller plugin logs for the same VolumeAttachment."}}
}

// storyAttachRetryStorm tells the storm as one line with its count, class
// and span. Once the pod has moved (attach-before-detach in the chain), the
// storm's "move the pod" recovery is history.
func storyAttachRetryStorm(f *Finding, c *Chain) ([]string, []Step) {
	s := stamp(f.Start, fmt.Sprintf("attach to %s failed %d× with %s", nodeOr(nodeAt(f, 0)), f.Count, firstNonEmpty(f.Code, "the same error")))
	if span := f.End.Sub(f.Start); span > 0 {
		s += " over " + dur(span)
	}
	s += " (retry storm; the attachment stays uncertain)"
	next := f.Steps
	if c.First("attach-before-detach") != nil {
		next = nil
		for _, st := range f.Steps {
			if st.Phase != Recover {
				next = append(next, st)
			}
		}
	}
	return []string{s}, next
}

func causeAttachRetryStorm(c *Chain) (Cause, bool) {
	f := c.First("attach-retry-storm")
	out := Cause{Summary: f.Summary}
	switch f.Code {
	case "ZoneNotMatch":
		out.Component = "StorageClass topology (volumeBindingMode / allowedTopologies) and scheduling"
		out.RootCause = "The disk lives in another availability zone than the node; the cloud refuses every attach."
	case "VolumeInUse":
		out.Component = "detach from the previous node"
		out.RootCause = "The disk is still attached to another instance."
	default:
		out.Component = "CSI driver ControllerPublishVolume / external-attacher / cloud API"
		out.RootCause = "The attach keeps failing with the same error."
	}
	return out, true
}
