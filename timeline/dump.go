package timeline

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Dump writes a compact, deterministic plain-text description of the
// timeline: inputs, skews, restarts, then per volume its names, event counts
// by kind, controller and kubelet intervals and overlaps. It is a debugging
// and golden-test format, not user output (report renders that).
func (t *Timeline) Dump(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "timeline %s → %s volumes=%d other=%d dupes=%d ignored=%d restarts=%d\n",
		ts(t.Start), ts(t.End), len(t.Volumes), len(t.Other), t.Dupes, t.Ignored, len(t.Restarts))
	for _, s := range t.Skews {
		fmt.Fprintf(b, "skew %s offset=%s pairs=%d from=%s\n", s.Path, s.Offset, s.Pairs, s.From)
	}
	for _, r := range t.Restarts {
		fmt.Fprintf(b, "restart %s %s %s %s:%d\n", ts(r.Time), r.Component, r.Reason, r.Source.Path(), r.Source.Line)
	}
	for _, v := range t.Volumes {
		fmt.Fprintf(b, "volume %s\n", v.Key())
		fmt.Fprintf(b, "  pv=%s handle=%s driver=%s multi=%t\n", v.PV, v.Handle, v.Driver(), v.Multi)
		fmt.Fprintf(b, "  span %s → %s\n", ts(v.First()), ts(v.Last()))
		fmt.Fprintf(b, "  names %s\n", strings.Join(v.Names(), " | "))
		fmt.Fprintf(b, "  nodes %s\n", strings.Join(v.Nodes(), " "))
		fmt.Fprintf(b, "  pods %s\n", strings.Join(v.Pods(), " "))
		kinds := map[string]int{}
		for i := range v.Events {
			k := v.Events[i].Kind.String()
			if v.Events[i].Origin != 0 {
				k += "(" + v.Events[i].Origin.String() + ")"
			}
			kinds[k]++
		}
		var ks []string
		for k, n := range kinds {
			ks = append(ks, fmt.Sprintf("%s=%d", k, n))
		}
		slices.Sort(ks)
		fmt.Fprintf(b, "  events %d %s\n", len(v.Events), strings.Join(ks, " "))
		s := v.Stats()
		fmt.Fprintf(b, "  stats attach=%d attach-failed=%d detach=%d detach-failed=%d mount-failed=%d multi-attach=%d force-detach=%d\n",
			s.Attaches, s.AttachFailures, s.Detaches, s.DetachFailures, s.MountFailures, s.MultiAttach, s.ForceDetaches)
		for _, in := range v.Intervals {
			fmt.Fprintf(b, "  ctl %s %s %s → %s\n", in.Node, in.State, ts(in.Start()), ts(in.End()))
		}
		for _, in := range v.Kubelet() {
			fmt.Fprintf(b, "  kl  %s %s %s → %s\n", in.Node, in.State, ts(in.Start()), ts(in.End()))
		}
		for _, o := range v.Overlaps() {
			var ns []string
			for _, n := range o.Nodes {
				ns = append(ns, n+"="+o.States[n].String())
			}
			fmt.Fprintf(b, "  overlap %s → %s %s\n", ts(o.Start), ts(o.End), strings.Join(ns, " "))
		}
	}
	kinds := map[string]int{}
	for i := range t.Other {
		kinds[t.Other[i].Kind.String()]++
	}
	var ks []string
	for k, n := range kinds {
		ks = append(ks, fmt.Sprintf("%s=%d", k, n))
	}
	slices.Sort(ks)
	fmt.Fprintf(b, "other %d %s\n", len(t.Other), strings.Join(ks, " "))
	return b.Flush()
}

func ts(t time.Time) string {
	if t.IsZero() {
		return "…"
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}
