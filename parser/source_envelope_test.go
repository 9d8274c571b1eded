package parser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestEnvelopeSeam plugs a toy JSON-lines envelope into the registry and
// checks that its records reach the payload parsers: a klog message keeps
// its header and takes its year and zone from the record's time.
func TestEnvelopeSeam(t *testing.T) {
	toy := &envelope{
		names: []string{"toy-jsonl"},
		sniff: func(head []byte) (string, string) {
			if bytes.HasPrefix(head, []byte(`{"toy":`)) {
				return "toy-jsonl", ""
			}
			return "", ""
		},
		decode: func(name string, r io.Reader, _ func([]byte) bool, yield func(*envRecord) bool) (envStats, error) {
			sc := bufio.NewScanner(r)
			n := 0
			for sc.Scan() {
				n++
				var d struct {
					Toy  string    `json:"toy"`
					Time time.Time `json:"time"`
					Host string    `json:"host"`
				}
				if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
					return envStats{Lines: n}, err
				}
				if !yield(&envRecord{Time: d.Time, Text: d.Toy, Host: d.Host, Line: n}) {
					break
				}
			}
			return envStats{Lines: n, Records: n}, sc.Err()
		},
	}
	saved := envelopes
	defer func() { envelopes = saved }()
	envelopes = nil
	registerEnvelope(toy)
	in := `{"toy":"I0812 03:10:00.000001       1 reconciler.go:1] attacherDetacher.AttachVolume started for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/d^vol-1\") from node \"n1\" ","time":"2021-08-12T11:10:00.000001+08:00","host":"h1"}
{"toy":"just prose","time":"2021-08-12T11:10:01+08:00","host":"h1"}
`
	res := ParseReader(strings.NewReader(in), "toy.json", Options{})
	if res.Input.Wrapper != "toy-jsonl" || res.Input.Lines != 2 || res.Input.Unaccounted() != 0 {
		t.Fatalf("input %+v", res.Input)
	}
	if len(res.Events) != 1 || res.Events[0].Kind != AttachStarted {
		t.Fatalf("events %+v", res.Events)
	}
	if got, want := res.Events[0].Time, time.Date(2021, 8, 12, 3, 10, 0, 1000, time.UTC); !got.Equal(StampOf(want)) {
		t.Errorf("time %v, want %v (zone %s from %s)", got, want, res.Input.Zone, res.Input.ZoneFrom)
	}
}
