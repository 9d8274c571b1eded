package exportgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestCloudWatchEvents(t *testing.T) {
	in := "I0812 03:10:00.612388       1 reconciler.go:304] x \"y\"\nE0812 03:10:01.000001       1 a.go:1] z\n"
	var out bytes.Buffer
	if err := CloudWatchEvents(&out, strings.NewReader(in), 2024); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Timestamp int64
			Message   string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
	if len(doc.Events) != 2 || doc.Events[0].Message != lines[0] || doc.Events[1].Message != lines[1] || doc.Events[0].Timestamp != 1723432200612 {
		t.Fatalf("got %+v", doc.Events)
	}
	if err := CloudWatchEvents(&out, strings.NewReader("not klog\n"), 2024); err == nil {
		t.Fatal("no error for a line without a klog clock")
	}
}

func TestVictoriaLogs(t *testing.T) {
	in := "I0812 03:10:00.612388       1 reconciler.go:304] x \"y\"\n  continued\nE0812 03:10:01.000001       1 a.go:1] z\n"
	var out bytes.Buffer
	if err := VictoriaLogs(&out, strings.NewReader(in), VictoriaLogsConfig{Year: 2024, Pods: 2, Run: 2}); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Msg    string `json:"_msg"`
		Stream string `json:"_stream"`
		Time   string `json:"_time"`
		Pod    string `json:"pod"`
	}
	var got []rec
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var r rec
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	want := []rec{
		{`I0812 03:10:00.612388       1 reconciler.go:304] x "y"`, `{container="kube-controller-manager",namespace="kube-system",pod="kube-controller-manager-master-1"}`, "2024-08-12T03:10:00.612388Z", "kube-controller-manager-master-1"},
		{"  continued", `{container="kube-controller-manager",namespace="kube-system",pod="kube-controller-manager-master-1"}`, "2024-08-12T03:10:00.612388Z", "kube-controller-manager-master-1"},
		{"E0812 03:10:01.000001       1 a.go:1] z", `{container="kube-controller-manager",namespace="kube-system",pod="kube-controller-manager-master-2"}`, "2024-08-12T03:10:01.000001Z", "kube-controller-manager-master-2"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d:\n%s", len(got), len(want), out.String())
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := VictoriaLogs(&out, strings.NewReader("not klog\n"), VictoriaLogsConfig{Year: 2024}); err == nil {
		t.Fatal("no error for a first line without a klog clock")
	}
}
