package timeline

import (
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// MountOutage is one pod on one node failing to mount a volume: the
// stretch from its first to its last mount failure, what failed, and
// whether a mount succeeded afterwards.
type MountOutage struct {
	Node string
	Pod  string // "ns/name" once any of its lines names the namespace, else as logged ("" when unknown)

	First, Last time.Time           // first and last failure (a describe row reaches back by its span)
	Kinds       []parser.Kind       // failure kinds, in order of first appearance
	Counts      map[parser.Kind]int // failures per kind (a describe row counts its "(xN over …)")

	Recovered time.Time // first mount success on the node after the last failure; zero: none in the logs
	Relapsed  time.Time // a success after which the pod failed again; zero: none
	// FromDescribe: only describe rows or Event echoes tell of it (no
	// kubelet line on the node does).
	FromDescribe bool
}

// IsMountFailure reports whether k is a failed step of mounting a volume
// into a pod (MountDevice, SetUp, WaitForAttach, VerifyControllerAttached,
// a mount timeout).
func IsMountFailure(k parser.Kind) bool {
	switch k {
	case parser.MountDeviceFailed, parser.SetupFailed, parser.WaitForAttachFailed,
		parser.MountTimeout, parser.VerifyAttachedFailed:
		return true
	}
	return false
}

// isMountSuccess reports whether k ends a mount outage.
func isMountSuccess(k parser.Kind) bool {
	return k == parser.SetupSucceeded || k == parser.MountDeviceSucceeded
}

// MountOutages lists the mount outages of v, one per (node, pod name), in
// order of first failure; nil for a nil volume. Direct kubelet lines
// decide: a describe row or an Event echo of the same failures adds no
// outage for a node the logs already cover (nor, when it names no node,
// for a volume that has direct failure lines at all).
func (v *Volume) MountOutages() []*MountOutage {
	if v == nil {
		return nil
	}
	var list []*MountOutage
	byKey := map[string]*MountOutage{}
	directNode := map[string]bool{} // nodes with direct failure lines
	for _, e := range v.Events {
		if IsMountFailure(e.Kind) && e.Origin == 0 {
			directNode[e.Node] = true
		}
	}
	for _, e := range v.Events {
		if IsMountFailure(e.Kind) {
			if e.Origin != 0 && (directNode[e.Node] || e.Node == "" && len(directNode) > 0) {
				continue // the same outage, told again
			}
			k := e.Node + "\x00" + PodName(e.Pod)
			s := byKey[k]
			if s == nil {
				s = &MountOutage{Node: e.Node, Pod: e.Pod, Counts: map[parser.Kind]int{}, FromDescribe: e.Origin != 0}
				byKey[k] = s
				list = append(list, s)
			}
			if strings.Contains(e.Pod, "/") {
				s.Pod = e.Pod
			}
			if !s.Recovered.IsZero() && e.Time.UTC().After(s.Recovered) && s.Relapsed.IsZero() {
				s.Relapsed = s.Recovered
				s.Recovered = time.Time{}
			}
			if s.Counts[e.Kind] == 0 {
				s.Kinds = append(s.Kinds, e.Kind)
			}
			s.Counts[e.Kind] += max(int(e.Count), 1)
			t0, t1 := e.Time.UTC(), e.Time.UTC()
			if e.Span > 0 && e.Origin == parser.OriginDescribe {
				t0 = e.Time.Add(-e.Span).UTC()
			}
			if !t0.IsZero() && (s.First.IsZero() || t0.Before(s.First)) {
				s.First = t0
			}
			if t1.After(s.Last) {
				s.Last = t1
			}
		}
		if isMountSuccess(e.Kind) {
			for _, s := range list {
				if s.Node == e.Node && s.Recovered.IsZero() && e.Time.UTC().After(s.Last) {
					s.Recovered = e.Time.UTC()
				}
			}
		}
	}
	return list
}
