package envelope

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The fixtures are the project's seed scenarios (testdata/incidents/
// seed-legacy and seed-1.28, KCM and kubelet) rendered into every shape of
// every envelope by the renderers below, gzip-compressed under
// testdata/<seed>/<component>.<envelope>.<shape>.<ext>.gz.
// TestFixturesUpToDate fails when a file differs from what the renderer
// makes now; KCMTRACE_UPDATE=1 rewrites them.

// seedFile is one plain seed log.
type seedFile struct {
	dir, role string // seed directory; "kcm" or "kubelet"
	zone      *time.Location
	strip     func(string) string // removes the plain file's wrapper
	labels    Labels
}

var (
	cst       = time.FixedZone("CST", 8*3600)
	kcmLabels = Labels{Component: "kube-controller-manager", Pod: "kube-controller-manager-master-1",
		Namespace: "kube-system", Container: "kube-controller-manager", Node: "master-1", Stream: "stderr"}
	kubeletLabels = Labels{Component: "kubelet", Node: "10.0.3.27", Host: "vm-3-27-centos", Unit: "kubelet.service"}
)

var seedFiles = []seedFile{
	{dir: "seed-legacy", role: "kcm", zone: cst, strip: func(s string) string { return s }, labels: kcmLabels},
	{dir: "seed-legacy", role: "kubelet", zone: time.UTC, strip: stripJournald, labels: kubeletLabels},
	{dir: "seed-1.28", role: "kcm", zone: time.UTC, strip: func(s string) string { return s }, labels: kcmLabels},
	{dir: "seed-1.28", role: "kubelet", zone: time.UTC, strip: stripCRI, labels: kubeletLabels},
}

// stripJournald removes "Aug 12 03:43:51 host kubelet[2783]: ".
func stripJournald(s string) string {
	_, rest, _ := strings.Cut(s, "]: ")
	return rest
}

// stripCRI removes "2024-08-12T03:43:48.640515000Z stderr F ".
func stripCRI(s string) string {
	f := strings.SplitN(s, " ", 4)
	return f[3]
}

// seedLine is one line of a seed with its klog header read.
type seedLine struct {
	plain string    // the klog line, wrapper removed
	t     time.Time // the header's time, year 2024, in the seed's zone
	level byte
	file  string
	line  int
	msg   string // the klog message after "] "
}

func readSeed(t testing.TB, sf seedFile) []seedLine {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "incidents", sf.dir, sf.role+".log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []seedLine
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		sl, err := seedLineOf(sf.strip(l), sf.zone)
		if err != nil {
			t.Fatalf("%s/%s: %v", sf.dir, sf.role, err)
		}
		out = append(out, sl)
	}
	return out
}

// seedLineOf reads the klog header of the line p ("I0812 11:10:00.612388
// 1 reconciler.go:304] msg"), dated in 2024 in zone.
func seedLineOf(p string, zone *time.Location) (seedLine, error) {
	hdr, msg, ok := strings.Cut(p, "] ")
	f := strings.Fields(hdr)
	if !ok || len(f) != 4 || len(f[0]) != 5 {
		return seedLine{}, fmt.Errorf("not a klog line: %q", p)
	}
	tm, err := time.ParseInLocation("2006 0102 15:04:05.000000", "2024 "+f[0][1:]+" "+f[1], zone)
	if err != nil {
		return seedLine{}, err
	}
	file, line, _ := strings.Cut(f[3], ":")
	n, _ := strconv.Atoi(line)
	return seedLine{plain: p, t: tm, level: f[0][0], file: file, line: n, msg: msg}, nil
}

// fixture is one shape's renderer and what decoding it must give.
type fixture struct {
	envelope, shape, ext string
	render               func(sf seedFile, lines []seedLine) []byte
	// split: the message is the klog message without its header (GKE
	// control plane); the header's level, file and line are fields.
	split func(sf seedFile) bool
	// trimmed: the tool trims trailing white space from each message.
	trimmed bool
	// labels is what the shape conveys of the seed's labels.
	labels func(sf seedFile) Labels
	// dups is how many duplicate records the renderer adds.
	dups int
}

