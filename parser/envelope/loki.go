package envelope

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// lokiEnvelope reads Grafana Loki exports: the query_range JSON (streams,
// nanosecond epochs, newest first by default, extra value elements
// tolerated), logcli's default text ("RFC3339 {labels} line") and -o jsonl,
// and Grafana Explore's TXT and JSON downloads.
var lokiEnvelope = &Envelope{
	Name: "loki",
	Doc:  "Grafana Loki (query_range JSON, logcli default and jsonl output, Grafana Explore TXT/JSON downloads)",
	shapes: []shape{
		{
			name: "json",
			score: func(s *sample) int {
				switch {
				case s.has(`"resultType"`), s.has(`"result"`, `"stream"`, `"values"`):
					// (a document whose "resultType" follows its result
					// and was cut before it still has the streams)
					return jsonScore(s, []string{`"values"`}, []string{`"streams"`, `"stream"`, `"status"`, `"result"`})
				case s.has(`"fields"`):
					return jsonScore(s, []string{`"line"`, `"timestamp"`}, []string{`"fields"`, `"date"`, `"labels"`, `"id"`})
				}
				return jsonScore(s, []string{`"line"`, `"timestamp"`, `"labels"`}, nil)
			},
			decode: lokiDoc.decodeJSON,
		},
		{
			name:   "logcli",
			score:  func(s *sample) int { return lineScore(s, logcliFits) },
			decode: decodeLogcli,
		},
		{
			name:   "grafana-txt",
			score:  grafanaTxtScore,
			decode: decodeGrafanaTxt,
		},
	},
}

// lokiLabels finds a label under a stream ("stream"), logcli jsonl
// ("labels") or Grafana ("fields") object, by its usual names.
func lokiLabels(names ...string) []string {
	var out []string
	for _, root := range []string{"stream", "labels", "fields"} {
		for _, n := range names {
			out = append(out, root+"."+n)
		}
	}
	return out
}

// lokiLabelMap is the label table Loki, VictoriaLogs and logcli's text
// share: Promtail/Alloy names first, then journal-scrape names.
var lokiLabelMap = [numLabels][]string{
	lComponent: {"component", "k8s_component", "syslog_identifier"},
	lPod:       {"pod", "pod_name", "k8s_pod_name"},
	lNamespace: {"namespace", "namespace_name", "k8s_namespace_name"},
	lContainer: {"container", "container_name", "k8s_container_name"},
	lNode:      {"node_name", "node", "nodename", "k8s_node_name"},
	lHost:      {"hostname", "host"},
	lStream:    {"stream"},
	lUnit:      {"unit", "systemd_unit", "_systemd_unit"},
}

var lokiDoc = &docSpec{
	members: []member{{path: []string{"data", "result"}, item: itemLokiValue, group: &group{header: "stream", items: "values"}}},
	fields: &fieldMap{
		time: []timeField{{path: "timestamp"}, {path: "date"}},
		msg:  []string{"line"},
		id:   []string{"id"},
		label: func() (m [numLabels][]string) {
			for i, names := range lokiLabelMap {
				m[i] = lokiLabels(names...)
			}
			return m
		}(),
	},
}

// setLokiLabels fills r's labels from a label set.
func setLokiLabels(r *Record, labels map[string]string) {
	for i, names := range lokiLabelMap {
		for _, n := range names {
			if v := labels[n]; v != "" {
				*label(&r.Labels, i) = v
				break
			}
		}
	}
}

// parseLabelSet reads a Prometheus-style label set `{a="x", b="y"}` (the
// values Go-quoted) and returns it with the length it took; ok is false
// when b does not start with one.
func parseLabelSet(b []byte) (labels map[string]string, n int, ok bool) {
	if len(b) < 2 || b[0] != '{' {
		return nil, 0, false
	}
	labels = map[string]string{}
	i := 1
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == ',') {
			i++
		}
		if i < len(b) && b[i] == '}' {
			return labels, i + 1, true
		}
		eq := bytes.IndexByte(b[i:], '=')
		if eq <= 0 || i+eq+1 >= len(b) || b[i+eq+1] != '"' {
			return nil, 0, false
		}
		name := strings.TrimSpace(string(b[i : i+eq]))
		j := i + eq + 2
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			return nil, 0, false
		}
		v, err := strconv.Unquote(string(b[i+eq+1 : j+1]))
		if err != nil {
			return nil, 0, false
		}
		labels[name] = v
		i = j + 1
	}
}

