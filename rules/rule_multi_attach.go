package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleMultiAttach = Register(Rule{
	Name:     "multi-attach",
	Severity: Warning,
	Doc: Doc{
		Title: "An attach was refused because the volume is still attached to another node",
		Explanation: `Before attaching a ReadWriteOnce volume to node B, the attach/detach
controller asks its actual state of world which nodes the volume is
attach-confirmed on; if any other node is listed it reports "Multi-Attach
error … Volume is already exclusively attached to one node" (or "already used
by pod(s) …") once per (volume, node) and waits. Uncertain attachments (a
failed attach) are not listed, so they never cause this error.

This is the safe path of a pod move: the volume is detached from A first
(after A's kubelet unmounts it and drops it from node.status.volumesInUse),
then attached to B. A Multi-Attach error that clears within seconds is just
that ordering being visible. It lasts when A never reports the unmount: node
shut down or NotReady, kubelet stuck, or the old pod still present. Then the
controller waits 6 minutes (maxWaitForUnmountDuration) before force-detaching
(≤1.24 always; ≥1.25 only if the node is not Ready; ≥1.28 at once with the
node.kubernetes.io/out-of-service taint).`,
		Next: `Check node A: is it Ready, is its kubelet running, does node.status.volumesInUse
still list the volume, is the old pod still there (Terminating/Unknown)? For a
node that is gone for good, delete the pod/node or taint it out-of-service so
the controller detaches the volume.`,
	},
	Params: []Param{
		{Key: "grace", Default: "1m", Help: "a Multi-Attach error resolved within this is info, not a warning"},
	},
	Check:      checkMultiAttach,
	Verify:     verifyAccess,
	Rank:       30,
	Story:      summaryStory,
	Cause:      causeMultiAttach,
	CauseOrder: 50,
	Reorder:    reorderMultiAttach,
})

func checkMultiAttach(c *Context) []Finding {
	grace := c.Duration("grace")
	logEnd := end(c.Timeline)
	var out []Finding
	multiKinds := kindsOf(parser.MultiAttach)
	for i, v := range c.Timeline.Volumes {
		if !c.vol(i).has(multiKinds) {
			continue
		}
		all := timeline.Counted(filter(v, func(e *parser.Event) bool { return e.Kind == parser.MultiAttach }))
		if len(all) == 0 {
			continue
		}
		nodes, groups := groupByNode(all)
		for _, n := range nodes {
			evs := groups[n]
			byTime(evs)
			out = append(out, multiAttachFinding(v, c.vol(i), n, evs, grace, logEnd))
		}
	}
	return out
}

