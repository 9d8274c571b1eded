package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// row is one line of a volume's event list: a run of events of one kind on
// one node with one error class, collapsed ("attach-failed ZoneNotMatch ×40").
type row struct {
	First, Last parser.Event
	Time, Until time.Time
	Count       int // events in the run, describe counts included
	Kind        parser.Kind
	Node        string
	Code        string
	Pods        []string
}

func (r row) key() string { return string(r.Kind) + "\x00" + r.Node + "\x00" + r.Code }

// collapse groups events into rows. An event joins one of the two most
// recent rows on its node when kind and error class match, so a retry storm
// (attach started, attach failed, started, failed, …) on one node stays two
// rows while other nodes move on, and a different step on the node ends the
// run.
func collapse(evs []parser.Event) []row {
	var rows []row
	recent := map[string][]int{} // node → indices of its last two rows
	for _, e := range evs {
		n := e.Count
		if n < 1 {
			n = 1
		}
		r := row{First: e, Last: e, Time: e.Time, Until: e.Time, Count: n, Kind: e.Kind, Node: e.Node, Code: e.Code}
		if e.Span > 0 && !e.Time.IsZero() {
			r.Until = e.Time.Add(e.Span)
			if e.Origin == parser.OriginDescribe {
				// describe rows carry the last time; the span reaches back.
				r.Time = e.Time.Add(-e.Span)
				r.Until = e.Time
			}
		}
		if e.Pod != "" {
			r.Pods = []string{e.Pod}
		}
		merged := false
		for _, i := range recent[e.Node] {
			if rows[i].key() != r.key() {
				continue
			}
			merged = true
			p := &rows[i]
			p.Count += n
			p.Last = e
			if r.Until.After(p.Until) {
				p.Until = r.Until
			}
			if e.Pod != "" && !contains(p.Pods, e.Pod) {
				p.Pods = append(p.Pods, e.Pod)
			}
			break
		}
		if merged {
			continue
		}
		rows = append(rows, r)
		rc := append(recent[e.Node], len(rows)-1)
		if len(rc) > 2 {
			rc = rc[len(rc)-2:]
		}
		recent[e.Node] = rc
	}
	return rows
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// what describes a row: "attach-failed ZoneNotMatch ×40 until 17:51:08 (1h23m)".
func (r row) what(withPod bool) string {
	var b strings.Builder
	b.WriteString(string(r.Kind))
	if r.Code != "" {
		b.WriteString(" " + oneLine(r.Code))
	}
	if r.Count > 1 {
		fmt.Fprintf(&b, " ×%d", r.Count)
	}
	if r.Count > 1 && !r.Until.IsZero() && r.Until.Sub(r.Time) >= time.Second {
		fmt.Fprintf(&b, " over %s", human(r.Until.Sub(r.Time)))
	}
	if withPod && len(r.Pods) > 0 {
		b.WriteString(" " + oneLine(r.Pods[0]))
	}
	if r.Kind == parser.Unknown && r.First.Reason != "" {
		b.WriteString(" (" + oneLine(r.First.Reason) + ")")
	}
	return b.String()
}

// sourceLoc is "kcm.log:14", or "kcm.log:14…220" for a run.
func (r row) sourceLoc() string {
	p := oneLine(r.First.Source.Path)
	if i := strings.LastIndexByte(p, '/'); i >= 0 && len(p) > 20 {
		p = p[i+1:]
	}
	s := fmt.Sprintf("%s:%d", p, r.First.Source.Line)
	if r.Last.Source.Path == r.First.Source.Path && r.Last.Source.Line != r.First.Source.Line {
		s += fmt.Sprintf("…%d", r.Last.Source.Line)
	}
	return s
}
