// Package shapes generates the hostile input shapes the scale tests and
// benchmarks of timeline and rules replay (issue 21): parsed events, so that
// they measure the timeline and the rules, not the parser; WriteManyInputs
// writes its shape as log files, for the CLI's.
package shapes

import (
	"fmt"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// Volume is the unique name of the one volume ManyNodes attaches.
const Volume = "kubernetes.io/csi/ebs.csi.aws.com^vol-0abc"

// Start is the time of ManyNodes' first event.
var Start = time.Date(2024, 8, 12, 3, 10, 0, 0, time.UTC)

// ManyNodes is one volume attached to n nodes in turn, as the KCM logs it.
// With overlap (an RWX volume) every node keeps it until all n have it, then
// each is detached in turn; without (a flapping RWO volume), each node is
// detached right after the next one attached, so two nodes hold it at once.
func ManyNodes(n int, overlap bool) parser.Result {
	var evs []parser.Event
	t := Start
	add := func(k parser.Kind, node int) {
		name := fmt.Sprintf("node-%05d", node)
		evs = append(evs, parser.Draft{
			Time: parser.StampOf(t), Kind: k, Volume: Volume, PV: "pvc-x", Node: name, Component: parser.ComponentKCM,
			Text:   parser.TextOf(fmt.Sprintf("%s %s %s", k, name, t.Format(time.RFC3339Nano))),
			Source: parser.Source{File: parser.InternPath("kcm.log"), Line: parser.Int32(len(evs) + 1)},
		}.Event())
		t = t.Add(time.Second)
	}
	for i := range n {
		add(parser.AttachStarted, i)
		add(parser.AttachSucceeded, i)
		if !overlap && i > 0 {
			add(parser.DetachStarted, i-1)
			add(parser.DetachSucceeded, i-1)
		}
	}
	if overlap {
		for i := range n {
			add(parser.DetachStarted, i)
			add(parser.DetachSucceeded, i)
		}
	}
	return parser.Result{Input: parser.Input{Path: "kcm.log", Component: parser.ComponentKCM.String()}, Events: evs}
}
