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
		fromStream, ok := streamLabels(obj, "_stream")
		if !ok {
			return
		}
		for i := range numLabels {
			if l := label(&r.Labels, i); *l == "" {
				*l = *label(&fromStream, i)
			}
		}
	},
}}

// streamLabels reads the label set `{k="v",…}` that is the string member
// key of obj as Loki labels. A record read from its bytes keeps the last
// one parsed (an export's records mostly repeat the previous _stream).
func streamLabels(obj object, key string) (Labels, bool) {
	o, ok := obj.(*rawObject)
	if !ok || o.c == nil {
		return parseStreamLabels(str(obj, key))
	}
	v, found, bad := o.raw(key)
	if bad || !found || v[0] != '"' || o.skimPath == key {
		return parseStreamLabels(str(obj, key))
	}
	c := &o.c.labelSet
	if c.raw == nil || string(c.raw) != string(v) {
		c.labels, c.ok = parseStreamLabels(o.str(key, v[1:len(v)-1]))
		c.raw = append(c.raw[:0], v...)
	}
	return c.labels, c.ok
}

// parseStreamLabels reads a label-set string as Loki labels.
func parseStreamLabels(s string) (Labels, bool) {
	labels, _, ok := parseLabelSet([]byte(s))
	if !ok {
		return Labels{}, false
	}
	var r Record
	setLokiLabels(&r, labels)
	return r.Labels, true
}
