package classifier

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// Component is who wrote an event's line: one byte (events are many, see
// Event) standing for a name. The names of the Component* constants are
// fixed; any other name (a live source's role given to --selector, which
// the parser puts on the events whose labels name none) gets a number of
// its own the first time ComponentOf sees it, for the life of the process.
// The zero Component has the name "" (not known). Order components by
// name (String), never by number.
type Component uint8

// Components that emit events.
const (
	ComponentKCM     Component = iota + 1
	ComponentKubelet           // kubelet
	ComponentCSI               // a CSI sidecar or driver
	ComponentEvents            // kubectl describe / get events tables
	// ComponentMixed: an all-in-one binary (k3s, hyperkube, rke2) whose
	// lines are of several components, or an input whose events are.
	ComponentMixed

	numFixedComponents
)

// fixedComponentNames are the names of the Component* constants.
var fixedComponentNames = [numFixedComponents]string{
	ComponentKCM:     "kcm",
	ComponentKubelet: "kubelet",
	ComponentCSI:     "csi",
	ComponentEvents:  "events",
	ComponentMixed:   "mixed",
}

// components holds the names ComponentOf added after the fixed ones: names
// is read without the lock (String), replaced under it.
var components struct {
	sync.Mutex
	names atomic.Pointer[[]string] // every name, indexed by Component
	index map[string]Component
}

// ComponentOf returns the Component named name, giving a name that has
// none yet a number of its own; past 255 names, a new one is the zero
// Component.
func ComponentOf(name string) Component {
	if c, ok := fixedComponent(name); ok {
		return c
	}
	components.Lock()
	defer components.Unlock()
	if c, ok := components.index[name]; ok {
		return c
	}
	old := fixedComponentNames[:]
	if p := components.names.Load(); p != nil {
		old = *p
	}
	if len(old) > 255 {
		return 0
	}
	c := Component(len(old))
	names := append(old[:len(old):len(old)], name)
	components.names.Store(&names)
	if components.index == nil {
		components.index = map[string]Component{}
	}
	components.index[name] = c
	return c
}

// fixedComponent is the constant named name, if any ("" is the zero
// Component).
func fixedComponent(name string) (Component, bool) {
	for c, n := range fixedComponentNames {
		if n == name {
			return Component(c), true
		}
	}
	return 0, false
}

// String is the component's name ("" for the zero Component).
func (c Component) String() string {
	if c < numFixedComponents {
		return fixedComponentNames[c]
	}
	if p := components.names.Load(); p != nil && int(c) < len(*p) {
		return (*p)[c]
	}
	return "Component(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText writes the component's name.
func (c Component) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a component's name (any name: see ComponentOf).
func (c *Component) UnmarshalText(b []byte) error {
	*c = ComponentOf(string(b))
	return nil
}

// Origin is how an event reached us, one byte. The zero Origin (name "")
// means a component's own log line.
type Origin uint8

// Origins.
const (
	OriginEvent    Origin = iota + 1 // a Kubernetes Event echoed into a component log (event.go)
	OriginDescribe                   // a row of `kubectl describe` / `kubectl get events`

	numOrigins
)

// originNames are the names of the origins, indexed by Origin.
var originNames = [numOrigins]string{OriginEvent: "event", OriginDescribe: "describe"}

// String is the origin's name ("" for a component's own line).
func (o Origin) String() string { return origins.name(o, "Origin") }

// origins gives Origin its names.
var origins = newEnumNames[Origin]("event origin", originNames[:])

// MarshalText writes the origin's name ("" for a component's own line).
func (o Origin) MarshalText() ([]byte, error) { return origins.marshal(o) }

// UnmarshalText reads an origin's name; a name that is no origin is an error.
func (o *Origin) UnmarshalText(b []byte) error { return origins.unmarshal(b, o) }
