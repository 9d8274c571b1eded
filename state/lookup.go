package state

import "strings"

// index holds the lookups; when two inputs hold the same object, the one
// read last wins.
type index struct {
	pv       map[string]*PersistentVolume // PV name, UniqueName, handle, spec volume id
	pvc      map[string]*PersistentVolumeClaim
	node     map[string]*Node
	csiNode  map[string]*CSINode
	driver   map[string]*CSIDriver
	sc       map[string]*StorageClass
	pod      map[string]*Pod
	va       map[string]*VolumeAttachment
	vaByPV   map[string][]*VolumeAttachment // PV name or inline handle → VAs
	vaByNode map[string][]*VolumeAttachment
	file     map[string]*File
}

func (s *Snapshot) index() *index {
	if s.idx != nil {
		return s.idx
	}
	x := &index{pv: map[string]*PersistentVolume{}, pvc: map[string]*PersistentVolumeClaim{},
		node: map[string]*Node{}, csiNode: map[string]*CSINode{}, driver: map[string]*CSIDriver{},
		sc: map[string]*StorageClass{}, pod: map[string]*Pod{}, va: map[string]*VolumeAttachment{},
		vaByPV: map[string][]*VolumeAttachment{}, vaByNode: map[string][]*VolumeAttachment{}, file: map[string]*File{}}
	for i := range s.Files {
		x.file[s.Files[i].Path] = &s.Files[i]
	}
	// Aliases first, PV names last: the name of a PV always finds that PV.
	for _, pv := range s.PersistentVolumes {
		for _, n := range []string{pv.VolumeID, pv.Handle(), pv.UniqueName()} {
			if n != "" {
				x.pv[n] = pv
			}
		}
	}
	for _, pv := range s.PersistentVolumes {
		x.pv[pv.Name] = pv
	}
	for _, c := range s.PersistentVolumeClaims {
		x.pvc[c.Key()] = c
	}
	for _, n := range s.Nodes {
		x.node[n.Name] = n
	}
	for _, n := range s.CSINodes {
		x.csiNode[n.Name] = n
	}
	for _, d := range s.CSIDrivers {
		x.driver[d.Name] = d
	}
	for _, c := range s.StorageClasses {
		x.sc[c.Name] = c
	}
	for _, p := range s.Pods {
		x.pod[p.Key()] = p
	}
	for _, va := range s.VolumeAttachments {
		if old := x.va[va.Name]; old != nil { // a later dump of the same VA replaces it
			x.vaByPV[vaVolume(old)] = remove(x.vaByPV[vaVolume(old)], old)
			x.vaByNode[old.Node] = remove(x.vaByNode[old.Node], old)
		}
		x.va[va.Name] = va
		x.vaByPV[vaVolume(va)] = append(x.vaByPV[vaVolume(va)], va)
		x.vaByNode[va.Node] = append(x.vaByNode[va.Node], va)
	}
	s.idx = x
	return x
}

// vaVolume is the key a VA joins its volume by: its PV name, or the handle
// of an inline volume.
func vaVolume(va *VolumeAttachment) string {
	if va.PV != "" {
		return va.PV
	}
	return va.InlineHandle
}

func remove(vas []*VolumeAttachment, va *VolumeAttachment) []*VolumeAttachment {
	out := vas[:0:0]
	for _, v := range vas {
		if v != va {
			out = append(out, v)
		}
	}
	return out
}

// PV returns the PersistentVolume a log name refers to: its PV name
// (pvc-<uid>), its UniqueName (kubernetes.io/csi/<driver>^<handle>, in-tree
// kubernetes.io/aws-ebs/aws://zone/vol-…), its CSI volume handle or in-tree
// id, or the name of one of its VolumeAttachments (csi-<sha256>). nil when
// the snapshot does not hold it.
func (s *Snapshot) PV(volume string) *PersistentVolume {
	x := s.index()
	if pv := x.pv[volume]; pv != nil {
		return pv
	}
	if va := x.va[volume]; va != nil {
		return x.pv[vaVolume(va)]
	}
	return nil
}

