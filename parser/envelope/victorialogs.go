package envelope

// victorialogsEnvelope reads VictoriaLogs LogsQL query output: JSON Lines
// with _time, _msg, _stream and every other field (the labels).
var victorialogsEnvelope = &Envelope{
	Name: "victorialogs",
	Doc:  "VictoriaLogs (/select/logsql/query JSON Lines)",
	shapes: []shape{{
		name: "jsonl",
		score: func(s *sample) int {
			return jsonScore(s, []string{`"_msg"`, `"_time"`}, []string{`"_stream"`, `"_stream_id"`})
		},
		decode: victorialogsDoc.decodeJSON,
	}},
}

var victorialogsDoc = &docSpec{fields: &fieldMap{
	time: []timeField{{path: "_time"}},
	msg:  []string{"_msg"},
	label: func() (m [numLabels][]string) {
		// Loki-style names first, then the bare (not _source) names of
		// the Elasticsearch table: VictoriaLogs flattens nested fields
		// into dotted names such as kubernetes.pod_name.
		for i, names := range lokiLabelMap {
			es := elasticsearchDoc.fields.label[i]
			m[i] = append(append([]string(nil), names...), es[len(es)/2:]...)
		}
		return m
	}(),
	fix: func(obj object, r *Record) {
		s := str(obj, "_stream")
		labels, _, ok := parseLabelSet([]byte(s))
		if !ok {
			return
		}
		var fromStream Record
		setLokiLabels(&fromStream, labels)
		for i := range numLabels {
			if l := label(&r.Labels, i); *l == "" {
				*l = *label(&fromStream.Labels, i)
			}
		}
	},
}}
