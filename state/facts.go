package state

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Evidence is one line a finding can quote: the object it comes from and
// what it says, as "path:line: Kind name field=value …".
type Evidence struct {
	Source Source
	Text   string
	// At is when the dump holding the object was taken at the earliest (its
	// File.Taken); a log line later than At describes a newer state.
	At time.Time
}

// String is "path:line: text".
func (e Evidence) String() string { return e.Source.String() + ": " + e.Text }

func (s *Snapshot) evidence(m *Meta, format string, args ...any) Evidence {
	e := Evidence{Source: m.Source, Text: m.Kind + " " + m.Name}
	if format != "" {
		e.Text += " " + fmt.Sprintf(format, args...)
	}
	if f := s.File(m.Source.Path); f != nil {
		e.At = f.Taken
	}
	return e
}

// Standard zone labels, newest first.
const (
	LabelZone       = "topology.kubernetes.io/zone"
	LabelZoneLegacy = "failure-domain.beta.kubernetes.io/zone"
)

// isZoneKey reports whether a topology key names a zone: the standard
// labels, or a CSI driver key such as topology.ebs.csi.aws.com/zone.
func isZoneKey(k string) bool {
	return k == LabelZone || k == LabelZoneLegacy || strings.HasSuffix(k, "/zone")
}

// Zone is where a volume or node is: its zones (a volume may allow several),
// the key they were read from, and the evidence line.
type Zone struct {
	Zones    []string
	Key      string // topology key or label; "volumeID" for an in-tree id
	Evidence Evidence
}

// VolumeZone returns the zones a PV can be attached in: the zone terms of
// spec.nodeAffinity.required (all terms together), else the zone labels of
// the PV (legacy values may join several zones with "__"), else the zone in
// an in-tree AWS volume id (aws://eu-west-1a/vol-…). ok is false when the
// PV is unknown or names no zone.
func (s *Snapshot) VolumeZone(volume string) (z Zone, ok bool) {
	pv := s.PV(volume)
	if pv == nil {
		return Zone{}, false
	}
	for _, term := range pv.Affinity {
		for _, r := range term {
			if isZoneKey(r.Key) && r.Operator == "In" {
				z.Key = r.Key
				for _, v := range r.Values {
					if !slices.Contains(z.Zones, v) {
						z.Zones = append(z.Zones, v)
					}
				}
			}
		}
	}
	field := "spec.nodeAffinity"
	if len(z.Zones) == 0 {
		field = "metadata.labels"
		for _, k := range []string{LabelZone, LabelZoneLegacy} {
			if v := pv.Labels[k]; v != "" {
				z.Key, z.Zones = k, strings.Split(v, "__")
				break
			}
		}
	}
	if len(z.Zones) == 0 && pv.Driver == pluginAWS {
		if rest, found := strings.CutPrefix(pv.VolumeID, "aws://"); found {
			if zone, _, found := strings.Cut(rest, "/"); found && zone != "" {
				field, z.Key, z.Zones = "spec.awsElasticBlockStore", "volumeID", []string{zone}
			}
		}
	}
	if len(z.Zones) == 0 {
		return Zone{}, false
	}
	z.Evidence = s.evidence(&pv.Meta, "%s %s in [%s]", field, z.Key, strings.Join(z.Zones, ", "))
	return z, true
}

// NodeZone returns the zone label of a node. With a key (the PV's topology
// key) that label is preferred, so a CSI driver's own zone label is compared
// with the driver's own term; then topology.kubernetes.io/zone, then the
// legacy failure-domain label.
func (s *Snapshot) NodeZone(node, key string) (z Zone, ok bool) {
	n := s.Node(node)
	if n == nil {
		return Zone{}, false
	}
	for _, k := range []string{key, LabelZone, LabelZoneLegacy} {
		if v := n.Labels[k]; k != "" && k != "volumeID" && v != "" {
			z = Zone{Zones: []string{v}, Key: k}
			z.Evidence = s.evidence(&n.Meta, "label %s=%s", k, v)
			return z, true
		}
	}
	return Zone{}, false
}

// ZoneCheck compares the zones of a volume with the zone of a node.
type ZoneCheck struct {
	Volume, Node Zone
	Match        bool // the node zone is one of the volume zones
}

// Evidence is the two lines: the volume zone, then the node zone.
func (c ZoneCheck) Evidence() []Evidence { return []Evidence{c.Volume.Evidence, c.Node.Evidence} }

