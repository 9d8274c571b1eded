package state

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// kubectl describe prints "Key:  value" lines; a section is a key with no
// value whose entries are indented below it; a long value (Labels,
// Annotations, Used By) goes on in lines indented to its value column; list
// items (a VolumeAttachment's finalizers) and table rows (a Node's
// conditions) are indented lines without a key. Each object starts with
// "Name:" at column 0. The reader below turns that layout into a tree of
// entries and reads the fields of PV, PVC, Node and VolumeAttachment from it.

// entry is one "Key: value" line of describe output with its continuation
// lines (Values) and the entries and keyless lines indented below it.
type entry struct {
	Key      string
	Values   []string // the value and its continuation lines, trimmed; empty for a section
	Children []*entry
	Lines    []string // keyless indented lines below the entry (list items, table rows)
	Line     int      // 1-based file line
	indent   int
	valueCol int // column of the value, 0 when there is none
}

func (e *entry) value() string {
	if e == nil || len(e.Values) == 0 {
		return ""
	}
	return e.Values[0]
}

// child returns the first child with key, or nil.
func (e *entry) child(key string) *entry {
	if e == nil {
		return nil
	}
	for _, c := range e.Children {
		if c.Key == key {
			return c
		}
	}
	return nil
}

// describeKey matches "Key:" or "Key:  value" (keys may hold blanks and
// parentheses: "Reclaim Policy", "Non-terminated Pods").
var describeKey = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 ()/._-]*?):(?:\s+(.*?))?\s*$`)

// parseDescribe splits describe output into one root entry per object (the
// root's Children are the object's top-level keys).
func parseDescribe(data []byte, firstLine int) []*entry {
	var roots []*entry
	var stack []*entry // open entries, by increasing indent
	var last *entry    // the latest entry with a value (for continuation lines)
	for i, raw := range bytes.Split(data, []byte("\n")) {
		lineNo := firstLine + i
		text := strings.TrimRight(string(raw), " \t\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		indent := len(text) - len(strings.TrimLeft(text, " "))
		body := text[indent:]
		if indent == 0 && strings.HasPrefix(body, "Name:") {
			roots = append(roots, &entry{Line: lineNo, indent: -1})
			stack = stack[:0]
			last = nil
		}
		if len(roots) == 0 {
			continue
		}
		if last != nil && last.valueCol > 0 && indent == last.valueCol {
			last.Values = append(last.Values, body)
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := roots[len(roots)-1]
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		m := describeKey.FindStringSubmatch(body)
		if m == nil || strings.Contains(m[1], "  ") {
			parent.Lines = append(parent.Lines, body)
			last = nil
			continue
		}
		e := &entry{Key: m[1], Line: lineNo, indent: indent}
		if v := m[2]; v != "" {
			e.Values = []string{v}
			e.valueCol = strings.Index(text, v)
			last = e
		} else {
			last = nil
		}
		parent.Children = append(parent.Children, e)
		stack = append(stack, e)
	}
	return roots
}

// readDescribe reads kubectl describe output of PV, PVC, Node and
// VolumeAttachment objects.
func (r *reader) readDescribe() {
	for _, root := range parseDescribe(r.data, 1) {
		kind := describeKind(root)
		name := root.child("Name").value()
		if kind == "" {
			r.problem(root.Line, "describe output of %s is not of a PV, PVC, Node or VolumeAttachment (skipped)", name)
			continue
		}
		if name == "" {
			r.problem(root.Line, "%s without a name (skipped)", kind)
			continue
		}
		m := Meta{Kind: kind, Name: name, Source: Source{Path: r.path, Line: root.Line, Format: "describe"}}
		m.Namespace = none(root.child("Namespace").value())
		m.Labels = describeMap(root.child("Labels"), "=")
		m.Annotations = describeMap(root.child("Annotations"), ": ")
		m.Finalizers = describeList(root.child("Finalizers"))
		c := converter{}
		var extra []timed
		switch kind {
		case "PersistentVolume":
			pv := describePV(root, m)
			r.s.PersistentVolumes = append(r.s.PersistentVolumes, pv)
		case "PersistentVolumeClaim":
			pvc := &PersistentVolumeClaim{Meta: m, StorageClass: none(root.child("StorageClass").value()),
				Volume: none(root.child("Volume").value()), Capacity: none(root.child("Capacity").value()),
				AccessModes: splitModes(root.child("Access Modes").value()), VolumeMode: root.child("VolumeMode").value()}
			pvc.Phase, pvc.terminating = describeStatus(root.child("Status").value())
			r.s.PersistentVolumeClaims = append(r.s.PersistentVolumeClaims, pvc)
		case "Node":
			n := describeNode(&c, root, m)
			extra = []timed{{n.Heartbeat, "heartbeat"}}
			r.s.Nodes = append(r.s.Nodes, n)
		case "VolumeAttachment":
			va := describeVA(&c, root, m)
			r.s.VolumeAttachments = append(r.s.VolumeAttachments, va)
		}
		for _, b := range c.bad {
			r.problem(root.Line, "%s %s: %s", kind, name, b)
		}
		if r.kinds == nil {
			r.kinds = map[string]int{}
		}
		r.kinds[kind]++
		mm, _ := r.s.last(kind)
		r.observe(mm, extra)
	}
}

// describeKind infers the kind of a describe block from its keys: the
// generic describer (VolumeAttachment) prints "Kind:"; the others are known
// by keys only they print.
func describeKind(root *entry) string {
	if k := root.child("Kind").value(); k != "" {
		switch k {
		case "VolumeAttachment", "PersistentVolume", "PersistentVolumeClaim", "Node":
			return k
		}
		return ""
	}
	has := func(k string) bool { return root.child(k) != nil }
	switch {
	case has("Reclaim Policy") || has("Claim") && has("Source"):
		return "PersistentVolume"
	case has("Used By") || has("Volume") && (has("Access Modes") || has("StorageClass")):
		return "PersistentVolumeClaim"
	case has("Roles") || has("Taints") || has("System Info") || has("Addresses") && has("Conditions"):
		return "Node"
	}
	return ""
}

// none maps describe's "<none>" and "<unset>" to "".
func none(s string) string {
	if s == "<none>" || s == "<unset>" || s == "<nil>" {
		return ""
	}
	return s
}

// describeMap reads Labels (k=v) or Annotations (k: v), one per value line.
func describeMap(e *entry, sep string) map[string]string {
	if e == nil {
		return nil
	}
	var m map[string]string
	for _, v := range e.Values {
		k, val, ok := strings.Cut(v, sep)
		if none(v) == "" || !ok {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return m
}

// describeList reads "[a b]" or a section of one item per line.
func describeList(e *entry) []string {
	if e == nil {
		return nil
	}
	if v := e.value(); v != "" {
		v = strings.TrimSuffix(strings.TrimPrefix(none(v), "["), "]")
		return strings.Fields(v)
	}
	var out []string
	for _, l := range e.Lines {
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// splitModes reads "RWO" or "RWO,ROX".
func splitModes(v string) []string {
	v = none(v)
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// describeStatus reads "Bound", or "Terminating (lasts 2m)" for an object
// being deleted.
func describeStatus(v string) (phase string, terminating bool) {
	if strings.HasPrefix(v, "Terminating") {
		return "Terminating", true
	}
	return v, false
}

// inTreeSources maps the Type: line of a PV's Source section to the
// in-tree plugin and the key of its volume id.
var inTreeSources = map[string][2]string{
	"AWSElasticBlockStore": {pluginAWS, "VolumeID"},
	"GCEPersistentDisk":    {pluginGCE, "PDName"},
	"Cinder":               {pluginCinder, "VolumeID"},
	"AzureDisk":            {pluginAzure, "DiskURI"},
	"vSphereVolume":        {pluginVsphere, "VolumePath"},
}

func describePV(root *entry, m Meta) *PersistentVolume {
	pv := &PersistentVolume{Meta: m, StorageClass: none(root.child("StorageClass").value()),
		ReclaimPolicy: root.child("Reclaim Policy").value(), VolumeMode: root.child("VolumeMode").value(),
		Capacity: root.child("Capacity").value(), AccessModes: splitModes(root.child("Access Modes").value()),
		Message: none(root.child("Message").value())}
	pv.Phase, pv.terminating = describeStatus(root.child("Status").value())
	if c := none(root.child("Claim").value()); c != "" {
		ns, name, ok := strings.Cut(c, "/")
		if !ok {
			ns, name = "", c
		}
		pv.Claim = ObjectRef{Kind: "PersistentVolumeClaim", Namespace: ns, Name: name}
	}
	if src := root.child("Source"); src != nil {
		typ, _, _ := strings.Cut(src.child("Type").value(), " ")
		if typ == "CSI" {
			pv.Driver, pv.VolumeID = src.child("Driver").value(), src.child("VolumeHandle").value()
		} else if p, ok := inTreeSources[typ]; ok {
			pv.Driver, pv.VolumeID = p[0], src.child(p[1]).value()
		}
		pv.FSType = src.child("FSType").value()
	}
	if req := root.child("Node Affinity").child("Required Terms"); req != nil {
		for _, term := range req.Children { // Term 0:, Term 1:
			var reqs []Requirement
			for _, v := range term.Values {
				if r, ok := parseRequirement(v); ok {
					reqs = append(reqs, r)
				}
			}
			pv.Affinity = append(pv.Affinity, reqs)
		}
	}
	return pv
}

// parseRequirement reads "key in [a, b]", "key notin [a]", "key exists".
func parseRequirement(v string) (Requirement, bool) {
	f := strings.Fields(v)
	if len(f) < 2 {
		return Requirement{}, false
	}
	ops := map[string]string{"in": "In", "notin": "NotIn", "exists": "Exists", "doesnotexist": "DoesNotExist", "gt": "Gt", "lt": "Lt"}
	op, ok := ops[strings.ToLower(f[1])]
	if !ok {
		return Requirement{}, false
	}
	r := Requirement{Key: f[0], Operator: op}
	if rest := strings.Join(f[2:], " "); rest != "" {
		rest = strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
		for _, x := range strings.Split(rest, ",") {
			if x = strings.TrimSpace(x); x != "" {
				r.Values = append(r.Values, x)
			}
		}
	}
	return r, true
}

// describeTime is the time layout of describe's own lines (CreationTimestamp,
// condition times); the generic describer prints RFC 3339.
const describeTime = "Mon, 02 Jan 2006 15:04:05 -0700"

func (c *converter) describeTime(field, v string) time.Time {
	if t, err := time.Parse(describeTime, v); err == nil {
		return t.UTC()
	}
	return c.time(field, v)
}

// conditionRow matches a Conditions table row: type, status, heartbeat time.
var conditionRow = regexp.MustCompile(`^(\S+)\s+(True|False|Unknown)\s+(\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4})`)

func describeNode(c *converter, root *entry, m Meta) *Node {
	m.Created = c.describeTime("CreationTimestamp", none(root.child("CreationTimestamp").value()))
	n := &Node{Meta: m, ProviderID: root.child("ProviderID").value(),
		Unschedulable: root.child("Unschedulable").value() == "true",
		Taints:        c.describeTaints(root.child("Taints"))}
	if cond := root.child("Conditions"); cond != nil {
		for _, row := range cond.Lines {
			mm := conditionRow.FindStringSubmatch(row)
			if mm == nil {
				continue
			}
			if mm[1] == "Ready" {
				n.Ready = mm[2]
			}
			if t := c.describeTime("Conditions.LastHeartbeatTime", mm[3]); t.After(n.Heartbeat) {
				n.Heartbeat = t
			}
		}
	}
	if a := root.child("Addresses"); a != nil {
		for _, e := range a.Children {
			if n.Addresses == nil {
				n.Addresses = map[string]string{}
			}
			n.Addresses[e.Key] = e.value()
		}
	}
	if al := root.child("Allocatable"); al != nil {
		for _, e := range al.Children {
			if n.Allocatable == nil {
				n.Allocatable = map[string]string{}
			}
			n.Allocatable[e.Key] = e.value()
		}
	}
	return n
}

// describeTaints reads a Node's "Taints:" value, one taint a line as
// kubectl prints them (key=value:effect, or key:effect without a value);
// "<none>" is none. describe shows no timeAdded. A line of another shape
// is the object's problem, not a taint.
func (c *converter) describeTaints(e *entry) []Taint {
	if e == nil {
		return nil
	}
	var out []Taint
	for _, v := range e.Values {
		if none(v) == "" {
			continue
		}
		kv, effect, ok := strings.Cut(v, ":")
		key, value, _ := strings.Cut(kv, "=")
		if !ok || key == "" || effect == "" || strings.ContainsAny(effect, " :=") {
			c.bad = append(c.bad, fmt.Sprintf("Taints %q is not key=value:effect", v))
			continue
		}
		out = append(out, Taint{Key: key, Value: value, Effect: effect})
	}
	return out
}

func describeVA(c *converter, root *entry, m Meta) *VolumeAttachment {
	m.APIVersion = root.child("API Version").value()
	md := root.child("Metadata")
	m.Created = c.time("Metadata.Creation Timestamp", md.child("Creation Timestamp").value())
	m.Deleted = c.time("Metadata.Deletion Timestamp", md.child("Deletion Timestamp").value())
	m.UID = md.child("UID").value()
	m.ResourceVersion = md.child("Resource Version").value()
	if f := md.child("Finalizers"); f != nil {
		m.Finalizers = describeList(f)
	}
	spec, status := root.child("Spec"), root.child("Status")
	va := &VolumeAttachment{Meta: m, Attacher: spec.child("Attacher").value(), Node: spec.child("Node Name").value(),
		PV: spec.child("Source").child("Persistent Volume Name").value()}
	va.Attached, _ = strconv.ParseBool(status.child("Attached").value())
	for _, x := range []struct {
		key string
		out **VolumeError
	}{{"Attach Error", &va.AttachError}, {"Detach Error", &va.DetachError}} {
		if e := status.child(x.key); e != nil {
			*x.out = &VolumeError{Message: e.child("Message").value(), Time: c.time("Status."+x.key+".Time", e.child("Time").value())}
		}
	}
	if am := status.child("Attachment Metadata"); am != nil {
		for _, e := range am.Children {
			if va.Metadata == nil {
				va.Metadata = map[string]string{}
			}
			va.Metadata[e.Key] = e.value()
		}
	}
	return va
}