func (f fixture) path(sf seedFile) string {
	return filepath.Join("testdata", sf.dir, fmt.Sprintf("%s.%s.%s.%s.gz", sf.role, f.envelope, f.shape, f.ext))
}

func isKCM(sf seedFile) bool { return sf.role == "kcm" }

func jsonText(v any, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// jsonLines writes one compact object per line.
func jsonLinesOf(objs []any) []byte {
	var b bytes.Buffer
	for _, o := range objs {
		b.Write(jsonText(o, ""))
	}
	return b.Bytes()
}

func reversed(lines []seedLine) []seedLine {
	out := make([]seedLine, len(lines))
	for i, l := range lines {
		out[len(lines)-1-i] = l
	}
	return out
}

const eksStream = "kube-controller-manager-1234567890abcdef01234567890abcde"

func gcpEntry(sf seedFile, l seedLine, i int) map[string]any {
	e := map[string]any{
		"insertId":         fmt.Sprintf("%s-%04d", sf.role, i),
		"timestamp":        l.t.UTC().Format(time.RFC3339Nano),
		"receiveTimestamp": l.t.UTC().Add(time.Second).Format(time.RFC3339Nano),
	}
	if isKCM(sf) {
		sev := map[byte]string{'I': "INFO", 'W': "WARNING", 'E': "ERROR", 'F': "CRITICAL"}[l.level]
		e["severity"] = sev
		e["sourceLocation"] = map[string]any{"file": l.file, "line": strconv.Itoa(l.line)}
		e["jsonPayload"] = map[string]any{"message": l.msg}
		e["logName"] = "projects/p/logs/container.googleapis.com%2Fcontroller-manager"
		e["resource"] = map[string]any{"type": "k8s_control_plane_component", "labels": map[string]any{
			"component_name": "controller-manager", "cluster_name": "c", "location": "l", "project_id": "p"}}
		return e
	}
	e["jsonPayload"] = map[string]any{"MESSAGE": l.plain, "SYSLOG_IDENTIFIER": "kubelet", "_HOSTNAME": sf.labels.Host,
		"_SYSTEMD_UNIT": "kubelet.service", "_PID": "2783"}
	e["logName"] = "projects/p/logs/kubelet"
	e["resource"] = map[string]any{"type": "k8s_node", "labels": map[string]any{
		"node_name": sf.labels.Node, "cluster_name": "c", "location": "l", "project_id": "p"}}
	return e
}

func cwEvent(sf seedFile, l seedLine, i int) map[string]any {
	stream := eksStream
	if !isKCM(sf) {
		stream = "kubelet-" + sf.labels.Node
	}
	ms := l.t.UnixMilli()
	return map[string]any{"logStreamName": stream, "timestamp": ms, "message": l.plain,
		"ingestionTime": ms + 900, "eventId": fmt.Sprintf("3%055d", i)}
}

func lokiStream(sf seedFile) map[string]string {
	if isKCM(sf) {
		return map[string]string{"container": sf.labels.Container, "namespace": sf.labels.Namespace,
			"pod": sf.labels.Pod, "node_name": sf.labels.Node, "stream": sf.labels.Stream}
	}
	return map[string]string{"job": "systemd-journal", "unit": sf.labels.Unit, "hostname": sf.labels.Host,
		"node_name": sf.labels.Node, "syslog_identifier": "kubelet"}
}

// lokiLabelsOf is what a Loki label set gives of the seed's labels (a
// pod's labels name no component); Filebeat's ECS fields give the same.
func lokiLabelsOf(sf seedFile) Labels {
	if isKCM(sf) {
		l := sf.labels
		l.Component = ""
		return l
	}
	return sf.labels
}

func labelSet(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s=%q", k, m[k])
	}
	b.WriteByte('}')
	return b.String()
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func none(seedFile) bool { return false }

var fixtures = []fixture{
	{envelope: "gcp", shape: "array", ext: "json", split: isKCM,
		labels: gcpLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for i, l := range lines {
				out = append(out, gcpEntry(sf, l, i))
			}
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 { // gcloud: newest first
				out[i], out[j] = out[j], out[i]
			}
			return jsonText(out, "  ")
		}},
	{envelope: "gcp", shape: "sink", ext: "jsonl", split: isKCM, dups: 1,
		labels: gcpLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for i, l := range lines {
				out = append(out, gcpEntry(sf, l, i))
			}
			out = append(out, gcpEntry(sf, lines[0], 0)) // sinks do not de-duplicate
			return jsonLinesOf(out)
		}},
	{envelope: "cloudwatch", shape: "events", ext: "json", split: none, dups: 1,
		labels: cloudwatchLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			// Two pages appended to one file, the second repeating the
			// first page's last event.
			half := len(lines) / 2
			var p1, p2 []any
			for i, l := range lines {
				if i < half {
					p1 = append(p1, cwEvent(sf, l, i))
				} else {
					p2 = append(p2, cwEvent(sf, l, i))
				}
			}
			p2 = append([]any{cwEvent(sf, lines[half-1], half-1)}, p2...)
			return append(jsonText(map[string]any{"events": p1, "searchedLogStreams": []any{}, "nextToken": "Bxkq6kVGFtq2y_MoigeqscPOdhXVbhiVtLoAmXb5jCrI"}, "    "),
				jsonText(map[string]any{"events": p2, "searchedLogStreams": []any{}}, "    ")...)
		}},
	{envelope: "cloudwatch", shape: "insights", ext: "json", split: none,
		labels: cloudwatchLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var rows []any
			for i, l := range reversed(lines) { // Insights sorts @timestamp desc by default
				ev := cwEvent(sf, l, i)
				rows = append(rows, []any{
					map[string]any{"field": "@timestamp", "value": l.t.UTC().Format("2006-01-02 15:04:05.000")},
					map[string]any{"field": "@message", "value": l.plain},
					map[string]any{"field": "@logStream", "value": ev["logStreamName"]},
					map[string]any{"field": "@ptr", "value": fmt.Sprintf("CmAKJwojMTIzNDU2Nzg5MDEyOi9hd3MvZWtzL2MvY2x1c3RlchAH%04d", i)},
				})
			}
			return jsonText(map[string]any{"results": rows, "statistics": map[string]any{"recordsMatched": len(rows)}, "status": "Complete"}, "    ")
		}},
	{envelope: "cloudwatch", shape: "tail-detailed", ext: "txt", split: none, trimmed: true,
		labels: cloudwatchLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			for i, l := range lines {
				ev := cwEvent(sf, l, i)
				ts := time.UnixMilli(ev["timestamp"].(int64)).UTC().Format("2006-01-02T15:04:05.000000-07:00")
				fmt.Fprintf(&b, "%s %s %s\n", ts, ev["logStreamName"], strings.TrimRight(l.plain, " \t"))
			}
			return b.Bytes()
		}},
	{envelope: "cloudwatch", shape: "tail-short", ext: "txt", split: none, trimmed: true,
		labels: func(seedFile) Labels { return Labels{} },
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			for _, l := range lines {
				fmt.Fprintf(&b, "%s %s\n", l.t.UTC().Format("2006-01-02T15:04:05"), strings.TrimRight(l.plain, " \t"))
			}
			return b.Bytes()
		}},
	{envelope: "azure", shape: "rest", ext: "json", split: none,
		labels: azureLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			cols, rows := azureRows(sf, lines, false)
			var colDefs []any
			for _, c := range cols {
				typ := "string"
				if c == "TimeGenerated" {
					typ = "datetime"
				}
				colDefs = append(colDefs, map[string]any{"name": c, "type": typ})
			}
			return jsonText(map[string]any{"tables": []any{map[string]any{"name": "PrimaryResult", "columns": colDefs, "rows": rows}}}, "    ")
		}},
	{envelope: "azure", shape: "az", ext: "json", split: none,
		labels: azureLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			cols, rows := azureRows(sf, lines, true)
			var out []any
			for _, r := range rows {
				o := map[string]any{"TableName": "PrimaryResult"}
				for i, c := range cols {
					o[c] = r.([]any)[i]
				}
				out = append(out, o)
			}
			return jsonText(out, "  ")
		}},
	{envelope: "loki", shape: "query-range", ext: "json", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var values []any
			for _, l := range reversed(lines) { // direction=backward
				values = append(values, []any{strconv.FormatInt(l.t.UnixNano(), 10), l.plain})
			}
			return jsonText(map[string]any{"status": "success", "data": map[string]any{"resultType": "streams",
				"result": []any{map[string]any{"stream": lokiStream(sf), "values": values}},
				"stats":  map[string]any{"summary": map[string]any{"totalEntriesReturned": len(values)}}}}, "")
		}},
	{envelope: "loki", shape: "logcli", ext: "txt", split: none, trimmed: true,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			ls := labelSet(lokiStream(sf))
			for _, l := range lines {
				fmt.Fprintf(&b, "%s %s %s\n", l.t.UTC().Format(time.RFC3339), ls, strings.TrimSpace(l.plain))
			}
			return b.Bytes()
		}},
	{envelope: "loki", shape: "logcli", ext: "jsonl", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for _, l := range lines {
				out = append(out, map[string]any{"labels": lokiStream(sf), "line": l.plain, "timestamp": l.t.UTC().Format(time.RFC3339Nano)})
			}
			return jsonLinesOf(out)
		}},
	{envelope: "loki", shape: "grafana", ext: "txt", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			fmt.Fprintf(&b, "Common labels: %s\n\n\n", jsonText(lokiStream(sf), "")[:len(jsonText(lokiStream(sf), ""))-1])
			for _, l := range reversed(lines) {
				fmt.Fprintf(&b, "%d\t%s\t%s\n", l.t.UnixMilli(), l.t.UTC().Format("2006-01-02T15:04:05.000Z"), l.plain)
			}
			return b.Bytes()
		}},
	{envelope: "loki", shape: "grafana", ext: "json", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for _, l := range reversed(lines) {
				out = append(out, map[string]any{"line": l.plain, "timestamp": strconv.FormatInt(l.t.UnixNano(), 10),
					"date": l.t.UTC().Format("2006-01-02T15:04:05.000Z"), "fields": lokiStream(sf)})
			}
			return jsonText(out, "  ")
		}},
	{envelope: "elasticsearch", shape: "search", ext: "json", split: none,
		labels: searchLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var hits []any
			for i, l := range lines {
				hits = append(hits, map[string]any{"_index": "logstash-2024.08.12", "_id": fmt.Sprintf("%s-%04d", sf.role, i),
					"_score": nil, "_source": fluentBitSource(sf, l), "sort": []any{l.t.UnixMilli()}})
			}
			return jsonText(map[string]any{"took": 3, "timed_out": false, "hits": map[string]any{
				"total": map[string]any{"value": len(hits), "relation": "eq"}, "max_score": nil, "hits": hits}}, "  ")
		}},
	{envelope: "elasticsearch", shape: "filebeat", ext: "ndjson", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for _, l := range lines {
				k := map[string]any{"node": map[string]any{"name": sf.labels.Node}}
				if isKCM(sf) {
					k["pod"] = map[string]any{"name": sf.labels.Pod}
					k["namespace"] = sf.labels.Namespace
					k["container"] = map[string]any{"name": sf.labels.Container}
				}
				o := map[string]any{"@timestamp": l.t.UTC().Format("2006-01-02T15:04:05.000000Z07:00"), "message": l.plain,
					"kubernetes": k, "host": map[string]any{"name": sf.labels.Host}}
				if isKCM(sf) {
					o["stream"] = sf.labels.Stream
				} else {
					o["systemd"] = map[string]any{"unit": sf.labels.Unit}
					o["syslog"] = map[string]any{"identifier": "kubelet"}
				}
				out = append(out, o)
			}
			return jsonLinesOf(out)
		}},
	{envelope: "elasticsearch", shape: "kibana", ext: "csv", split: none,
		labels: func(sf seedFile) Labels { return Labels{Pod: sf.labels.Pod, Node: sf.labels.Node} },
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			b.WriteString("\"@timestamp\",\"kubernetes.pod_name\",\"kubernetes.host\",message\n")
			for _, l := range lines {
				fmt.Fprintf(&b, "\"%s\",%s,%s,\"%s\"\n", l.t.UTC().Format("Jan 2, 2006 @ 15:04:05.000"), sf.labels.Pod, sf.labels.Node,
					strings.ReplaceAll(l.plain, `"`, `""`))
			}
			return b.Bytes()
		}},
	{envelope: "victorialogs", shape: "logsql", ext: "jsonl", split: none,
		labels: lokiLabelsOf,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			st := lokiStream(sf)
			for _, l := range lines {
				o := map[string]any{"_msg": l.plain, "_stream": strings.ReplaceAll(labelSet(st), ", ", ","),
					"_stream_id": "0000000000000000f524447b1b8c8810945509f47c5885b2", "_time": l.t.UTC().Format(time.RFC3339Nano)}
				for k, v := range st {
					o[k] = v
				}
				out = append(out, o)
			}
			return jsonLinesOf(out)
		}},
	{envelope: "journald-json", shape: "json", ext: "jsonl", split: none,
		labels: journaldLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var out []any
			for i, l := range lines {
				out = append(out, journalEntry(sf, l, i))
			}
			return jsonLinesOf(out)
		}},
	{envelope: "journald-export", shape: "export", ext: "txt", split: none,
		labels: journaldLabels,
		render: func(sf seedFile, lines []seedLine) []byte {
			var b bytes.Buffer
			for i, l := range lines {
				e := journalEntry(sf, l, i)
				for _, k := range []string{"__CURSOR", "__REALTIME_TIMESTAMP", "_HOSTNAME", "PRIORITY", "SYSLOG_IDENTIFIER", "_PID", "_SYSTEMD_UNIT", "MESSAGE"} {
					fmt.Fprintf(&b, "%s=%s\n", k, e[k])
				}
				b.WriteByte('\n')
			}
			return b.Bytes()
		}},
}