// CheckZone compares a volume zone with a node zone; ok is false when the
// snapshot does not tell both.
func (s *Snapshot) CheckZone(volume, node string) (c ZoneCheck, ok bool) {
	vz, ok := s.VolumeZone(volume)
	if !ok {
		return ZoneCheck{}, false
	}
	nz, ok := s.NodeZone(node, vz.Key)
	if !ok {
		return ZoneCheck{}, false
	}
	return ZoneCheck{Volume: vz, Node: nz, Match: slices.Contains(vz.Zones, nz.Zones[0])}, true
}

// StuckDetach reports whether the VolumeAttachment is being deleted but kept
// by finalizers (the external-attacher has not confirmed the detach).
func (va *VolumeAttachment) StuckDetach() bool { return va.Deleting() && len(va.Finalizers) > 0 }

// AttachmentEvidence is the line for one VolumeAttachment: node, attached,
// errors, deletion and finalizers, e.g.
//
//	state.json:12: VolumeAttachment csi-… node=10.0.3.27 pv=pvc-… status.attached=true
func (s *Snapshot) AttachmentEvidence(va *VolumeAttachment) Evidence {
	var b strings.Builder
	fmt.Fprintf(&b, "node=%s", va.Node)
	if va.PV != "" {
		fmt.Fprintf(&b, " pv=%s", va.PV)
	}
	fmt.Fprintf(&b, " status.attached=%t", va.Attached)
	if e := va.AttachError; e != nil {
		fmt.Fprintf(&b, " attachError=%s", errText(e))
	}
	if e := va.DetachError; e != nil {
		fmt.Fprintf(&b, " detachError=%s", errText(e))
	}
	if va.Deleting() {
		fmt.Fprintf(&b, " deletionTimestamp=%s", stamp(va.Deleted))
		if len(va.Finalizers) > 0 {
			fmt.Fprintf(&b, " finalizers=[%s]", strings.Join(va.Finalizers, " "))
		}
	}
	return s.evidence(&va.Meta, "%s", b.String())
}

func errText(e *VolumeError) string {
	q := strconv.Quote(e.Message)
	if !e.Time.IsZero() {
		q += "@" + stamp(e.Time)
	}
	return q
}

// stamp formats a time as RFC 3339 in UTC, "?" when unknown.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return t.UTC().Format(time.RFC3339)
}

// Driver is what the CSINode of a node says about one driver.
type Driver struct {
	Registered bool // the CSINode lists the driver
	NodeID     string
	// Allocatable is allocatable.count: how many volumes of the driver the
	// node can attach; -1 when the driver sets no limit (or is not listed).
	Allocatable int
	Evidence    Evidence
}

// DriverOnNode tells whether the CSINode of a node lists a driver; ok is
// false when the snapshot holds no CSINode for the node.
func (s *Snapshot) DriverOnNode(node, driver string) (d Driver, ok bool) {
	cn := s.CSINode(node)
	if cn == nil {
		return Driver{}, false
	}
	d.Allocatable = -1
	for _, x := range cn.Drivers {
		if x.Name == driver {
			d = Driver{Registered: true, NodeID: x.NodeID, Allocatable: x.Allocatable}
			break
		}
	}
	if !d.Registered {
		names := make([]string, len(cn.Drivers))
		for i, x := range cn.Drivers {
			names[i] = x.Name
		}
		d.Evidence = s.evidence(&cn.Meta, "spec.drivers=[%s] (no %s)", strings.Join(names, " "), driver)
		return d, true
	}
	limit := "unset"
	if d.Allocatable >= 0 {
		limit = strconv.Itoa(d.Allocatable)
	}
	d.Evidence = s.evidence(&cn.Meta, "driver %s nodeID=%s allocatable.count=%s", driver, d.NodeID, limit)
	return d, true
}

// Load is how many volumes of a driver a node has attached against its limit.
type Load struct {
	Attached []string // status.volumesAttached of the node for the driver (UniqueNames)
	InUse    []string // status.volumesInUse for the driver
	VAs      []string // names of VolumeAttachments of the driver on the node with status.attached=true
	Count    int      // the larger of len(Attached) and len(VAs)
	Limit    int      // CSINode allocatable.count, else the node's attachable-volumes-* allocatable; -1 unknown
	Full     bool     // Limit >= 0 && Count >= Limit
	Evidence []Evidence
}

