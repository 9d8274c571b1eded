package state

// Roles of a state input in the CLI's inputs[].
const (
	RoleState  = "state"  // object dumps and describe output
	RoleEvents = "events" // Event lists
)

// Snapshot is the cluster state read from one or more inputs: the objects
// per kind in input order, and the problems met reading them. Lookups
// (lookup.go) key objects by the names the logs use; facts.go answers the
// questions of the rules with evidence lines.
type Snapshot struct {
	Files                  []File
	VolumeAttachments      []*VolumeAttachment
	PersistentVolumes      []*PersistentVolume
	PersistentVolumeClaims []*PersistentVolumeClaim
	Nodes                  []*Node
	CSINodes               []*CSINode
	CSIDrivers             []*CSIDriver
	StorageClasses         []*StorageClass
	Pods                   []*Pod
	Events                 []*Event
	Problems               []Problem

	idx    *index          // built on first lookup, dropped by Add
	listed map[string]bool // kinds read from a List
}

// count is the number of objects read so far.
func (s *Snapshot) count() int {
	return len(s.VolumeAttachments) + len(s.PersistentVolumes) + len(s.PersistentVolumeClaims) +
		len(s.Nodes) + len(s.CSINodes) + len(s.CSIDrivers) + len(s.StorageClasses) + len(s.Pods) + len(s.Events)
}

// last returns the metadata of the last object of kind read, and the other
// times it carries that bound when the dump was taken.
func (s *Snapshot) last(kind string) (*Meta, []timed) {
	switch kind {
	case "VolumeAttachment":
		va := s.VolumeAttachments[len(s.VolumeAttachments)-1]
		var ts []timed
		for _, e := range []*VolumeError{va.AttachError, va.DetachError} {
			if e != nil {
				ts = append(ts, timed{e.Time, "volumeError"})
			}
		}
		return &va.Meta, ts
	case "PersistentVolume":
		return &s.PersistentVolumes[len(s.PersistentVolumes)-1].Meta, nil
	case "PersistentVolumeClaim":
		return &s.PersistentVolumeClaims[len(s.PersistentVolumeClaims)-1].Meta, nil
	case "Node":
		n := s.Nodes[len(s.Nodes)-1]
		return &n.Meta, []timed{{n.Heartbeat, "heartbeat"}}
	case "CSINode":
		return &s.CSINodes[len(s.CSINodes)-1].Meta, nil
	case "CSIDriver":
		return &s.CSIDrivers[len(s.CSIDrivers)-1].Meta, nil
	case "StorageClass":
		return &s.StorageClasses[len(s.StorageClasses)-1].Meta, nil
	case "Pod":
		return &s.Pods[len(s.Pods)-1].Meta, nil
	case "Event":
		e := s.Events[len(s.Events)-1]
		return &e.Meta, []timed{{e.Last, "event"}}
	}
	return nil, nil
}
