package envelope

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// decodeAll decodes b as envelope name and returns the records.
func decodeAll(t testing.TB, name string, b []byte) ([]Record, Stats) {
	t.Helper()
	var recs []Record
	st, err := Decode(name, bytes.NewReader(b), func(r Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("Decode(%s): %v", name, err)
	}
	return recs, st
}

// klogStamp is a time as a klog header writes it, cut to prec.
func klogStamp(t time.Time, prec time.Duration) string {
	return t.Truncate(prec).Format("0102 15:04:05.000000")
}

// TestEnvelopesMatchPlain decodes every fixture (chosen by Detect, as
// auto-detection would) and checks that its records, sorted by time, are
// the plain seed file's lines with their klog times — for every envelope
// and shape, KCM and kubelet, both eras.
func TestEnvelopesMatchPlain(t *testing.T) {
	for _, sf := range seedFiles {
		lines := readSeed(t, sf)
		for _, f := range fixtures {
			t.Run(strings.TrimSuffix(f.path(sf), ".gz"), func(t *testing.T) {
				b := readFixture(t, f.path(sf))
				name, score := Detect(b[:min(len(b), SampleSize)])
				if name != f.envelope {
					t.Fatalf("Detect = %q (%d), want %q; scores %v", name, score, f.envelope, Scores(b[:min(len(b), SampleSize)]))
				}
				recs, st := decodeAll(t, name, b)
				if st.ProblemCount != 0 {
					t.Errorf("problems: %v", st.Problems)
				}
				if st.Records != len(lines) || len(recs) != len(lines) || st.Duplicates != f.dups || st.NoTime != 0 {
					t.Fatalf("records %d (yielded %d), duplicates %d, no time %d; want %d records, %d duplicates",
						st.Records, len(recs), st.Duplicates, st.NoTime, len(lines), f.dups)
				}
				// Input order is not trusted: compare sorted by time (cut to
				// the envelope's precision), then message.
				prec := recs[0].Precision
				type want struct {
					seedLine
					msg string
				}
				wants := make([]want, len(lines))
				for i, l := range lines {
					msg := l.plain
					if f.split(sf) {
						msg = l.msg
					}
					if f.trimmed {
						msg = strings.TrimRight(msg, " \t")
					}
					wants[i] = want{l, msg}
				}
				sort.SliceStable(wants, func(i, j int) bool {
					a, b := wants[i].t.Truncate(prec), wants[j].t.Truncate(prec)
					return a.Before(b) || a.Equal(b) && wants[i].msg < wants[j].msg
				})
				sort.SliceStable(recs, func(i, j int) bool {
					a, b := recs[i].Time.Truncate(prec), recs[j].Time.Truncate(prec)
					return a.Before(b) || a.Equal(b) && recs[i].Msg < recs[j].Msg
				})
				wantLabels := f.labels(sf)
				bad := 0
				for i, w := range wants {
					if bad > 3 {
						t.Fatal("more differences not shown")
					}
					r, l, msg := recs[i], w.seedLine, w.msg
					if f.split(sf) && (r.Level != l.level || r.File != l.file || r.Line != l.line) {
						t.Errorf("record %d: header %c %s:%d, want %c %s:%d", i, r.Level, r.File, r.Line, l.level, l.file, l.line)
						bad++
					}
					if r.Msg != msg {
						t.Errorf("record %d (line %d): message\n got %q\nwant %q", i, r.Pos, r.Msg, msg)
						bad++
					}
					if r.Precision <= 0 {
						t.Errorf("record %d: precision %v", i, r.Precision)
					}
					got := r.Time
					if r.TimeSource == TimeZoned || r.TimeSource == TimeUTCByFormat {
						got = got.In(sf.zone)
					} else if r.TimeSource == TimeNoZone {
						// The fixtures write no-zone cells in UTC.
						got = time.Date(got.Year(), got.Month(), got.Day(), got.Hour(), got.Minute(), got.Second(), got.Nanosecond(), time.UTC).In(sf.zone)
					}
					if g, w := klogStamp(got, r.Precision), klogStamp(l.t, r.Precision); g != w || got.Year() != 2024 {
						t.Errorf("record %d: time %s (%s, %v), want %s", i, got, r.TimeSource, r.Precision, w)
						bad++
					}
					if r.Labels != wantLabels {
						t.Errorf("record %d: labels %+v, want %+v", i, r.Labels, wantLabels)
						bad++
					}
					if r.Pos < 1 || r.Pos > st.Lines {
						t.Errorf("record %d: position %d outside 1..%d", i, r.Pos, st.Lines)
					}
				}
			})
		}
	}
}

// TestPositions checks that Pos is the line a record starts on, in a
// document and in JSON Lines.
func TestPositions(t *testing.T) {
	for _, tc := range []struct {
		name, envelope, in string
		want               []int
	}{
		{name: "pretty array", envelope: "gcp", in: "[\n  {\n    \"insertId\": \"a\",\n    \"textPayload\": \"x\",\n    \"timestamp\": \"2024-08-12T03:10:00Z\"\n  },\n  {\n    \"insertId\": \"b\",\n    \"textPayload\": \"y\",\n    \"timestamp\": \"2024-08-12T03:10:01Z\"\n  }\n]\n", want: []int{2, 7}},
		{name: "json lines", envelope: "victorialogs", in: "{\"_msg\":\"a\",\"_time\":\"2024-08-12T03:10:00Z\"}\n\n{\"_msg\":\"b\",\"_time\":\"2024-08-12T03:10:00Z\"}\n", want: []int{1, 3}},
		{name: "loki values", envelope: "loki", in: "{\"data\":{\"result\":[{\"stream\":{\"a\":\"b\"},\n\"values\":[\n[\"1723432200000000000\",\"x\"],\n[\"1723432201000000000\",\"y\"]]}]}}", want: []int{3, 4}},
		{name: "values before stream", envelope: "loki", in: "{\"data\":{\"result\":[{\"values\":[\n[\"1723432200000000000\",\"x\"]],\n\"stream\":{\"pod\":\"p\"}}]}}", want: []int{2}},
		{name: "export", envelope: "journald-export", in: "__REALTIME_TIMESTAMP=1723434231140500\nMESSAGE=a\n\n__REALTIME_TIMESTAMP=1723434231140501\nMESSAGE=b\n", want: []int{1, 4}},
		{name: "tail continuation", envelope: "cloudwatch", in: "2024-08-12T03:10:00.612000+00:00 s I0812 11:10:00.612388 1 a.go:1] x\n  more\n2024-08-12T03:10:01.612000+00:00 s y\n", want: []int{1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, st := decodeAll(t, tc.envelope, []byte(tc.in))
			var got []int
			for _, r := range recs {
				got = append(got, r.Pos)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || st.ProblemCount != 0 {
				t.Errorf("positions %v, want %v; problems %v", got, tc.want, st.Problems)
			}
		})
	}
}

// TestBadInput: each kind of damage is a problem line at the right line,
// and the rest of the input is still read; a document cut off says so
// (Stats.Cut: the input is then read in part).
func TestBadInput(t *testing.T) {
	ev := func(id, ms, msg string) string {
		return `{"logStreamName":"kube-controller-manager-1234567890abcdef01234567890abcde","timestamp":` + ms + `,"message":"` + msg + `","eventId":"` + id + `"}`
	}
	for _, tc := range []struct {
		name, envelope, in string
		records, noTime    int
		problems           []string // substrings of the problems, in order
		cut                bool
	}{
		{name: "truncated document", envelope: "cloudwatch",
			in:      "{\n\"events\": [\n" + ev("1", "1723432200612", "a") + ",\n" + ev("2", "1723432200613", "b") + ",\n{\"logStreamName\": \"x\", \"timest",
			records: 2, problems: []string{"line 5: JSON document cut off inside the record that starts on line 5"}, cut: true},
		{name: "document cut between records", envelope: "cloudwatch",
			in:      "{\n\"events\": [\n" + ev("1", "1723432200612", "a") + ",\n",
			records: 1, problems: []string{"line 3: JSON document cut off after line 3, before its end"}, cut: true},
		{name: "array cut mid-record", envelope: "gcp",
			in:      "[\n  {\"insertId\": \"a\", \"textPayload\": \"x\", \"timestamp\": \"2024-08-12T03:10:00Z\"},\n  {\"insertId\": \"b\",\n   \"textPayload\": \"y\"",
			records: 1, problems: []string{"line 4: JSON document cut off inside the record that starts on line 3"}, cut: true},
		{name: "record without time", envelope: "victorialogs",
			in:      "{\"_msg\":\"a\",\"_time\":\"2024-08-12T03:10:00Z\"}\n{\"_msg\":\"b\"}\n{\"_msg\":\"c\",\"_time\":\"yesterday\"}\n",
			records: 3, noTime: 2, problems: []string{"line 2: record without a usable time", `line 3: _time "yesterday" is not a time`, "line 3: record without a usable time"}},
		{name: "byte-array MESSAGE with invalid UTF-8", envelope: "journald-json",
			in:      "{\"__REALTIME_TIMESTAMP\":\"1723434240000003\",\"MESSAGE\":[73,48,56,49,50,32,255,254]}\n{\"__REALTIME_TIMESTAMP\":\"1723434240000004\",\"MESSAGE\":\"ok\"}\n",
			records: 2, problems: []string{"line 1: message is not valid UTF-8"}},
		{name: "mixed envelopes: text between JSON lines", envelope: "victorialogs",
			in:      "{\"_msg\":\"a\",\"_time\":\"2024-08-12T03:10:00Z\"}\nI0812 11:10:00.612388 1 a.go:1] raw klog\n{\"_msg\":\"b\",\"_time\":\"2024-08-12T03:10:01Z\"}\n",
			records: 2, problems: []string{"line 2: not a JSON object line"}},
		{name: "mixed envelopes: text after a document, then another", envelope: "cloudwatch",
			in:      "{\n  \"events\": [\n    " + ev("1", "1723432200612", "a") + "\n  ]\n}\nsome text\nmore text\n{\n  \"events\": [\n    " + ev("2", "1723432200613", "b") + "\n  ]\n}\n",
			records: 2, problems: []string{"line 6: invalid JSON", "line 7: not JSON; skipped"}},
		{name: "mixed envelopes: one-line documents and text", envelope: "cloudwatch",
			in:      "{\"events\": [" + ev("1", "1723432200612", "a") + "]}\nsome text\n{\"events\": [" + ev("2", "1723432200613", "b") + "]}\n",
			records: 2, problems: []string{"line 2: not a JSON object line"}},
		{name: "invalid JSON line", envelope: "journald-json",
			in:      "{\"__REALTIME_TIMESTAMP\":\"1723434240000003\",\"MESSAGE\":\"a\"\n{\"__REALTIME_TIMESTAMP\":\"1723434240000004\",\"MESSAGE\":\"ok\"}\n{\"__REALTIME_TIMESTAMP\":\"1723434240000005\",\"MESSAGE\":\"ok2\"}\n",
			records: 2, problems: []string{"line 1: invalid JSON line"}},
		{name: "record without a message", envelope: "gcp",
			in:      "[{\"insertId\":\"a\",\"timestamp\":\"2024-08-12T03:10:00Z\",\"protoPayload\":{}},{\"insertId\":\"b\",\"textPayload\":\"x\",\"timestamp\":\"2024-08-12T03:10:00Z\"}]",
			records: 1, problems: []string{"line 1: record without a message"}},
		{name: "Log Analytics row of the wrong width", envelope: "azure",
			in:      `{"tables":[{"name":"PrimaryResult","columns":[{"name":"TimeGenerated"},{"name":"Message"}],"rows":[["2024-08-12T03:10:00Z"],["2024-08-12T03:10:00Z","x"]]}]}`,
			records: 1, problems: []string{"line 1: row has 1 values for 2 columns"}},
		{name: "export cut inside a binary field", envelope: "journald-export",
			in:      "__REALTIME_TIMESTAMP=1723434231140500\nMESSAGE=a\n\n__REALTIME_TIMESTAMP=1723434231140501\nMESSAGE\n\x10\x00\x00\x00\x00\x00\x00\x00abc",
			records: 1, problems: []string{"line 5: journal export cut off inside field MESSAGE", "line 4: record without a message"}, cut: true},
		{name: "duplicates by id", envelope: "cloudwatch",
			in:      "{\"events\": [" + ev("1", "1723432200612", "a") + "," + ev("1", "1723432200612", "a") + "," + ev("2", "1723432200612", "a") + "]}",
			records: 2},
		{name: "aws logs tail with a foreign first line", envelope: "cloudwatch",
			in:      "hello\n2024-08-12T03:10:00.612000+00:00 s I0812 11:10:00.612388 1 a.go:1] x\n2024-08-12T03:10:01.612000+00:00 s y\n",
			records: 2, problems: []string{"line 1: no aws logs tail record starts here"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, st := decodeAll(t, tc.envelope, []byte(tc.in))
			if st.Records != tc.records || len(recs) != tc.records || st.NoTime != tc.noTime || st.Cut != tc.cut {
				t.Errorf("records %d (yielded %d), no time %d, cut %v; want %d, %d, %v", st.Records, len(recs), st.NoTime, st.Cut, tc.records, tc.noTime, tc.cut)
			}
			var got []string
			for _, p := range st.Problems {
				got = append(got, p.String())
			}
			if len(got) != len(tc.problems) {
				t.Fatalf("problems %q, want %q", got, tc.problems)
			}
			for i, p := range tc.problems {
				if !strings.Contains(got[i], p) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], p)
				}
			}
		})
	}
}

// TestKeySets: the sets by window keep every key once in its window,
// whatever order the windows come in (a key is found in the window it was
// added in, a window again after others), and the same key in another
// window is another record's.
func TestKeySets(t *testing.T) {
	var ks keySets
	wins := []int64{5, 5, 6, 5, 9, 6, -3, 0, 5}
	for round := range 2 {
		for i, w := range wins {
			for k := uint64(0); k < 300; k++ {
				new := ks.add(k*7919+uint64(w)<<40, w)
				if want := round == 0 && !slices.Contains(wins[:i], w); new != want {
					t.Fatalf("round %d, window %d (#%d): add(%d) = %v", round, w, i, k, new)
				}
			}
		}
	}
	if !ks.add(7919, 7) || ks.add(7919, 7) {
		t.Error("a key seen in another window is new in this one, once")
	}
}

// TestIDSet: the key set keeps every key once, across growth and for 0.
func TestIDSet(t *testing.T) {
	var s idSet
	for round := range 2 {
		for k := uint64(0); k < 5000; k++ {
			if got := s.add(k * 7919); got != (round == 0) {
				t.Fatalf("round %d: add(%d) = %v", round, k*7919, got)
			}
		}
	}
}