// LoadOnNode counts the volumes of a driver (a CSI driver or an in-tree
// plugin such as kubernetes.io/aws-ebs; "" for all) attached to a node. ok
// is false when the snapshot holds neither the Node nor any of its
// VolumeAttachments.
func (s *Snapshot) LoadOnNode(node, driver string) (l Load, ok bool) {
	n := s.Node(node)
	vas := s.AttachmentsOn(node)
	if n == nil && len(vas) == 0 {
		return Load{}, false
	}
	l.Limit = -1
	mine := func(unique string) bool {
		if driver == "" {
			return true
		}
		if d, _, csi := splitCSIUniqueName(unique); csi {
			return d == driver
		}
		return strings.HasPrefix(unique, driver+"/")
	}
	if n != nil {
		for _, v := range n.Attached {
			if mine(v.Name) {
				l.Attached = append(l.Attached, v.Name)
			}
		}
		for _, v := range n.InUse {
			if mine(v) {
				l.InUse = append(l.InUse, v)
			}
		}
	}
	for _, va := range vas {
		if va.Attached && (driver == "" || va.Attacher == driver) {
			l.VAs = append(l.VAs, va.Name)
		}
	}
	l.Count = max(len(l.Attached), len(l.VAs))
	if d, ok := s.DriverOnNode(node, driver); ok && d.Registered && d.Allocatable >= 0 {
		l.Limit = d.Allocatable
		l.Evidence = append(l.Evidence, d.Evidence)
	} else if n != nil && driver != "" {
		key := "attachable-volumes-" + strings.TrimPrefix(driver, "kubernetes.io/")
		if !strings.HasPrefix(driver, "kubernetes.io/") {
			key = "attachable-volumes-csi-" + driver
		}
		if v, err := strconv.Atoi(n.Allocatable[key]); err == nil {
			l.Limit = v
			l.Evidence = append(l.Evidence, s.evidence(&n.Meta, "status.allocatable %s=%d", key, v))
		}
	}
	l.Full = l.Limit >= 0 && l.Count >= l.Limit
	if n != nil {
		l.Evidence = append(l.Evidence, s.evidence(&n.Meta, "status.volumesAttached=%d status.volumesInUse=%d", len(l.Attached), len(l.InUse)))
	}
	if len(vas) > 0 {
		l.Evidence = append(l.Evidence, Evidence{Source: vas[0].Source, At: s.evidence(&vas[0].Meta, "").At,
			Text: fmt.Sprintf("%d VolumeAttachments attached to %s", len(l.VAs), node)})
	}
	return l, true
}

// Presence tells whether a volume's PV and claim are in the snapshot and
// whether they are being deleted.
type Presence struct {
	PV       *PersistentVolume // nil when not in the snapshot
	PVC      *PersistentVolumeClaim
	Deleting bool // the PV or its claim has a deletionTimestamp
	// Listed is true when the snapshot holds a List with PersistentVolumes
	// (kubectl get pv -o json), so a missing PV is likely absent from the
	// cluster, not only from the dump.
	Listed   bool
	Evidence []Evidence
}

// VolumePresence looks a volume up by any log name (see PV).
func (s *Snapshot) VolumePresence(volume string) Presence {
	p := Presence{PV: s.PV(volume), Listed: s.listed["PersistentVolume"]}
	if p.PV == nil {
		return p
	}
	p.PVC = s.Claimant(p.PV)
	p.Evidence = append(p.Evidence, s.evidence(&p.PV.Meta, "%s", metaState(&p.PV.Meta, p.PV.Phase)))
	p.Deleting = p.PV.Deleting()
	if p.PVC != nil {
		p.Evidence = append(p.Evidence, s.evidence(&p.PVC.Meta, "%s", metaState(&p.PVC.Meta, p.PVC.Phase)))
		p.Deleting = p.Deleting || p.PVC.Deleting()
	}
	return p
}

func metaState(m *Meta, phase string) string {
	out := "status.phase=" + phase
	if m.Deleting() {
		out += " deletionTimestamp=" + stamp(m.Deleted)
		if len(m.Finalizers) > 0 {
			out += " finalizers=[" + strings.Join(m.Finalizers, " ") + "]"
		}
	}
	return out
}

// Access returns the access modes of a volume with the line that says so.
func (s *Snapshot) Access(volume string) (modes []string, ev Evidence, ok bool) {
	pv := s.PV(volume)
	if pv == nil || len(pv.AccessModes) == 0 {
		return nil, Evidence{}, false
	}
	return pv.AccessModes, s.evidence(&pv.Meta, "spec.accessModes=[%s]", strings.Join(pv.AccessModes, " ")), true
}

// ClaimLink is one pod volume resolved to its claim and PV (nil when not in
// the snapshot).
type ClaimLink struct {
	Volume string // the pod volume name
	Claim  string // "namespace/name"
	PVC    *PersistentVolumeClaim
	PV     *PersistentVolume
}

// Chain is a pod with its node and its claims.
type Chain struct {
	Pod      *Pod
	Node     string
	Claims   []ClaimLink
	Evidence []Evidence
}