// logcliLine splits a logcli default line "<RFC3339> {labels} <line>"
// (the labels may be padded with spaces).
func logcliLine(l []byte) (t time.Time, prec time.Duration, labels map[string]string, msg []byte, ok bool) {
	ts, rest, ok := cutSpace(l)
	if !ok || len(ts) < 20 || ts[10] != 'T' {
		return t, 0, nil, nil, false
	}
	t, src, prec, ok := parseTime(string(ts), 0, TimeNoZone)
	if !ok || src != TimeZoned {
		return t, 0, nil, nil, false
	}
	labels, n, ok := parseLabelSet(rest)
	if !ok {
		// logcli leaves the labels out when --include-label / common
		// labels remove them all.
		return t, prec, nil, rest, true
	}
	msg = bytes.TrimLeft(rest[n:], " ")
	return t, prec, labels, msg, true
}

// logcliFits is the scoring test: with labels only, so that kubectl logs
// --timestamps output ("<RFC3339> <line>") does not score as logcli.
func logcliFits(l []byte) bool {
	_, _, labels, _, ok := logcliLine(l)
	return ok && labels != nil
}

// decodeLogcli reads logcli's default output; a line without the time
// and labels continues the previous record.
func decodeLogcli(d *decoder, br *bufio.Reader) error {
	return decodeTimedLines(d, br, "logcli", func(l []byte) (Record, bool, bool) {
		t, prec, labels, msg, ok := logcliLine(l)
		if !ok {
			return Record{}, false, false
		}
		r := Record{Time: t, TimeSource: TimeZoned, Precision: prec, Msg: string(msg)}
		setLokiLabels(&r, labels)
		return r, true, false
	})
}

// decodeTimedLines reads a text form in which each record starts with a
// line split reports ok for; a line split calls meta is a header line to
// skip, and other lines continue the previous record's message.
func decodeTimedLines(d *decoder, br *bufio.Reader, what string, split func([]byte) (r Record, ok, meta bool)) error {
	lr := newLineReader(d, br, 1)
	var cur *Record
	flush := func() error {
		if cur == nil {
			return nil
		}
		r := *cur
		cur = nil
		return d.emit(r)
	}
	for {
		l, ok := lr.next()
		if !ok {
			if err := flush(); err != nil {
				return err
			}
			return lr.err
		}
		r, ok, meta := split(l)
		if meta {
			continue
		}
		if !ok {
			if cur != nil {
				cur.Msg += "\n" + string(l)
			} else if len(bytes.TrimSpace(l)) > 0 {
				d.problem(lr.n, "no %s record starts here: %q", what, clip(string(l)))
			}
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		r.Pos = lr.n
		cur = &r
	}
}

// grafanaTxtRow splits a Grafana Explore TXT row: "<epoch ms>\t<ISO>\t<line>"
// (current) or "YYYY-MM-DD HH:mm:ss.SSS\t<line>" (older, browser zone).
func grafanaTxtRow(l []byte) (Record, bool) {
	a, rest, ok := bytes.Cut(l, []byte("\t"))
	if !ok {
		return Record{}, false
	}
	if len(a) == 13 && isDigits(a) {
		iso, msg, ok := bytes.Cut(rest, []byte("\t"))
		if !ok {
			return Record{}, false
		}
		t, src, prec, ok := parseTime(string(iso), 0, TimeNoZone)
		if !ok {
			t, prec, _ = parseEpoch(string(a), time.Millisecond)
			src = TimeZoned
		}
		return Record{Time: t, TimeSource: src, Precision: prec, Msg: string(msg)}, true
	}
	if len(a) == 23 && a[10] == ' ' {
		t, src, prec, ok := parseTime(string(a), 0, TimeNoZone)
		if ok {
			return Record{Time: t, TimeSource: src, Precision: prec, Msg: string(rest)}, true
		}
	}
	return Record{}, false
}

func grafanaTxtScore(s *sample) int {
	f := lineScore(s, func(l []byte) bool { _, ok := grafanaTxtRow(l); return ok })
	if f > 0 && len(s.lines) > 0 && bytes.HasPrefix(s.lines[0], []byte("Common labels: ")) {
		f = 95
	}
	return f
}

// decodeGrafanaTxt reads a Grafana Explore TXT download: meta lines
// ("Common labels: {json}", "Line limit: …") and blank lines before the
// first row, then rows.
func decodeGrafanaTxt(d *decoder, br *bufio.Reader) error {
	var common map[string]string
	rows := false
	return decodeTimedLines(d, br, "Grafana TXT", func(l []byte) (Record, bool, bool) {
		if r, ok := grafanaTxtRow(l); ok {
			rows = true
			setLokiLabels(&r, common)
			return r, true, false
		}
		if rows {
			return Record{}, false, false
		}
		if rest, ok := bytes.CutPrefix(l, []byte("Common labels: ")); ok {
			var m map[string]any
			if json.Unmarshal(rest, &m) == nil {
				common = map[string]string{}
				for k, v := range m {
					if s, ok := text(v); ok {
						common[k] = s
					}
				}
			}
		}
		return Record{}, false, len(bytes.TrimSpace(l)) == 0 || bytes.Contains(l, []byte(": "))
	})
}
