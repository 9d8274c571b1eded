package main

import (
	"encoding/json"
	"strings"
)

// Broken log exports for TestBadInput's table: small GKE (gcp) exports of
// one attach that starts and succeeds, broken in one way each.

const (
	exportAttachStarted   = `I0812 03:10:10.208117       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-1" (UniqueName: "kubernetes.io/csi/d^vol-1") from node "n1" `
	exportAttachSucceeded = `I0812 03:10:14.519387       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "pvc-1" (UniqueName: "kubernetes.io/csi/d^vol-1") from node "n1" `
)

// gcpExportEntry is one Cloud Logging entry of the KCM container; ts ""
// leaves the time out.
func gcpExportEntry(id, ts, msg string) map[string]any {
	e := map[string]any{"insertId": id, "textPayload": msg, "logName": "projects/p/logs/stderr",
		"resource": map[string]any{"type": "k8s_container", "labels": map[string]any{
			"container_name": "kube-controller-manager", "pod_name": "kube-controller-manager-m1", "node_name": "m1"}}}
	if ts != "" {
		e["timestamp"] = ts
	}
	return e
}

// exportJSON renders v, on one line when indent is "".
func exportJSON(v any, indent string) string {
	b, err := json.Marshal(v)
	if indent != "" {
		b, err = json.MarshalIndent(v, "", indent)
	}
	if err != nil {
		panic(err)
	}
	return string(b)
}

// gcpExportTwo is the two entries of the attach.
func gcpExportTwo() []any {
	return []any{
		gcpExportEntry("a1", "2024-08-12T03:10:10.208117Z", exportAttachStarted),
		gcpExportEntry("a2", "2024-08-12T03:10:14.519387Z", exportAttachSucceeded),
	}
}

// gcpArrayCut is `gcloud logging read --format=json` output cut off inside
// its third record.
func gcpArrayCut() []byte {
	all := append(gcpExportTwo(), gcpExportEntry("a3", "2024-08-12T03:10:15Z", exportAttachSucceeded))
	s := exportJSON(all, "  ")
	return []byte(s[:strings.LastIndex(s, `"textPayload"`)+20])
}

// cloudwatchTruncated is `aws logs filter-log-events` output cut off in
// the middle of a number.
func cloudwatchTruncated() []byte {
	ev := func(ms int64, id, msg string) map[string]any {
		return map[string]any{"timestamp": ms, "message": msg, "eventId": id,
			"logStreamName": "kube-controller-manager-0123456789abcdef0123456789abcdef"}
	}
	s := exportJSON(map[string]any{"events": []any{
		ev(1723432210208, "1", exportAttachStarted), ev(1723432214519, "2", exportAttachSucceeded), ev(1723432215000, "3", exportAttachSucceeded),
	}}, "  ")
	return []byte(s[:strings.LastIndex(s, `"timestamp"`)+17])
}

// gcpSinkMixed is a Cloud Storage sink's JSON Lines with a VictoriaLogs
// line pasted in.
func gcpSinkMixed() []byte {
	var b strings.Builder
	for _, e := range gcpExportTwo() {
		b.WriteString(exportJSON(e, "") + "\n")
	}
	b.WriteString(exportJSON(map[string]any{"_time": "2024-08-12T03:10:20Z", "_msg": exportAttachStarted, "_stream": "{}"}, "") + "\n")
	return []byte(b.String())
}

// gcpSinkNoTime is sink JSON Lines whose second entry has no timestamp.
func gcpSinkNoTime() []byte {
	return []byte(exportJSON(gcpExportEntry("a1", "2024-08-12T03:10:10.208117Z", exportAttachStarted), "") + "\n" +
		exportJSON(gcpExportEntry("a2", "", exportAttachSucceeded), "") + "\n")
}

// journalByteMessage is `journalctl -o json` whose first MESSAGE is a byte
// array (journald writes one for a message that is not valid UTF-8) with
// invalid bytes at its end.
func journalByteMessage() []byte {
	msg := []byte(exportAttachStarted + "\xff\xfe")
	arr := make([]int, len(msg))
	for i, c := range msg {
		arr[i] = int(c)
	}
	rec := func(cursor, usec string, m any) string {
		return exportJSON(map[string]any{"__CURSOR": cursor, "__REALTIME_TIMESTAMP": usec, "_HOSTNAME": "m1",
			"SYSLOG_IDENTIFIER": "kube-controller-manager", "MESSAGE": m}, "") + "\n"
	}
	return []byte(rec("s=1", "1723432210208117", arr) + rec("s=2", "1723432214519387", exportAttachSucceeded))
}
