package rules

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// This file holds what the kubelet-side rules (mount-failed, slow-mount,
// driver-not-registered, and slow-attach's reading of mount timeouts)
// derive from the kubelet's pod-level mount timeouts and mount failures.

// mountLists returns the volume lists of a pod-level mount timeout (its
// Detail): the pod's volumes not yet mounted and those the kubelet called
// unattached. ok is false when the line carried no list. The ≤1.9 combined
// list ("unattached/unmounted volumes=[…]") counts as both.
func mountLists(e *parser.Event) (unmounted, unattached []string, ok bool) {
	get := func(key string) ([]string, bool) {
		i := strings.Index(e.Detail, key)
		if i < 0 {
			return nil, false
		}
		rest := e.Detail[i+len(key):]
		rest, _, _ = strings.Cut(strings.TrimPrefix(rest, "["), "]")
		return strings.Fields(strings.ReplaceAll(rest, ",", " ")), true
	}
	if both, found := get("unattached/unmounted volumes="); found {
		return both, both, true
	}
	unmounted, okM := get("unmounted volumes=")
	unattached, okA := get("unattached volumes=")
	return unmounted, unattached, okM || okA
}

// neverAttached reports a pod volume name that is never attached by the
// controller: the service-account token volumes (projected
// kube-api-access-xxxxx, the old secret default-token-xxxxx and
// <sa>-token-xxxxx).
func neverAttached(name string) bool {
	if strings.HasPrefix(name, "kube-api-access-") || strings.HasPrefix(name, "default-token-") {
		return true
	}
	i := strings.LastIndex(name, "-token-")
	if i <= 0 {
		return false
	}
	suffix := name[i+len("-token-"):]
	if len(suffix) != 5 {
		return false
	}
	for _, c := range suffix {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// waitingForAttach returns the volumes a mount timeout says are still not
// attached, once the names that cannot be are removed: token volumes, and
// (kubelets up to 1.25 list every volume of the pod as unattached) any
// volume that is not also unmounted — a mounted volume is attached, so the
// list is the pod's whole volume list there, and only the unmounted ones
// may be waiting. listed is false when the line has no lists.
func waitingForAttach(e *parser.Event) (names []string, listed bool) {
	unmounted, unattached, ok := mountLists(e)
	if !ok {
		return nil, false
	}
	for _, n := range unattached {
		if neverAttached(n) || (len(unmounted) > 0 && !slices.Contains(unmounted, n)) {
			continue
		}
		names = append(names, n)
	}
	return names, true
}

// oldUnattachedList reports a mount timeout whose unattached list names a
// volume that is not unmounted (or a token volume): the ≤1.25 kubelet's
// list of every pod volume, which says nothing about attachment.
func oldUnattachedList(e *parser.Event) bool {
	unmounted, unattached, ok := mountLists(e)
	if !ok {
		return false
	}
	for _, n := range unattached {
		if neverAttached(n) || !slices.Contains(unmounted, n) {
			return true
		}
	}
	return false
}

// isNodeFailure reports a kubelet or node-plugin failure of MountDevice /
// SetUp (NodeStage / NodePublish) with one of codes.
func isNodeFailure(e *parser.Event, codes ...string) bool {
	switch e.Kind {
	case parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed:
	case parser.CSIError:
		if e.Component == parser.ComponentKCM || e.Detail == "attach" || e.Detail == "detach" {
			return false
		}
	default:
		return false
	}
	return slices.Contains(codes, e.Code)
}

// mountCodes are the codes of a mount that failed with its device present.
var mountCodes = classifier.MountCodes()

// isMountFailure reports a mount that failed with the device present
// (mount-failed's events). A PermissionDenied counts only on the mount path
// (a CSI controller's cloud permission error is not a mount's).
func isMountFailure(e *parser.Event) bool {
	if !isNodeFailure(e, mountCodes...) || isDeviceNotFound(e) {
		return false
	}
	if e.Code == parser.CodePermission && e.Kind == parser.CSIError && e.Detail != "mount" {
		return false
	}
	return true
}

// isDriverNotRegistered reports a line saying the kubelet has no CSI node
// plugin for the volume's driver (or the CSINode object lacks it).
func isDriverNotRegistered(e *parser.Event) bool {
	return e.Code == parser.CodeDriverNotRegistered && e.Kind != parser.Unknown
}

// isAttachConfirmed reports a line confirming a volume is attached: the
// controller's success, the kubelet's "Controller attach succeeded", the
// external-attacher's Attached, or the kubelet's WaitForAttach success.
func isAttachConfirmed(e *parser.Event) bool {
	return kindIn(e.Kind, parser.AttachSucceeded, parser.VerifyAttachedSucceeded, parser.CSIAttached, parser.WaitForAttachSucceeded)
}

// mountSide indexes, for the kubelet-side rules, the events that explain or
// qualify a pod-level mount timeout: mount failures (any node-side class),
// attach confirmations and mount successes, each with the volume they belong
// to (nil for the timeline's unjoined events).
//
// The confirmations and successes are read only about a mount timeout, and
// nearly every volume has some: they are listed on the first question
// (successes), not with the rest. A large cluster's churn has none to ask
// about, and lists of every healthy volume's were most of what the rules
// allocated (4 GiB of churn: 12 of 26 MB).
type mountSide struct {
	failures []located // mount failed, device missing, driver not registered
	slowOwn  []located // fsGroup ownership change running long, on an attachable volume

	tl        *timeline.Timeline
	successes sync.Once // fills attached and mounted
	attached  []located // attach confirmed
	mounted   []located // MountDevice / SetUp succeeded
}

// located is an event and the volume it was joined to (nil: unjoined).
type located struct {
	e *parser.Event
	v *timeline.Volume
}

// mountSide returns the run's mountSide, derived once per run.
func (c *Context) mountSide() *mountSide {
	f := c.facts()
	f.mountOnce.Do(func() { f.mount = newMountSide(c.Timeline) })
	return f.mount
}

// newMountSide reads the timeline once for the failures and the ownership
// changes (see mountSide for the rest).
func newMountSide(tl *timeline.Timeline) *mountSide {
	m := &mountSide{tl: tl}
	eachLocated(tl, func(e *parser.Event, v *timeline.Volume) {
		switch {
		case isMountFailure(e) || isDeviceNotFound(e) || isDriverNotRegistered(e):
			m.failures = push(m.failures, located{e, v})
		case e.Kind == parser.OwnershipChange && e.PV != "" && !strings.HasPrefix(e.Detail, "started"):
			m.slowOwn = push(m.slowOwn, located{e, v})
		}
	})
	return m
}

// listSuccesses fills m.attached and m.mounted, once (safe for concurrent
// rules).
func (m *mountSide) listSuccesses() {
	m.successes.Do(func() {
		eachLocated(m.tl, func(e *parser.Event, v *timeline.Volume) {
			switch {
			case isMountFailure(e) || isDeviceNotFound(e) || isDriverNotRegistered(e):
				// a failure, not a success (the order newMountSide tests in)
			case isAttachConfirmed(e):
				m.attached = push(m.attached, located{e, v})
			case kindIn(e.Kind, parser.MountDeviceSucceeded, parser.SetupSucceeded):
				m.mounted = push(m.mounted, located{e, v})
			}
		})
	})
}

// eachLocated calls f for every event of the timeline with its volume (nil
// for Other), volume by volume, then Other.
func eachLocated(tl *timeline.Timeline, f func(*parser.Event, *timeline.Volume)) {
	for _, v := range tl.Volumes {
		for i := range v.Events {
			f(&v.Events[i], v)
		}
	}
	for i := range tl.Other {
		f(&tl.Other[i], nil)
	}
}

// near reports whether event o (of volume ov) may be about the same pod's
// volumes as the mount timeout t (of volume tv, nil when unjoined): the same
// volume, or else the same input (a describe section, one log); and no
// disagreeing node or pod.
func near(t *parser.Event, tv *timeline.Volume, o located) bool {
	if (tv == nil || o.v != tv) && t.Source.Path() != o.e.Source.Path() {
		return false
	}
	return sameNodePod(t, o.e)
}

// sameNodePod reports whether t and o name no different node or pod.
func sameNodePod(t, o *parser.Event) bool {
	if t.Node != "" && o.Node != "" && t.Node != o.Node {
		return false
	}
	if t.Pod != "" && o.Pod != "" && !samePod(t.Pod, o.Pod) {
		return false
	}
	return true
}

// before reports whether a is not after b (unknown times never disagree).
func before(a, b time.Time) bool { return a.IsZero() || b.IsZero() || !a.After(b) }

// explained returns the mount failure that explains timeout t (a
// MountDevice/SetUp failure of the same pod's volumes), or nil.
func (m *mountSide) explained(t *parser.Event, tv *timeline.Volume) *located {
	for i := range m.failures {
		if near(t, tv, m.failures[i]) {
			return &m.failures[i]
		}
	}
	return nil
}

// confirmed returns the attach confirmation before timeout t for the same
// pod's input, or nil: the last one when several.
func (m *mountSide) confirmed(t *parser.Event, tv *timeline.Volume) *located {
	m.listSuccesses()
	var out *located
	for i := range m.attached {
		a := &m.attached[i]
		if near(t, tv, *a) && before(firstSeen(*a.e), firstSeen(*t)) {
			out = a
		}
	}
	return out
}

// mountedAfter returns a mount success after t for the same pod's input, or
// nil.
func (m *mountSide) mountedAfter(t *parser.Event, tv *timeline.Volume) *located {
	m.listSuccesses()
	for i := range m.mounted {
		s := &m.mounted[i]
		if near(t, tv, *s) && s.e.Time.After(t.Time) {
			return s
		}
	}
	return nil
}

// attachIsSlow reports whether a mount timeout is about the attach: it is
// not explained by a mount failure, and either its lists name a volume still
// waiting for the attach with no confirmation of the attach, or it has no
// lists and no confirmation.
func (m *mountSide) attachIsSlow(t *parser.Event, tv *timeline.Volume) bool {
	if m.explained(t, tv) != nil {
		return false
	}
	if m.confirmed(t, tv) != nil {
		return false
	}
	waiting, listed := waitingForAttach(t)
	return !listed || len(waiting) > 0
}

// mountIsSlow reports whether a mount timeout is about the mount: not
// explained by a failure, and the attach was confirmed or the lists say no
// volume waits for it (a ≥1.26 kubelet's empty unattached list).
func (m *mountSide) mountIsSlow(t *parser.Event, tv *timeline.Volume) bool {
	if m.explained(t, tv) != nil {
		return false
	}
	if m.confirmed(t, tv) != nil {
		return true
	}
	waiting, listed := waitingForAttach(t)
	return listed && len(waiting) == 0 && !oldUnattachedList(t)
}

// tally says how often and over how long: "×3 over 12m5s", "×3", or ""
// for a single occurrence.
func tally(n int, first, last time.Time) string {
	if n <= 1 {
		return ""
	}
	s := fmt.Sprintf("×%d", n)
	if last.Sub(first) > 0 {
		s += " over " + dur(last.Sub(first))
	}
	return s
}

// nodeGroups splits evs by node (groupByNode); node-less rows (describe
// rows, event echoes) join the only named node when there is one.
func nodeGroups(evs []parser.Event) (nodes []string, groups map[string][]parser.Event) {
	nodes, groups = groupByNode(evs)
	if len(groups) == 2 && groups[""] != nil {
		for _, n := range nodes {
			if n != "" {
				groups[n] = append(groups[n], groups[""]...)
			}
		}
		delete(groups, "")
		nodes = slices.DeleteFunc(nodes, func(n string) bool { return n == "" })
	}
	return nodes, groups
}

// lastEventBefore returns the last event of evs that
// satisfies keep at or before t, or nil.
func lastEventBefore(evs []parser.Event, t time.Time, keep func(*parser.Event) bool) *parser.Event {
	var out *parser.Event
	for i := range evs {
		if e := &evs[i]; keep(e) && before(firstSeen(*e), t) {
			if out == nil || !e.Time.Before(out.Time) {
				out = e
			}
		}
	}
	return out
}

// healedAfter returns the first mount success (MountDevice or SetUp) of evs
// on node (or any node when "") after t, or nil.
func healedAfter(evs []parser.Event, node string, t time.Time) *parser.Event {
	for i := range evs {
		e := &evs[i]
		if kindIn(e.Kind, parser.MountDeviceSucceeded, parser.SetupSucceeded) && e.Time.UTC().After(t) &&
			(node == "" || e.Node == "" || e.Node == node) {
			return e
		}
	}
	return nil
}
