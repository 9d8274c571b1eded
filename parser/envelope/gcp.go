package envelope

import (
	"net/url"
	"strings"
)

// gcpEnvelope reads Google Cloud Logging LogEntry JSON: `gcloud logging
// read --format=json` (one array, newest first) and Cloud Storage sink
// files (one LogEntry per line).
var gcpEnvelope = &Envelope{
	Name: "gcp",
	Doc:  "Google Cloud Logging LogEntry JSON (gcloud logging read --format=json, Cloud Storage sinks)",
	shapes: []shape{{
		name: "logentry",
		score: func(s *sample) int {
			if !s.has(`"insertId"`) && !s.has(`"logName"`) {
				return 0
			}
			return jsonScore(s, []string{`"timestamp"`}, []string{`"insertId"`, `"logName"`, `"resource"`, `"severity"`, `Payload"`})
		},
		decode: gcpDoc.decodeJSON,
	}},
}

var gcpDoc = &docSpec{fields: &fieldMap{
	time: []timeField{{path: "timestamp"}, {path: "receiveTimestamp"}},
	// Control plane: the klog header is split into severity and
	// sourceLocation, jsonPayload.message is the klog message. Nodes:
	// journald fields under jsonPayload.
	msg:   []string{"textPayload", "jsonPayload.message", "jsonPayload.MESSAGE", "jsonPayload.log", "jsonPayload.msg"},
	level: []string{"severity", "jsonPayload.PRIORITY"},
	file:  []string{"sourceLocation.file"},
	line:  []string{"sourceLocation.line"},
	id:    []string{"insertId"},
	label: [numLabels][]string{
		lComponent: {"resource.labels.component_name", "jsonPayload.SYSLOG_IDENTIFIER"},
		lPod:       {"resource.labels.pod_name"},
		lNamespace: {"resource.labels.namespace_name"},
		lContainer: {"resource.labels.container_name"},
		lNode:      {"resource.labels.node_name", "labels.compute.googleapis.com/resource_name"},
		lHost:      {"jsonPayload._HOSTNAME"},
		lUnit:      {"jsonPayload._SYSTEMD_UNIT"},
	},
	fix: gcpLogName,
}}

// gcpLogName takes what logName says: "projects/P/logs/kubelet" names the
// component, ".../logs/container.googleapis.com%2Fcontroller-manager" too,
// ".../logs/stderr" (container logs) the stream.
func gcpLogName(obj object, r *Record) {
	name := str(obj, "logName")
	_, id, ok := strings.Cut(name, "/logs/")
	if !ok {
		return
	}
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	id = id[strings.LastIndexByte(id, '/')+1:]
	switch {
	case id == "stdout" || id == "stderr":
		if r.Labels.Stream == "" {
			r.Labels.Stream = id
		}
	case r.Labels.Component == "":
		r.Labels.Component = id
	}
}
