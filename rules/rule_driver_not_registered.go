package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

var ruleDriverNotRegistered = Register(Rule{
	Name:     "driver-not-registered",
	Severity: Critical,
	Doc: Doc{
		Title: "The kubelet has no CSI node plugin registered for the volume's driver",
		Explanation: `Before the kubelet's volume manager can call NodeStageVolume (MountDevice) or
NodePublishVolume (SetUp) for a CSI volume, the driver's node plugin must have
registered with the kubelet: the node-driver-registrar sidecar of the driver's
node DaemonSet puts a socket in /var/lib/kubelet/plugins_registry/, the
kubelet's plugin manager calls it, adds the driver to its list of registered
CSI drivers and to the node's CSINode object. Until then every MountDevice /
SetUp of the driver's volumes fails at once with "driver name X not found in
the list of registered CSI drivers" and the operation executor retries with
backoff (up to 2m2s); the pod stays ContainerCreating and, after 2m3s, the
kubelet also logs "Unable to attach or mount volumes … timed out" — a
consequence, not a slow attach. On the controller side a CSINode without the
driver ("CSINode … does not contain driver") blocks the attach the same way.

The usual causes: the node plugin DaemonSet has no pod on this node (a
nodeSelector, a taint without toleration, the pod crash-looping or not yet
started after a node reboot), the registrar points at the wrong kubelet
directory (microk8s, k0s, k3s and RKE use a different root than
/var/lib/kubelet), or the driver was renamed or uninstalled while volumes
still use it.`,
		Next: `Check kubectl get csinode <node> -o yaml for the driver, the driver's node
plugin pod on the node (kubectl get pods -o wide for its DaemonSet) and its
node-driver-registrar container's log ("Registration process completed" or the
error), and the kubelet's plugin manager lines ("Register new plugin").`,
	},
	Check:      checkDriverNotRegistered,
	Verify:     verifyDriverRegistered,
	Rank:       15,
	Story:      summaryStory,
	Cause:      causeDriverNotRegistered,
	CauseOrder: 15,
})

func checkDriverNotRegistered(c *Context) []Finding {
	var out []Finding
	for _, v := range c.Timeline.Volumes {
		nodes, groups := nodeGroups(filter(v, isDriverNotRegistered))
		for _, n := range nodes {
			out = append(out, driverFinding(v, n, groups[n], v.Events))
		}
	}
	var other []parser.Event
	for i := range c.Timeline.Other {
		if e := &c.Timeline.Other[i]; isDriverNotRegistered(e) {
			other = append(other, *e)
		}
	}
	nodes, groups := nodeGroups(other)
	for _, n := range nodes {
		out = append(out, driverFinding(nil, n, groups[n], c.Timeline.Other))
	}
	return out
}

// driverFinding reports the failures evs of volume v (nil: unjoined) on
// node; all are the events to look for a later success in.
func driverFinding(v *timeline.Volume, node string, evs, all []parser.Event) Finding {
	evs = timeline.Counted(evs)
	byTime(evs)
	first, last := spanOf(evs)
	n := total(evs)
	driver := driverNamed(evs[0].Error)
	what := "a volume"
	f := Finding{Nodes: []string{node}, Pods: podsOf(evs), Start: first, End: last, Count: n, Code: evs[0].Code}
	if v != nil {
		f.Volume, f.PV = key(v), v.PV
		what = name(v)
		if driver == "" {
			driver = driverOf(v)
		}
	} else if evs[0].PV != "" {
		what = evs[0].PV
	}
	drv := "the volume's CSI driver"
	if driver != "" {
		drv = driver
	}
	f.Summary = fmt.Sprintf("kubelet on %s has no CSI node plugin registered for %s (%s)", nodeOr(node), drv, what)
	if t := tally(n, first, last); t != "" {
		f.Summary += " " + t
	}
	var ex strings.Builder
	fmt.Fprintf(&ex, "MountDevice/SetUp of %s on %s failed %s because %s is not in the kubelet's list of registered CSI drivers: its node plugin never registered there (node-driver-registrar). ", what, nodeOr(node), plural(n, "time"), drv)
	f.Evidence = series(evs, "driver not registered")
	if a := lastEventBefore(all, first, isAttachConfirmed); a != nil {
		fmt.Fprintf(&ex, "The attach had been confirmed (%s), so the controller side is done: only the node plugin is missing. ", clockOr(a.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*a, "attach confirmed before"))
	}
	if ok := healedAfter(all, node, last); ok != nil {
		f.Severity = Warning
		f.End = ok.Time.UTC()
		fmt.Fprintf(&ex, "A mount succeeded %s: the plugin registered by then.", clockOr(ok.Time.UTC()))
		f.Evidence = append(f.Evidence, evidence(*ok, "mount succeeded once the driver registered"))
	} else {
		ex.WriteString("No mount success follows: the pods using it stay ContainerCreating, and their mount timeouts are this failure's consequence.")
	}
	f.Explanation = ex.String()
	f.SetNext(
		Step{Confirm, fmt.Sprintf("Run kubectl get csinode %s -o yaml: spec.drivers should list %s.", nodeOrAngle(node), drv)},
		Step{Confirm, fmt.Sprintf("Find the driver's node plugin pod on %s (kubectl get pods -A -o wide for its DaemonSet) and read its node-driver-registrar container log.", nodeHere(node))},
		Step{Fix, "Get the node plugin running on the node: tolerations / nodeSelector of its DaemonSet, its crash, or the kubelet root directory it registers under (microk8s, k0s, k3s and RKE differ from /var/lib/kubelet)."},
		Step{Recover, "Once the driver registers, the kubelet's next retry mounts the volume; no pod restart is needed unless the backoff is long."},
		Step{Prevent, "Alert on CSINode objects that lack a driver the node's pods use, and on node plugin DaemonSets with unavailable pods."},
	)
	return f
}

// driverNamed reads the driver out of "driver name X not found in the list
// of registered CSI drivers" or "does not contain driver X".
func driverNamed(err string) string {
	if i := strings.Index(err, "driver name "); i >= 0 {
		d, _, _ := strings.Cut(err[i+len("driver name "):], " ")
		return d
	}
	if i := strings.Index(err, "does not contain driver "); i >= 0 {
		d, _, _ := strings.Cut(err[i+len("does not contain driver "):], " ")
		return strings.Trim(d, `".,`)
	}
	return ""
}

// clockOr formats a time of day, or says it is unknown.
func clockOr(t time.Time) string {
	if t.IsZero() {
		return "time unknown"
	}
	return "at " + clock(t)
}

func causeDriverNotRegistered(c *Chain) (Cause, bool) {
	f := c.First("driver-not-registered")
	return Cause{
		Summary:   f.Summary,
		Component: "CSI node plugin / node-driver-registrar on " + nodeOr(nodeAt(f, 0)),
		RootCause: "The kubelet cannot stage or publish the volume because the driver's node plugin is not registered on the node; the mount timeouts that follow are its consequence.",
	}, true
}