// gcpLabels: GKE names the control-plane component; node entries carry
// the node, the journal's host and unit.
func gcpLabels(sf seedFile) Labels {
	if isKCM(sf) {
		return Labels{Component: "controller-manager"}
	}
	return Labels{Component: "kubelet", Node: sf.labels.Node, Host: sf.labels.Host, Unit: sf.labels.Unit}
}

// cloudwatchLabels: only an EKS control-plane stream name says anything.
func cloudwatchLabels(sf seedFile) Labels {
	if isKCM(sf) {
		return Labels{Component: "kube-controller-manager"}
	}
	return Labels{}
}

func azureLabels(sf seedFile) Labels {
	if isKCM(sf) {
		return Labels{Component: "kube-controller-manager", Pod: sf.labels.Pod, Stream: sf.labels.Stream}
	}
	return Labels{Component: "kubelet", Node: sf.labels.Node}
}

// azureRows renders AKSControlPlane (REST) or AzureDiagnostics (az)
// columns for the KCM, the Syslog table for the kubelet.
func azureRows(sf seedFile, lines []seedLine, legacy bool) ([]string, []any) {
	var cols []string
	switch {
	case !isKCM(sf):
		cols = []string{"TimeGenerated", "Computer", "ProcessName", "SeverityLevel", "SyslogMessage"}
	case legacy:
		cols = []string{"TimeGenerated", "Category", "log_s", "pod_s", "stream_s"}
	default:
		cols = []string{"TimeGenerated", "Category", "Level", "Message", "PodName", "Stream"}
	}
	var rows []any
	for _, l := range lines {
		ts := l.t.UTC().Format("2006-01-02T15:04:05.000000Z")
		var row []any
		switch {
		case !isKCM(sf):
			row = []any{ts, sf.labels.Node, "kubelet", map[byte]string{'I': "info", 'W': "warning", 'E': "err"}[l.level], l.plain}
		case legacy:
			row = []any{ts, "kube-controller-manager", l.plain, sf.labels.Pod, sf.labels.Stream}
		default:
			row = []any{ts, "kube-controller-manager", map[byte]string{'I': "Info", 'W': "Warning", 'E': "Error"}[l.level], l.plain, sf.labels.Pod, sf.labels.Stream}
		}
		rows = append(rows, row)
	}
	return cols, rows
}

