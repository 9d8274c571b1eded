package envelope

import "strconv"

// eventExporterEnvelope reads kubernetes-event-exporter output (the
// opsgenie / resmoio tool's stdout and file receivers): one Kubernetes
// Event per line as JSON, with its own times (lastTimestamp, eventTime,
// firstTimestamp) and the object it is about (involvedObject). A record's
// Msg is the event's message and Reason, EventType and Count its reason,
// type and count, so that the caller reads it as an event table row does
// (reason + message).
var eventExporterEnvelope = &Envelope{
	Name: "event-exporter",
	Doc:  "kubernetes-event-exporter JSON (one Kubernetes Event per line)",
	shapes: []shape{{
		name: "events-jsonl",
		score: func(s *sample) int {
			return jsonScore(s, []string{`"involvedObject"`, `"reason"`, `"message"`}, []string{`"lastTimestamp"`, `"firstTimestamp"`, `"source"`, `"count"`})
		},
		decode: eventExporterDoc.decodeJSON,
	}},
}

var eventExporterDoc = &docSpec{fields: &fieldMap{
	time: []timeField{{path: "lastTimestamp"}, {path: "eventTime"}, {path: "firstTimestamp"}, {path: "metadata.creationTimestamp"}},
	msg:  []string{"message"},
	id:   []string{"metadata.uid"},
	label: [numLabels][]string{
		lComponent: {"source.component", "reportingComponent"},
		lNamespace: {"involvedObject.namespace", "metadata.namespace"},
		lNode:      {"source.host", "reportingInstance"},
	},
	fix: func(obj object, r *Record) {
		r.Reason = first(obj, []string{"reason"})
		r.EventType = first(obj, []string{"type"})
		if n, err := strconv.Atoi(first(obj, []string{"count", "series.count"})); err == nil {
			r.Count = n
		}
		switch first(obj, []string{"involvedObject.kind"}) {
		case "Pod":
			r.Labels.Pod = first(obj, []string{"involvedObject.name"})
		case "Node":
			if r.Labels.Node == "" {
				r.Labels.Node = first(obj, []string{"involvedObject.name"})
			}
		}
		if r.EventType == "Warning" {
			r.Level = 'W'
		} else if r.EventType != "" {
			r.Level = 'I'
		}
	},
}}
