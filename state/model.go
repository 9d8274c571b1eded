package state

import (
	"strconv"
	"time"
)

// Source says where an object was read: the file and the 1-based line where
// the object starts (0 when unknown), and the format it was read from.
type Source struct {
	Path   string
	Line   int
	Format string // json, yaml, describe
}

// String is "path:line", or "path" when the line is unknown.
func (s Source) String() string {
	if s.Line > 0 {
		return s.Path + ":" + strconv.Itoa(s.Line)
	}
	return s.Path
}

// Meta is the part of metadata every kind keeps.
type Meta struct {
	Kind            string
	APIVersion      string
	Name            string
	Namespace       string
	UID             string
	ResourceVersion string
	Labels          map[string]string
	Annotations     map[string]string
	Finalizers      []string
	Created         time.Time // metadata.creationTimestamp
	Deleted         time.Time // metadata.deletionTimestamp; zero when not being deleted
	Managed         time.Time // latest metadata.managedFields[].time
	Source          Source

	terminating bool // describe said "Terminating" (no exact deletion time)
}

// Deleting reports whether the object is being deleted (it has a
// deletionTimestamp and is kept only by its finalizers).
func (m *Meta) Deleting() bool { return !m.Deleted.IsZero() || m.terminating }

// Key is "namespace/name", or "name" for cluster-scoped objects.
func (m *Meta) Key() string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}

// ObjectRef names another object (an Event's involvedObject / regarding).
type ObjectRef struct {
	Kind       string
	APIVersion string
	Namespace  string
	Name       string
	UID        string
	FieldPath  string
}

// Key is "namespace/name", or "name" for cluster-scoped objects.
func (r ObjectRef) Key() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// VolumeError is a VolumeAttachment's status.attachError / detachError.
type VolumeError struct {
	Time    time.Time
	Message string
}

// VolumeAttachment is a storage.k8s.io VolumeAttachment.
type VolumeAttachment struct {
	Meta
	Attacher     string // spec.attacher: the CSI driver name
	Node         string // spec.nodeName
	PV           string // spec.source.persistentVolumeName
	InlineHandle string // spec.source.inlineVolumeSpec.csi.volumeHandle (migrated inline volumes)
	Attached     bool   // status.attached
	AttachError  *VolumeError
	DetachError  *VolumeError
	Metadata     map[string]string // status.attachmentMetadata
}

// PersistentVolume is a core/v1 PersistentVolume.
type PersistentVolume struct {
	Meta
	AccessModes   []string // RWO, ROX, RWX, RWOP (long names are shortened)
	Capacity      string   // spec.capacity.storage
	StorageClass  string
	ReclaimPolicy string
	VolumeMode    string
	Claim         ObjectRef // spec.claimRef (Kind empty when unbound)
	Phase         string
	Message       string // status.message / reason

	// Driver is the CSI driver, or the in-tree plugin (kubernetes.io/aws-ebs, …).
	Driver string
	// VolumeID is the backend id as written in the spec: the CSI volumeHandle
	// or the in-tree id (aws://eu-west-1a/vol-…, a pdName, a diskURI, …).
	VolumeID string
	FSType   string
	// Affinity holds spec.nodeAffinity.required: one entry per nodeSelectorTerm.
	Affinity [][]Requirement
}

// Requirement is one matchExpression of a node selector term or of a
// StorageClass's allowedTopologies.
type Requirement struct {
	Key      string
	Operator string // In, NotIn, Exists, …; "In" for allowedTopologies
	Values   []string
}

// PersistentVolumeClaim is a core/v1 PersistentVolumeClaim.
type PersistentVolumeClaim struct {
	Meta
	Volume       string // spec.volumeName
	StorageClass string
	AccessModes  []string
	Capacity     string // status.capacity.storage (the request when unbound)
	VolumeMode   string
	Phase        string
}

// AttachedVolume is one entry of a Node's status.volumesAttached.
type AttachedVolume struct {
	Name       string // UniqueName
	DevicePath string
}

// Node is a core/v1 Node.
type Node struct {
	Meta
	ProviderID    string
	Unschedulable bool
	Ready         string           // status of the Ready condition: True, False, Unknown, or ""
	ReadySince    time.Time        // the Ready condition's lastTransitionTime
	Taints        []Taint          // spec.taints
	Heartbeat     time.Time        // latest condition lastHeartbeatTime
	Attached      []AttachedVolume // status.volumesAttached
	InUse         []string         // status.volumesInUse
	Allocatable   map[string]string
	Addresses     map[string]string // type → address
}

// Taint is one of a Node's spec.taints.
type Taint struct {
	Key, Value, Effect string
	Added              time.Time // timeAdded (set for NoExecute taints)
}

// OutOfServiceTaint is the taint an operator puts on a node that is down
// for good: the attach/detach controller force-detaches its volumes at once.
const OutOfServiceTaint = "node.kubernetes.io/out-of-service"

// CSINodeDriver is one entry of a CSINode's spec.drivers.
type CSINodeDriver struct {
	Name         string
	NodeID       string
	TopologyKeys []string
	Allocatable  int // allocatable.count; -1 when not set
}

// CSINode is a storage.k8s.io CSINode.
type CSINode struct {
	Meta
	Drivers []CSINodeDriver
}

// CSIDriver is a storage.k8s.io CSIDriver.
type CSIDriver struct {
	Meta
	AttachRequired bool // spec.attachRequired (default true)
	PodInfoOnMount bool
	Modes          []string // spec.volumeLifecycleModes
}

// StorageClass is a storage.k8s.io StorageClass.
type StorageClass struct {
	Meta
	Provisioner       string
	BindingMode       string // volumeBindingMode; Immediate when not set
	ReclaimPolicy     string
	AllowExpansion    bool
	Parameters        map[string]string
	AllowedTopologies [][]Requirement
}

// PodVolume is one entry of a Pod's spec.volumes that can name a PV.
type PodVolume struct {
	Name   string // the pod's volume name
	Claim  string // PVC name in the pod's namespace ("" for inline volumes)
	Driver string // inline CSI volume driver
	// Ephemeral is set for generic ephemeral volumes, whose claim is
	// "<pod>-<volume>".
	Ephemeral bool
}

// Pod is a core/v1 Pod, reduced to its volumes and placement.
type Pod struct {
	Meta
	Node    string // spec.nodeName
	Phase   string
	Volumes []PodVolume
}

// Event is a core/v1 or events.k8s.io/v1 Event, normalised: the times are
// exact (unlike describe's relative ages).
type Event struct {
	Meta
	Type     string // Normal, Warning
	Reason   string
	Message  string // message (core/v1) or note (events.k8s.io/v1)
	Action   string
	Involved ObjectRef // involvedObject / regarding
	Related  ObjectRef
	// First and Last bound the occurrences: firstTimestamp or
	// deprecatedFirstTimestamp or eventTime; series.lastObservedTime or
	// lastTimestamp or deprecatedLastTimestamp or First.
	First time.Time
	Last  time.Time
	// Count is series.count, count or deprecatedCount; at least 1.
	Count int
	// Component is the reporter: reportingController / reportingComponent,
	// else source.component (deprecatedSource.component).
	Component string
	Host      string // reportingInstance or source.host
}