func fluentBitSource(sf seedFile, l seedLine) map[string]any {
	k := map[string]any{"host": sf.labels.Node}
	if isKCM(sf) {
		k["pod_name"], k["namespace_name"], k["container_name"] = sf.labels.Pod, sf.labels.Namespace, sf.labels.Container
		k["labels"] = map[string]any{"component": "kube-controller-manager", "tier": "control-plane"}
	} else {
		k["labels"] = map[string]any{"component": "kubelet"}
	}
	s := map[string]any{"@timestamp": l.t.UTC().Format(time.RFC3339Nano), "log": l.plain + "\n", "logtag": "F", "kubernetes": k}
	if isKCM(sf) {
		s["stream"] = sf.labels.Stream
	} else {
		s["systemd"] = map[string]any{"unit": sf.labels.Unit}
		s["hostname"] = sf.labels.Host
	}
	return s
}

// searchLabels: Fluent Bit's kubernetes filter gives the pod labels
// (component), the pod, namespace, container and host (the node).
func searchLabels(sf seedFile) Labels {
	return sf.labels
}

func journalEntry(sf seedFile, l seedLine, i int) map[string]any {
	ident, unit := "kubelet", sf.labels.Unit
	if isKCM(sf) {
		ident, unit = "kube-controller-manager", "kube-controller-manager.service"
	}
	us := l.t.UnixMicro()
	return map[string]any{
		"__CURSOR":             fmt.Sprintf("s=b3907940d2724a369498657fc5880cb0;i=%x;b=6f3c1ad2f8f14f0fa1b6a1b0c0ffee00;t=%x", i+1, us),
		"__REALTIME_TIMESTAMP": strconv.FormatInt(us, 10),
		"_HOSTNAME":            journalHost(sf),
		"PRIORITY":             map[byte]string{'I': "6", 'W': "4", 'E': "3", 'F': "2"}[l.level],
		"SYSLOG_IDENTIFIER":    ident,
		"_PID":                 "2783",
		"_SYSTEMD_UNIT":        unit,
		"MESSAGE":              l.plain,
	}
}

func journalHost(sf seedFile) string {
	if isKCM(sf) {
		return sf.labels.Node
	}
	return sf.labels.Host
}

func journaldLabels(sf seedFile) Labels {
	if isKCM(sf) {
		return Labels{Component: "kube-controller-manager", Host: sf.labels.Node, Unit: "kube-controller-manager.service"}
	}
	return Labels{Component: "kubelet", Host: sf.labels.Host, Unit: sf.labels.Unit}
}

// readFixture returns a fixture file's decompressed content.
func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

func TestFixturesUpToDate(t *testing.T) {
	update := os.Getenv("KCMTRACE_UPDATE") == "1"
	for _, sf := range seedFiles {
		lines := readSeed(t, sf)
		for _, f := range fixtures {
			path := f.path(sf)
			want := f.render(sf, lines)
			if update {
				var b bytes.Buffer
				zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
				zw.Write(want)
				zw.Close()
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got := readFixture(t, path); !bytes.Equal(got, want) {
				t.Errorf("%s is stale: rerun with KCMTRACE_UPDATE=1 and read the diff", path)
			}
		}
	}
}