func multiAttachFinding(v *timeline.Volume, vf *volFacts, b string, evs []parser.Event, grace time.Duration, logEnd time.Time) Finding {
	first, last := spanOf(evs)
	n := total(evs)
	blockers := blockersOf(v, vf, evs, b)

	// The attach that went through, on b (or, when b is unknown, on a node
	// that was not blocking).
	succ := firstAfterTime(v, first.Add(-time.Nanosecond), func(e *parser.Event) bool {
		if e.Kind != parser.AttachSucceeded && e.Kind != parser.VerifyAttachedSucceeded {
			return false
		}
		if b != "" {
			return e.Node == b
		}
		return e.Node != "" && !containsStr(blockers, e.Node)
	})
	// The detach from a blocker that let it through.
	det := firstAfterTime(v, first.Add(-time.Nanosecond), func(e *parser.Event) bool {
		if e.Origin != 0 || !kindIn(e.Kind, parser.DetachStarted, parser.ForceDetach) {
			return false
		}
		if len(blockers) > 0 {
			return containsStr(blockers, e.Node)
		}
		return e.Node != b
	})

	sev := Warning
	var sum, ex strings.Builder
	fmt.Fprintf(&sum, "attach of %s to %s refused: already attached to %s", name(v), nodeOr(b), orUnknown(blockers))
	if pods := usedBy(evs); pods != "" {
		fmt.Fprintf(&sum, " (used by pod(s) %s)", pods)
	}
	if n > 1 {
		fmt.Fprintf(&sum, " (×%d)", n)
	}
	fmt.Fprintf(&ex, "The attach/detach controller refused to attach %s to %s because it is attach-confirmed on %s. ", name(v), nodeOr(b), orUnknown(blockers))
	ev := series(evs, "Multi-Attach error")
	switch {
	case succ != nil:
		wait := succ.Time.UTC().Sub(first)
		fmt.Fprintf(&sum, "; attached %s later", dur(wait))
		fmt.Fprintf(&ex, "The attach went through at %s, %s after the first error", clock(succ.Time.UTC()), dur(wait))
		if det != nil {
			fmt.Fprintf(&ex, ", once the detach from %s (%s) had run", det.Node, clock(det.Time.UTC()))
		}
		ex.WriteString(". ")
		if wait <= grace {
			sev = Info
			ex.WriteString("That is the normal detach-before-attach ordering of a pod move made visible, not a fault. ")
		} else {
			fmt.Fprintf(&ex, "Waiting longer than %s means the old node did not release the volume promptly: its kubelet did not unmount it and drop it from node.status.volumesInUse. ", dur(grace))
		}
		if det != nil && det.Kind == parser.ForceDetach {
			ex.WriteString("The detach was forced (maxWaitForUnmountDuration 6m or the out-of-service taint), i.e. the old node never confirmed the unmount. ")
		}
	default:
		open := logEnd.Sub(first)
		if det != nil {
			fmt.Fprintf(&sum, "; detach from %s started %s later, no attach seen yet", det.Node, dur(det.Time.UTC().Sub(first)))
			fmt.Fprintf(&ex, "The detach from %s started at %s (%s after the error); the logs end before the attach to %s. ", det.Node, clock(det.Time.UTC()), dur(det.Time.UTC().Sub(first)), nodeOr(b))
			if open <= grace {
				sev = Info
				ex.WriteString("The detach-then-attach ordering is working as designed; this looks transient. ")
			}
		} else if first.IsZero() || logEnd.IsZero() {
			sum.WriteString("; no detach or attach follows (times unknown)")
			fmt.Fprintf(&ex, "No detach from %s and no attach to %s follow in these lines, and the rows carry no absolute time, so how long it lasted is not known. The controller waits until the old node's kubelet unmounts the volume and drops it from node.status.volumesInUse, or force-detaches after maxWaitForUnmountDuration (6m; ≥1.25 only when the node is not Ready) or on an out-of-service taint. ", orUnknown(blockers), nodeOr(b))
		} else if open < grace {
			if open < time.Second {
				sum.WriteString("; the logs end right there, with no detach or attach")
			} else {
				fmt.Fprintf(&sum, "; the logs end %s later with no detach or attach", dur(open))
			}
			fmt.Fprintf(&ex, "The logs end %s after the error, before any detach from %s or attach to %s: whether it cleared is not visible. If the old node is down, expect a force detach after maxWaitForUnmountDuration (6m; ≥1.25 only when the node is not Ready) or the out-of-service taint. ", dur(open), orUnknown(blockers), nodeOr(b))
		} else {
			fmt.Fprintf(&sum, "; still blocked when the logs end (%s)", dur(open))
			fmt.Fprintf(&ex, "No detach from %s and no attach to %s follow in %s of logs: the old node has not released the volume. The controller waits until the old node's kubelet unmounts it and drops it from node.status.volumesInUse, or until it force-detaches after maxWaitForUnmountDuration (6m; ≥1.25 only when the node is not Ready) or on an out-of-service taint. ", orUnknown(blockers), nodeOr(b), dur(open))
		}
	}
	if det != nil {
		ev = append(ev, evidence(*det, "detach from the blocking node"))
	}
	if succ != nil {
		ev = append(ev, evidence(*succ, "attach finally went through"))
	}
	nodes := append([]string{b}, blockers...)
	if det != nil {
		nodes = append(nodes, det.Node)
	}
	f := Finding{
		Severity:    sev,
		Volume:      key(v),
		PV:          v.PV,
		Nodes:       nodes,
		Pods:        podsOf(evs),
		Start:       first,
		End:         last,
		Count:       n,
		Code:        parser.CodeMultiAttach,
		Summary:     sum.String(),
		Explanation: strings.TrimSpace(ex.String()),
		Evidence:    ev,
	}
	if succ != nil {
		f.End = succ.Time.UTC()
	} else if det != nil {
		f.End = det.Time.UTC()
	}
	if sev == Info {
		f.SetNext(Step{Confirm, "Nothing to fix if this matches a pod move; if it recurs, check how long the old node takes to unmount (kubelet logs on the old node)."})
	} else {
		f.SetNext(
			Step{Recover, fmt.Sprintf("If %s is gone, delete the old pod or apply the node.kubernetes.io/out-of-service taint so the controller detaches the volume.", orUnknown(blockers))},
			Step{Confirm, fmt.Sprintf("Check %s: Ready? kubelet running? Does node.status.volumesInUse still list %s? Is the old pod still present (Terminating/Unknown)?", orUnknown(blockers), name(v))})
	}
	return f
}

