package classifier

import (
	"fmt"
	"strconv"
)

// enumNames are the names of a closed one-byte enum (Kind, Origin),
// indexed by value; the zero value's name is "". They give the enum its
// String, MarshalText and UnmarshalText, so that JSON and YAML show (and
// sort map keys by) the names.
type enumNames[T ~uint8] struct {
	what   string // "event kind", for messages
	names  []string
	byName map[string]T
}

func newEnumNames[T ~uint8](what string, names []string) enumNames[T] {
	e := enumNames[T]{what: what, names: names, byName: make(map[string]T, len(names))}
	for v, n := range names {
		if n != "" {
			e.byName[n] = T(v)
		}
	}
	return e
}

// name is v's name, or Type(n) for a value out of range.
func (e enumNames[T]) name(v T, typ string) string {
	if int(v) < len(e.names) {
		return e.names[v]
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

// parse returns the value named name ("" is the zero value).
func (e enumNames[T]) parse(name string) (T, bool) {
	if name == "" {
		return 0, true
	}
	v, ok := e.byName[name]
	return v, ok
}

func (e enumNames[T]) marshal(v T) ([]byte, error) {
	if int(v) >= len(e.names) {
		return nil, fmt.Errorf("%s %d out of range", e.what, v)
	}
	return []byte(e.names[v]), nil
}

func (e enumNames[T]) unmarshal(b []byte, v *T) error {
	p, ok := e.parse(string(b))
	if !ok {
		return fmt.Errorf("unknown %s %q", e.what, b)
	}
	*v = p
	return nil
}
