package parser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEventExporterMatchesDescribe: the seed's describe Events rendered
// as kubernetes-event-exporter JSON lines (its own times and
// involvedObject) give the events of the describe table — kind, volume,
// pod, node, reason, count — dated by the records' lastTimestamp.
func TestEventExporterMatchesDescribe(t *testing.T) {
	path := filepath.Join("..", "testdata", "incidents", "seed-2021", "describe.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := parseFile(t, path, Options{})
	snapshot := time.Date(2021, 1, 13, 11, 9, 0, 0, time.UTC)
	var b strings.Builder
	var times []time.Time
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		for _, r := range parseDescribeRows([]byte(l)) {
			n++
			last := snapshot.Add(-r.age)
			times = append(times, last)
			comp, host := fromNode(r.row.From)
			if comp == "kubelet" && host == "" {
				host = "172.28.1.72"
			}
			count := max(r.row.Count, 1)
			obj := map[string]any{
				"metadata":       map[string]any{"name": fmt.Sprintf("redis-master-0.%x", n), "namespace": "db", "uid": fmt.Sprintf("uid-%d", n)},
				"reason":         r.row.Reason,
				"message":        r.row.Message,
				"source":         map[string]any{"component": comp, "host": host},
				"firstTimestamp": last.Add(-r.span).Format(time.RFC3339),
				"lastTimestamp":  last.Format(time.RFC3339),
				"count":          count,
				"type":           r.row.Type,
				"involvedObject": map[string]any{"kind": "Pod", "namespace": "db", "name": "redis-master-0", "apiVersion": "v1", "labels": map[string]any{"app": "redis"}},
			}
			line, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
	got := ParseReader(strings.NewReader(b.String()), "events.jsonl", Options{now: testNow})
	if got.Input.Wrapper != "event-exporter" {
		t.Errorf("Wrapper = %q, want event-exporter", got.Input.Wrapper)
	}
	if u := got.Input.Unaccounted(); u != 0 {
		t.Errorf("%d lines unaccounted", u)
	}
	if len(got.Events) != len(want.Events) {
		t.Fatalf("%d events, want %d", len(got.Events), len(want.Events))
	}
	for i := range got.Events {
		g, w := got.Events[i], want.Events[i]
		// the controller's events have no source host: describe names the
		// pod's node for them, the exporter cannot
		nodeOK := g.Node == w.Node || g.Node == "" && strings.HasSuffix(g.Reason, "AttachVolume")
		if g.Kind != w.Kind || g.PV != w.PV || g.Handle != w.Handle || g.Pod != w.Pod || !nodeOK || g.Reason != w.Reason || g.Code != w.Code || max(g.Count, 1) != max(w.Count, 1) || g.Origin != OriginDescribe {
			t.Errorf("event %d:\n got %s %s %s %s %s %s ×%d %s\nwant %s %s %s %s %s %s ×%d", i,
				g.Kind, g.PV, g.Pod, g.Node, g.Reason, g.Code, g.Count, g.Origin, w.Kind, w.PV, w.Pod, w.Node, w.Reason, w.Code, w.Count)
		}
	}
	// every event is dated by one record's lastTimestamp
	for _, g := range got.Events {
		found := false
		for _, tm := range times {
			found = found || g.Time.UTC().Equal(tm)
		}
		if !found {
			t.Errorf("%s at %s: not a record's lastTimestamp", g.Kind, g.Time)
		}
	}
}
