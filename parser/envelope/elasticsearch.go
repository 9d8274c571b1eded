package envelope

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// elasticsearchEnvelope reads Elasticsearch / OpenSearch exports: _search
// responses (hits.hits[]._source), NDJSON dumps of _source as Fluent Bit,
// Fluentd and Filebeat write them (log or message, @timestamp or time,
// kubernetes.* labels), and Kibana / OpenSearch Dashboards CSV exports.
var elasticsearchEnvelope = &Envelope{
	Name: "elasticsearch",
	Doc:  "Elasticsearch / OpenSearch (_search responses, _source NDJSON from Fluent Bit, Fluentd, Filebeat; Kibana CSV)",
	shapes: []shape{
		{
			name: "json",
			score: func(s *sample) int {
				if s.has(`"hits"`, `"_source"`) {
					return jsonScore(s, nil, []string{`"_id"`, `"_index"`, `"@timestamp"`, `"kubernetes"`})
				}
				if !s.has(`"kubernetes"`) && !s.has(`"@timestamp"`) {
					return 0 // a docker json-file line, or klog JSON: not an export
				}
				if !s.has(`"log"`) && !s.has(`"message"`) {
					return 0
				}
				return jsonScore(s, nil, []string{`"kubernetes"`, `"@timestamp"`, `"stream"`})
			},
			decode: elasticsearchDoc.decodeJSON,
		},
		{
			name:   "csv",
			score:  kibanaCSVScore,
			decode: decodeKibanaCSV,
		},
	},
}

// esPaths puts each name under _source (a _search hit) and bare (a
// _source dump, a CSV column).
func esPaths(names ...string) []string {
	var out []string
	for _, root := range []string{"_source.", ""} {
		for _, n := range names {
			out = append(out, root+n)
		}
	}
	return out
}

var elasticsearchDoc = &docSpec{
	members: []member{{path: []string{"hits", "hits"}}},
	fields: &fieldMap{
		time: []timeField{{path: "_source.@timestamp"}, {path: "_source.time"}, {path: "_source.timestamp"},
			{path: "@timestamp"}, {path: "time"}, {path: "timestamp"}},
		msg:   esPaths("log", "message", "MESSAGE"),
		level: esPaths("level", "log.level", "PRIORITY"),
		id:    []string{"_id"},
		label: [numLabels][]string{
			lComponent: esPaths("kubernetes.labels.component", "SYSLOG_IDENTIFIER", "syslog.identifier"),
			lPod:       esPaths("kubernetes.pod_name", "kubernetes.pod.name"),
			lNamespace: esPaths("kubernetes.namespace_name", "kubernetes.namespace"),
			lContainer: esPaths("kubernetes.container_name", "kubernetes.container.name"),
			lNode:      esPaths("kubernetes.host", "kubernetes.node.name"),
			lHost:      esPaths("host.hostname", "host.name", "hostname", "_HOSTNAME"),
			lStream:    esPaths("stream", "log.iostream"),
			lUnit:      esPaths("systemd.unit", "_SYSTEMD_UNIT"),
		},
	},
}

// kibanaTimeColumns and kibanaMessageColumns are the CSV header names
// that hold the time and the message.
var (
	kibanaTimeColumns    = []string{"@timestamp", "timestamp", "time", "_source.@timestamp"}
	kibanaMessageColumns = []string{"message", "log", "_source.message", "_source.log"}
)

func kibanaCSVScore(s *sample) int {
	if len(s.lines) < 2 {
		return 0
	}
	r := csv.NewReader(bytes.NewReader(s.lines[0]))
	head, err := r.Read()
	if err != nil {
		return 0
	}
	hasTime, hasMsg := false, false
	for _, h := range head {
		h = strings.TrimSpace(h)
		for _, c := range kibanaTimeColumns {
			hasTime = hasTime || h == c
		}
		for _, c := range kibanaMessageColumns {
			hasMsg = hasMsg || h == c
		}
	}
	if !hasTime || !hasMsg {
		return 0
	}
	return 85
}

// decodeKibanaCSV reads a Discover CSV export: a header row, then one row
// per document (quoted cells may span lines). Cells are looked up by
// column name with the same field table as the JSON forms.
func decodeKibanaCSV(d *decoder, br *bufio.Reader) error {
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil
		}
		d.problem(1, "CSV header not readable: %v", err)
		return nil
	}
	cols := make([]string, len(head))
	for i, h := range head {
		cols[i] = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	}
	d.st.Lines = 1
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				d.problem(pe.StartLine, "CSV row not readable: %v", pe.Err)
				continue
			}
			return err
		}
		end, _ := cr.FieldPos(len(row) - 1)
		d.st.Lines = max(d.st.Lines, end)
		obj := make(map[string]any, len(row))
		for i, c := range row {
			if i < len(cols) {
				obj[cols[i]] = c
			}
		}
		r, ok := elasticsearchDoc.fields.record(d, mapObject(obj), line)
		if !ok {
			continue
		}
		if err := d.emit(r); err != nil {
			return err
		}
	}
}