// blockersOf returns the nodes the Multi-Attach lines name as holding the
// volume (Detail), else the nodes the timeline had it held on.
func blockersOf(v *timeline.Volume, vf *volFacts, evs []parser.Event, b string) []string {
	var out []string
	known := vf.nodes
	for _, e := range evs {
		podsOnly := strings.Contains(strings.ToLower(e.Detail), "pod")
		toks := strings.FieldsFunc(e.Detail, func(r rune) bool {
			return r == ',' || r == ' ' || r == '[' || r == ']' || r == '"' || r == '='
		})
		for i, t := range toks {
			if t == b {
				continue
			}
			nameLike := strings.ContainsAny(t, ".-0123456789") && !strings.Contains(t, "/") && !strings.Contains(t, "'")
			afterNode := i > 0 && (strings.EqualFold(toks[i-1], "node") || strings.EqualFold(toks[i-1], "nodes") || toks[i-1] == "attachedTo")
			if containsStr(known, t) || (afterNode && nameLike) || (!podsOnly && nameLike) {
				out = append(out, t)
			}
		}
	}
	if len(out) == 0 {
		for _, n := range known {
			if n == b {
				continue
			}
			if st, ok := stateAt(v, n, evs[0].Time.UTC()); ok && holds(st) {
				out = append(out, n)
			}
		}
	}
	return uniqSorted(out)
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orUnknown(nodes []string) string {
	if len(nodes) == 0 {
		return "another node"
	}
	return strings.Join(nodes, ", ")
}

// usedBy returns the pods a "used by pod(s)" Multi-Attach names, from Detail.
func usedBy(evs []parser.Event) string {
	for _, e := range evs {
		if _, rest, ok := strings.Cut(e.Detail, "pods="); ok {
			return strings.Trim(rest, "[]\" ")
		}
		if _, rest, ok := strings.Cut(e.Detail, "used by pod(s) "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

func causeMultiAttach(c *Chain) (Cause, bool) {
	f := c.First("multi-attach")
	if f.Severity == Info {
		return Cause{Summary: f.Summary, Component: "none (normal detach-before-attach ordering)", RootCause: "A pod move: the attach to the new node waited for the detach from the old one, as designed."}, true
	}
	return Cause{
		Summary:   f.Summary,
		Component: "the old node's kubelet / node lifecycle (volume not released)",
		RootCause: "An RWO volume must be detached from the old node before it can attach to the new one; the old node had not released it (unmount not reported in node.status.volumesInUse).",
	}, true
}

// reorderMultiAttach: a kubelet timeout (slow-attach) overlapping a
// Multi-Attach error is its effect.
func reorderMultiAttach(ma, f *Finding, at time.Time) time.Time {
	if f.Rule == "slow-attach" && !f.End.Before(ma.Start) && at.Before(ma.Start) {
		return ma.Start.Add(time.Nanosecond)
	}
	return at
}
