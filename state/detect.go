package state

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Detect tells from the first bytes of an input whether it is cluster
// state: RoleEvents for a dump of Event objects only, RoleState for other
// object dumps (kubectl get -o json|yaml, Lists, several documents) and for
// kubectl describe of a PV, PVC, Node or VolumeAttachment. A log never
// qualifies: JSON must be an object with a top-level apiVersion and a
// metadata object or items, and none of the keys of a klog JSON or docker
// record (ts, msg, log, …: a structured "Event occurred" line carries
// apiVersion and kind as keys), YAML must start
// with apiVersion/kind keys at column 0, describe must start with "Name:"
// and carry the keys of one of the four kinds (describe of a pod, whose
// Events table the log parser reads, is not claimed). The sample may be cut
// anywhere.
func Detect(sample []byte) (role string, ok bool) {
	body := meaningful(sample)
	if len(body) == 0 {
		return "", false
	}
	var kinds []string
	switch {
	case body[0] == '{' || body[0] == '[':
		kinds, ok = detectJSON(body)
	case bytes.HasPrefix(body, []byte("Name:")):
		if roots := parseDescribe(body, 1); len(roots) > 0 && describeKind(roots[0]) != "" {
			return RoleState, true
		}
		return "", false
	default:
		kinds, ok = detectYAML(body)
	}
	if !ok {
		return "", false
	}
	for _, k := range kinds {
		if k != "Event" && k != "EventList" {
			return RoleState, true
		}
	}
	if len(kinds) == 0 { // an empty List: nothing says it holds events
		return RoleState, true
	}
	return RoleEvents, true
}

// meaningful skips a byte-order mark, blank lines, "#" comment lines and
// YAML document markers at the start.
func meaningful(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte("\n"))
		t := bytes.TrimSpace(line)
		if len(t) != 0 && t[0] != '#' && string(t) != "---" {
			return bytes.TrimLeft(b, " \t\r\n")
		}
		b = rest
	}
	return nil
}

// detectJSON walks the tokens of the first value: it must be an object with
// apiVersion and kind or items (or an array whose first element is such an
// object). It returns the kinds it saw: the object kind, or the item kinds.
func detectJSON(b []byte) (kinds []string, ok bool) {
	type frame struct {
		object, wantKey bool
		key             string
	}
	var stack []frame
	var apiVersion, items, metadata bool
	var topKind string
	// inItem reports whether the innermost frame is an element of the
	// top-level array or of the top-level items array.
	inItem := func() bool {
		switch len(stack) {
		case 2:
			return !stack[0].object
		case 3:
			return stack[0].object && stack[0].key == "items" && !stack[1].object
		}
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		t, err := dec.Token()
		if err != nil {
			break // the sample ends; judge by what was seen
		}
		n := len(stack)
		if d, isDelim := t.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				if n == 0 && d == '[' || n == 1 && stack[0].key == "items" && d == '[' {
					items = true
				}
				if n == 1 && stack[0].key == "metadata" && d == '{' || n == 3 && inItem() && stack[2].key == "metadata" {
					metadata = true
				}
				stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:n-1]
				if n-1 > 0 && stack[n-2].object {
					stack[n-2].wantKey = true
				}
			}
			continue
		}
		if n == 0 {
			return nil, false // a scalar
		}
		top := &stack[n-1]
		if top.object && top.wantKey {
			top.key, _ = t.(string)
			top.wantKey = false
			switch top.key {
			case "ts", "msg", "log", "level", "time", "stream":
				if n == 1 { // a klog JSON or docker record: never state, whatever follows
					return nil, false
				}
			}
			continue
		}
		if v, isString := t.(string); isString && top.object {
			switch {
			case n == 1 && top.key == "apiVersion":
				apiVersion = true
			case n == 1 && top.key == "kind":
				topKind = v
			case inItem() && top.key == "apiVersion" && !stack[0].object:
				apiVersion = true
			case inItem() && top.key == "kind":
				kinds = append(kinds, v)
			}
		}
		if top.object {
			top.wantKey = true
		}
	}
	switch {
	case !apiVersion || !metadata && !items:
		return nil, false
	case topKind != "" && !strings.HasSuffix(topKind, "List"):
		return []string{topKind}, true
	case items || topKind != "":
		return kinds, true
	}
	return nil, false
}

var (
	yamlTopKey  = regexp.MustCompile(`(?m)^(apiVersion|kind|items):[ \t]*(\S*)`)
	yamlItemKey = regexp.MustCompile(`(?m)^(\s*)(?:-\s+)?kind:[ \t]*(\S+)`)
)

// detectYAML wants apiVersion at column 0 with kind or items, within the
// first document. Item kinds are the kind keys indented like the first item.
func detectYAML(b []byte) (kinds []string, ok bool) {
	if !bytes.HasPrefix(b, []byte("apiVersion:")) && !bytes.Contains(b, []byte("\napiVersion:")) {
		// what yamlTopKey would find no apiVersion in (a log, mostly):
		// told without running it over the whole sample
		return nil, false
	}
	var apiVersion, items bool
	var topKind string
	for _, m := range yamlTopKey.FindAllSubmatch(b, -1) {
		switch string(m[1]) {
		case "apiVersion":
			apiVersion = true
		case "kind":
			if topKind == "" {
				topKind = string(m[2])
			}
		case "items":
			items = true
		}
	}
	if !apiVersion || topKind == "" && !items {
		return nil, false
	}
	if topKind != "" && !strings.HasSuffix(topKind, "List") {
		return []string{topKind}, true
	}
	// the items: the first "- " line after items: sets the item indentation
	i := bytes.Index(b, []byte("\nitems:"))
	if i < 0 {
		return nil, true
	}
	rest := b[i+len("\nitems:"):]
	dash := regexp.MustCompile(`(?m)^( *)- `).FindSubmatchIndex(rest)
	if dash == nil {
		return nil, true
	}
	itemIndent := dash[3] - dash[2]
	for _, m := range yamlItemKey.FindAllSubmatch(rest, -1) {
		ind := len(m[1])
		if ind == itemIndent+2 || ind == itemIndent && bytes.Contains(m[0], []byte("-")) {
			kinds = append(kinds, string(m[2]))
		}
	}
	return kinds, true
}
