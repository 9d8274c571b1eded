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
