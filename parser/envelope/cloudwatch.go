package envelope

import (
	"bufio"
	"time"
)

// cloudwatchEnvelope reads Amazon CloudWatch Logs exports: the JSON of
// `aws logs filter-log-events` / `get-log-events` (events[], millisecond
// epochs, eventId, logStreamName), Logs Insights `get-query-results`
// (results[][]{field,value}, @timestamp without zone, in UTC), and the text
// of `aws logs tail` in its detailed and short formats.
var cloudwatchEnvelope = &Envelope{
	Name: "cloudwatch",
	Doc:  "Amazon CloudWatch Logs (aws logs filter-log-events / get-log-events / get-query-results JSON, aws logs tail text)",
	shapes: []shape{
		{
			name: "events",
			score: func(s *sample) int {
				return jsonScore(s, []string{`"events"`, `"timestamp"`, `"message"`}, []string{`"eventId"`, `"logStreamName"`, `"ingestionTime"`, `Token"`})
			},
			decode: cloudwatchEventsDoc.decodeJSON,
		},
		{
			name: "insights",
			score: func(s *sample) int {
				return jsonScore(s, []string{`"results"`, `"field"`, `"value"`, `"@message"`}, []string{`"@timestamp"`, `"@ptr"`, `"@logStream"`, `"status"`})
			},
			decode: cloudwatchInsightsDoc.decodeJSON,
		},
		{
			name:   "tail-detailed",
			score:  func(s *sample) int { return lineScore(s, tailDetailedFits) },
			decode: func(d *decoder, br *bufio.Reader) error { return decodeTail(d, br, true) },
		},
		{
			name:   "tail-short",
			score:  func(s *sample) int { return lineScore(s, tailShortFits) },
			decode: func(d *decoder, br *bufio.Reader) error { return decodeTail(d, br, false) },
		},
	},
}

var cloudwatchEventsDoc = &docSpec{
	members: []member{{path: []string{"events"}}},
	fields: &fieldMap{
		time: []timeField{{path: "timestamp", unit: time.Millisecond}},
		msg:  []string{"message"},
		id:   []string{"eventId"},
		fix:  func(obj object, r *Record) { r.Labels.Component = streamComponent(str(obj, "logStreamName")) },
	},
}

var cloudwatchInsightsDoc = &docSpec{
	members: []member{{path: []string{"results"}, item: itemFieldList}},
	fields: &fieldMap{
		time: []timeField{{path: "@timestamp", naive: TimeUTCByFormat, unit: time.Millisecond}},
		msg:  []string{"@message"},
		id:   []string{"@ptr"},
		fix:  func(obj object, r *Record) { r.Labels.Component = streamComponent(str(obj, "@logStream")) },
	},
}

// streamComponent is the component an EKS control-plane stream name
// carries: "kube-controller-manager-<32 hex>" → "kube-controller-manager";
// "" for other names.
func streamComponent(name string) string {
	if len(name) < 34 || name[len(name)-33] != '-' {
		return ""
	}
	for _, c := range name[len(name)-32:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return ""
		}
	}
	return name[:len(name)-33]
}

// tailDetailed splits an `aws logs tail` detailed line:
// "2024-08-12T03:10:00.612000+00:00 <stream> <message>".
func tailDetailed(l []byte) (t time.Time, stream, msg []byte, ok bool) {
	ts, rest, ok := cutSpace(l)
	if !ok || len(ts) != 32 || ts[19] != '.' || !isDigits(ts[20:26]) || (ts[26] != '+' && ts[26] != '-') {
		return t, nil, nil, false
	}
	stream, msg, _ = cutSpace(rest)
	if len(stream) == 0 || klogHeaderLike(stream) {
		return t, nil, nil, false
	}
	t, err := time.Parse("2006-01-02T15:04:05.000000-07:00", string(ts))
	return t, stream, msg, err == nil
}

func tailDetailedFits(l []byte) bool {
	_, _, _, ok := tailDetailed(l)
	return ok
}

// tailShort splits an `aws logs tail --format short` line:
// "2024-08-12T03:10:00 <message>", the time in UTC.
func tailShort(l []byte) (t time.Time, msg []byte, ok bool) {
	ts, msg, ok := cutSpace(l)
	if !ok || len(ts) != 19 || ts[10] != 'T' {
		return t, nil, false
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", string(ts), time.UTC)
	return t, msg, err == nil
}

func tailShortFits(l []byte) bool {
	_, _, ok := tailShort(l)
	return ok
}

// decodeTail reads `aws logs tail` output. A line that does not start with
// the format's time continues the previous record's message (tail prints a
// multi-line message as it is).
func decodeTail(d *decoder, br *bufio.Reader, detailed bool) error {
	return decodeTimedLines(d, br, "aws logs tail", func(l []byte) (Record, bool, bool) {
		if detailed {
			t, stream, msg, ok := tailDetailed(l)
			if !ok {
				return Record{}, false, false
			}
			r := Record{Time: t, TimeSource: TimeZoned, Precision: time.Millisecond, Msg: string(msg)}
			r.Labels.Component = streamComponent(string(stream))
			return r, true, false
		}
		t, msg, ok := tailShort(l)
		return Record{Time: t, TimeSource: TimeUTCByFormat, Precision: time.Second, Msg: string(msg)}, ok, false
	})
}