// PodChain resolves pod ("namespace/name") → claims → PVs; ok is false when
// the pod is not in the snapshot.
func (s *Snapshot) PodChain(pod string) (c Chain, ok bool) {
	p := s.Pod(pod)
	if p == nil {
		return Chain{}, false
	}
	c = Chain{Pod: p, Node: p.Node}
	var claims []string
	for _, v := range p.Volumes {
		if v.Claim == "" {
			continue
		}
		l := ClaimLink{Volume: v.Name, Claim: p.Namespace + "/" + v.Claim}
		l.PVC = s.PVC(l.Claim)
		if l.PVC != nil && l.PVC.Volume != "" {
			l.PV = s.PV(l.PVC.Volume)
		}
		c.Claims = append(c.Claims, l)
		claims = append(claims, v.Name+"→"+v.Claim)
	}
	c.Evidence = append(c.Evidence, s.evidence(&p.Meta, "spec.nodeName=%s volumes=[%s]", p.Node, strings.Join(claims, " ")))
	for _, l := range c.Claims {
		if l.PVC != nil {
			c.Evidence = append(c.Evidence, s.evidence(&l.PVC.Meta, "spec.volumeName=%s status.phase=%s", l.PVC.Volume, l.PVC.Phase))
		}
	}
	return c, true
}

// Class returns the StorageClass of a volume (by the PV, else its claim)
// with a line naming its binding mode and allowed topologies.
func (s *Snapshot) Class(volume string) (sc *StorageClass, ev Evidence, ok bool) {
	pv := s.PV(volume)
	if pv == nil {
		return nil, Evidence{}, false
	}
	name := pv.StorageClass
	if c := s.Claimant(pv); name == "" && c != nil {
		name = c.StorageClass
	}
	sc = s.StorageClass(name)
	if sc == nil {
		return nil, Evidence{}, false
	}
	text := "provisioner=" + sc.Provisioner + " volumeBindingMode=" + sc.BindingMode
	if len(sc.AllowedTopologies) > 0 {
		var terms []string
		for _, t := range sc.AllowedTopologies {
			for _, r := range t {
				terms = append(terms, r.Key+" in ["+strings.Join(r.Values, ", ")+"]")
			}
		}
		text += " allowedTopologies=[" + strings.Join(terms, "; ") + "]"
	}
	return sc, s.evidence(&sc.Meta, "%s", text), true
}

// EventEvidence is the line for one Event: when, how often, why, about what.
func (s *Snapshot) EventEvidence(e *Event) Evidence {
	text := fmt.Sprintf("%s %s/%s %s first=%s last=%s count=%d", e.Type, e.Involved.Kind, e.Involved.Key(), e.Reason, stamp(e.First), stamp(e.Last), e.Count)
	if e.Component != "" {
		text += " from=" + e.Component
	}
	text += " " + strconv.Quote(e.Message)
	return s.evidence(&e.Meta, "%s", text)
}

// Health is what a Node object says about whether the node is up: its
// Ready condition and since when, and the out-of-service taint.
type Health struct {
	Ready        string    // True, False, Unknown, or "" when the dump has no conditions
	ReadySince   time.Time // the Ready condition's lastTransitionTime
	Heartbeat    time.Time
	OutOfService *Taint // node.kubernetes.io/out-of-service, or nil
	Evidence     Evidence
}

// NodeHealth tells a node's Ready condition and out-of-service taint, e.g.
//
//	state.json:40: Node 10.0.3.15 Ready=Unknown since=… heartbeat=… taints=[node.kubernetes.io/out-of-service=nodeshutdown:NoExecute]
//
// ok is false when the snapshot holds no Node of that name.
func (s *Snapshot) NodeHealth(node string) (h Health, ok bool) {
	n := s.Node(node)
	if n == nil {
		return Health{}, false
	}
	h = Health{Ready: n.Ready, ReadySince: n.ReadySince, Heartbeat: n.Heartbeat}
	var b strings.Builder
	ready := n.Ready
	if ready == "" {
		ready = "?"
	}
	fmt.Fprintf(&b, "Ready=%s", ready)
	if !n.ReadySince.IsZero() {
		fmt.Fprintf(&b, " since=%s", stamp(n.ReadySince))
	}
	if !n.Heartbeat.IsZero() {
		fmt.Fprintf(&b, " heartbeat=%s", stamp(n.Heartbeat))
	}
	if len(n.Taints) > 0 {
		var ts []string
		for i := range n.Taints {
			t := &n.Taints[i]
			if t.Key == OutOfServiceTaint && h.OutOfService == nil {
				h.OutOfService = t
			}
			txt := t.Key
			if t.Value != "" {
				txt += "=" + t.Value
			}
			ts = append(ts, txt+":"+t.Effect)
		}
		fmt.Fprintf(&b, " taints=[%s]", strings.Join(ts, " "))
	}
	h.Evidence = s.evidence(&n.Meta, "%s", b.String())
	return h, true
}
