package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEventMessagesMatchDescribe: the seed's describe output pasted with
// only the message column of its Events table — bare, dot-prefixed, in
// inline backticks, blockquoted, or between glued ``` fences — gives the
// events of the full table (kind, volume, pod, node, reason, origin), with
// no time, since the ages were not pasted.
func TestEventMessagesMatchDescribe(t *testing.T) {
	path := filepath.Join("..", "testdata", "incidents", "seed-2021", "describe.txt")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := parseFile(t, path, Options{})
	var header, msgs []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if rows := parseDescribeRows([]byte(l)); rows != nil {
			for _, r := range rows {
				msgs = append(msgs, r.row.Message)
			}
			continue
		}
		if _, _, ok := describeField([]byte(l)); ok {
			header = append(header, l) // names the pod and its node
		}
	}
	if len(msgs) == 0 {
		t.Fatal("no rows in the seed describe")
	}
	shapes := []struct {
		name   string
		render func(i int, m string) string
	}{
		{"bare", func(_ int, m string) string { return m }},
		{"dot", func(_ int, m string) string { return "." + m }},
		{"backticks", func(_ int, m string) string { return "`" + m + "`" }},
		{"blockquote", func(_ int, m string) string { return "> " + m }},
		{"glued-fences", func(i int, m string) string {
			if i == 0 {
				m = "```" + m
			}
			if i == len(msgs)-1 {
				m += "```"
			}
			return m
		}},
	}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			var b strings.Builder
			for _, h := range header {
				b.WriteString(h + "\n")
			}
			for i, m := range msgs {
				b.WriteString(sh.render(i, m) + "\n")
			}
			got := ParseReader(bytes.NewReader([]byte(b.String())), "x.txt", Options{now: testNow})
			if u := got.Input.Unaccounted(); u != 0 {
				t.Errorf("%d lines unaccounted", u)
			}
			if len(got.Events) != len(want.Events) {
				t.Fatalf("%d events, want %d:\n%s", len(got.Events), len(want.Events), b.String())
			}
			for i := range got.Events {
				g, w := got.Events[i], want.Events[i]
				if g.Kind != w.Kind || g.PV != w.PV || g.Handle != w.Handle || g.Pod != w.Pod || g.Node != w.Node || g.Reason != w.Reason || g.Origin != w.Origin || g.Code != w.Code {
					t.Errorf("event %d:\n got %s %s %s %s %s %s %s\nwant %s %s %s %s %s %s %s", i,
						g.Kind, g.PV, g.Pod, g.Node, g.Reason, g.Origin, g.Code, w.Kind, w.PV, w.Pod, w.Node, w.Reason, w.Origin, w.Code)
				}
				if !g.Time.IsZero() || g.Relative {
					t.Errorf("event %d has a time (%s, relative %v); a message without its table has none", i, g.Time, g.Relative)
				}
			}
		})
	}
}

// TestEventMessageStaysContinuation: an event message right after a klog
// line, a describe row or a JSON-less text entry is that entry's
// continuation, never an event of its own; after a blank line it is one.
func TestEventMessageStaysContinuation(t *testing.T) {
	msg := `MountVolume.MountDevice failed for volume "pvc-1" : rpc error: code = Internal desc = boom`
	cases := []struct {
		name, in string
		events   int
	}{
		{"after klog", "E0812 03:10:00.612388       1 operation_generator.go:1] first line\n" + msg + "\n", 1},
		{"after row", "  Warning  FailedMount  1m  kubelet  MountVolume.SetUp failed for volume \"pvc-2\" : x\n" + msg + "\n", 1},
		{"after blank", "E0812 03:10:00.612388       1 operation_generator.go:1] first line\n\n" + msg + "\n", 1},
		{"two messages", msg + "\n" + msg + "\n", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := ParseReader(strings.NewReader(c.in), "x.log", Options{now: testNow})
			var n int
			for _, e := range res.Events {
				if e.Origin == OriginDescribe && e.Reason == "FailedMount" && e.PV == "pvc-1" && e.Age == 0 {
					n++
				}
			}
			if c.name == "after blank" {
				if n != 1 {
					t.Errorf("%d bare events, want 1: %+v", n, res.Events)
				}
				return
			}
			if c.name == "two messages" {
				if n != 2 {
					t.Errorf("%d bare events, want 2", n)
				}
				return
			}
			if n != 0 || len(res.Events) != c.events {
				t.Errorf("the message became an event of its own (%d bare, %d events)", n, len(res.Events))
			}
		})
	}
}
