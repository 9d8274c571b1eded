package report

import (
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// The wire values of the documents whose largest parts are written by
// hand (jsonappend.go): encoding them is what the hand-written encoders
// are held to (TestAppendVolumeMatchesEncoder,
// TestAppendTimelineVolMatchesEncoder, TestVolumesJSONMatchesWholeValue).

// toWireVolume is the wire form of v; appendVolume writes the same JSON
// without building it.
func toWireVolume(v *timeline.Volume) wireVolume {
	var scratch [16]kindCount
	f, kinds := tallyVolume(v, scratch[:0])
	w := wireVolume{
		Volume: wireVolumeName(v), PV: v.PV, Handle: v.Handle, Driver: v.Driver(),
		Names: strs(v.Names()), Attachments: strs(v.Attachments()), Nodes: strs(v.Nodes()), Pods: strs(v.Pods()),
		Multi: v.Multi, Events: len(v.Events), First: ts(v.First()), Last: ts(v.Last()),
		Failures: f, Kinds: make(map[string]int, len(kinds)),
	}
	for _, k := range kinds {
		w.Kinds[k.kind.String()] = k.n
	}
	w.Objects = toWireObjects(v.Objects())
	return w
}

func toWireEvent(e parser.Event) wireEvent {
	w := wireEvent{
		Time: ts(e.Time.UTC()), Relative: e.Relative, Kind: e.Kind.String(), Volume: e.Volume, PV: e.PV,
		Handle: e.Handle, Attachment: e.Attachment, Node: e.Node, Pod: e.Pod, Error: Sanitize(e.Error),
		Code: e.Code, Count: int(e.Count), Component: e.Component.String(), Origin: e.Origin.String(), EchoOf: int(e.EchoOf),
		Detail: Sanitize(e.Detail), Reason: Sanitize(e.Reason), PID: int(e.PID),
		Source: wireSource{Path: e.Source.Path(), Line: int(e.Source.Line)},
	}
	if e.Span > 0 {
		w.Span = e.Span.String()
	}
	if e.Level != 0 {
		w.Level = string(rune(e.Level))
	}
	if e.Retry != nil && e.Retry.Backoff > 0 {
		w.Backoff = e.Retry.Backoff.String()
	}
	return w
}

func toWireIntervals(iv []timeline.Interval) []wireInterval {
	out := []wireInterval{}
	for _, i := range iv {
		out = append(out, wireInterval{Node: i.Node, State: i.State.String(), Start: ts(i.Start()), End: ts(i.End())})
	}
	return out
}

func toWireTimelineVol(v *timeline.Volume) wireTimelineVol {
	w := wireTimelineVol{
		wireVolume: toWireVolume(v),
		Intervals:  toWireIntervals(v.Intervals),
		Kubelet:    toWireIntervals(v.Kubelet()),
		Overlaps:   []wireOverlap{},
		EventList:  []wireEvent{},
	}
	if ov := v.Overlaps(); len(ov) > 0 {
		w.Overlaps = toWireOverlaps(ov)
	}
	for _, e := range v.Events {
		w.EventList = append(w.EventList, toWireEvent(e))
	}
	return w
}

// toWireObjects is nil for none (the field is left out).
func toWireObjects(objs []timeline.Object) []wireObject {
	var out []wireObject
	for _, o := range objs {
		out = append(out, toWireObject(o))
	}
	return out
}
