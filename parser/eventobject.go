package parser

import (
	"strings"
	"time"
)

// EventObject is one Kubernetes Event object read from a dump (kubectl get
// events -o json|yaml, core/v1 or events.k8s.io/v1): the fields a describe
// or get-events row prints, with exact times instead of relative ages.
type EventObject struct {
	Type    string // Normal, Warning
	Reason  string
	Message string
	// Involved object: Kind as the API spells it (Pod, Node, PersistentVolumeClaim, …).
	Kind, Namespace, Name string
	Component             string // reporting component / source.component
	Host                  string // reporting instance / source.host (the node of kubelet events)
	Count                 int
	First, Last           time.Time
	Source                Source
	Text                  string // the line the event shows as ("Warning FailedMount …")
}

// ClassifyEventObject turns an Event object into an Event by the same path
// as a describe or get-events row (reason and message through the
// classifier, then the row defaults), so `kubectl get events -o json` gives
// the events of the table it mirrors, at exact times: Time is the last
// occurrence, Span the stretch since the first. ok is false when the Event
// is not about volumes.
func ClassifyEventObject(o EventObject) (Event, bool) {
	object := ""
	if o.Name != "" {
		object = strings.ToLower(o.Kind) + "/" + o.Name
		if o.Namespace != "" {
			object = strings.ToLower(o.Kind) + "/" + o.Namespace + "/" + o.Name
		}
	}
	from := o.Component
	if from == "kubelet" && o.Host != "" {
		from += ", " + o.Host
	}
	row := tableRow{Type: o.Type, Reason: o.Reason, Object: object, From: from, Message: o.Message, Count: o.Count}
	ev, ok, _ := classifyGuarded(&record{Msg: row.Message, Table: &row})
	if !ok {
		return Event{}, false
	}
	ev.Source, ev.Text = o.Source, TextOf(o.Text)
	ev.Time = StampOf(o.Last.UTC())
	if ev.Count == 0 && o.Count > 1 {
		ev.Count = Int32(o.Count)
	}
	if !o.First.IsZero() && o.Last.After(o.First) {
		ev.Span = o.Last.Sub(o.First)
	}
	rowDefaults(&ev, &row, "")
	return ev.Event(), true
}

// rowDefaults fills what an event-table row says when the message did not:
// origin, component, reason, level from the type, and the pod of a
// "pod/name" object.
func rowDefaults(ev *Draft, row *tableRow, object string) {
	if ev.Origin == 0 {
		ev.Origin = OriginDescribe
	}
	if ev.Component == 0 {
		ev.Component = ComponentEvents
	}
	if ev.Reason == "" {
		ev.Reason = row.Reason
	}
	if ev.Level == 0 {
		switch row.Type {
		case "Warning":
			ev.Level = 'W'
		case "Normal":
			ev.Level = 'I'
		}
	}
	if ev.Pod == "" && strings.HasPrefix(object, "pod/") {
		ev.Pod = object[4:]
	}
}