// splitCSIUniqueName splits kubernetes.io/csi/<driver>^<handle>.
func splitCSIUniqueName(u string) (driver, handle string, ok bool) {
	rest, found := strings.CutPrefix(u, "kubernetes.io/csi/")
	if !found {
		return "", "", false
	}
	return strings.Cut(rest, "^")
}

// PVC returns the claim "namespace/name", or nil.
func (s *Snapshot) PVC(key string) *PersistentVolumeClaim { return s.index().pvc[key] }

// Node returns the Node by name (the node name the logs print), or nil.
func (s *Snapshot) Node(name string) *Node { return s.index().node[name] }

// CSINode returns the CSINode of a node, or nil.
func (s *Snapshot) CSINode(node string) *CSINode { return s.index().csiNode[node] }

// CSIDriver returns the CSIDriver object of a driver, or nil.
func (s *Snapshot) CSIDriver(name string) *CSIDriver { return s.index().driver[name] }

// StorageClass returns the StorageClass by name, or nil.
func (s *Snapshot) StorageClass(name string) *StorageClass { return s.index().sc[name] }

// Pod returns the pod "namespace/name", or nil.
func (s *Snapshot) Pod(key string) *Pod { return s.index().pod[key] }

// VolumeAttachment returns the VolumeAttachment by name (csi-<sha256>), or nil.
func (s *Snapshot) VolumeAttachment(name string) *VolumeAttachment { return s.index().va[name] }

// Attachments returns the VolumeAttachments of a volume (any name PV
// accepts, or the handle or UniqueName of an inline volume), in input order.
func (s *Snapshot) Attachments(volume string) []*VolumeAttachment {
	x := s.index()
	if pv := s.PV(volume); pv != nil {
		return x.vaByPV[pv.Name]
	}
	if _, handle, ok := splitCSIUniqueName(volume); ok {
		return x.vaByPV[handle]
	}
	return x.vaByPV[volume]
}

// AttachmentOn returns the VolumeAttachment of a volume on a node, or nil.
func (s *Snapshot) AttachmentOn(volume, node string) *VolumeAttachment {
	for _, va := range s.Attachments(volume) {
		if va.Node == node {
			return va
		}
	}
	return nil
}

// AttachmentsOn returns the VolumeAttachments whose spec.nodeName is node.
func (s *Snapshot) AttachmentsOn(node string) []*VolumeAttachment { return s.index().vaByNode[node] }

// File returns the entry of an input by path, or nil.
func (s *Snapshot) File(path string) *File { return s.index().file[path] }

// Claimant returns the claim bound to a PV: by the claimRef of the PV, or
// the claim whose spec.volumeName is the PV; nil when neither is in the
// snapshot.
func (s *Snapshot) Claimant(pv *PersistentVolume) *PersistentVolumeClaim {
	if pv.Claim.Name != "" {
		if c := s.PVC(pv.Claim.Key()); c != nil {
			return c
		}
	}
	for _, c := range s.PersistentVolumeClaims {
		if c.Volume == pv.Name {
			return c
		}
	}
	return nil
}

// PodsUsing returns the pods whose volumes resolve, through their claims, to
// the volume (any name PV accepts).
func (s *Snapshot) PodsUsing(volume string) []*Pod {
	pv := s.PV(volume)
	if pv == nil {
		return nil
	}
	var out []*Pod
	for _, p := range s.Pods {
		for _, v := range p.Volumes {
			if v.Claim == "" {
				continue
			}
			c := s.PVC(p.Namespace + "/" + v.Claim)
			bound := c != nil && c.Volume == pv.Name ||
				c == nil && pv.Claim.Namespace == p.Namespace && pv.Claim.Name == v.Claim
			if bound {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
