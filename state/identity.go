package state

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// In-tree volume plugins whose PVs the package reads.
const (
	pluginAWS     = "kubernetes.io/aws-ebs"
	pluginGCE     = "kubernetes.io/gce-pd"
	pluginCinder  = "kubernetes.io/cinder"
	pluginAzure   = "kubernetes.io/azure-disk"
	pluginVsphere = "kubernetes.io/vsphere-volume"
)

// AttachmentName is the name Kubernetes gives the VolumeAttachment of a CSI
// volume on a node: "csi-" + hex(sha256(handle + driver + node))
// (pkg/volume/csi getAttachmentName; catalog §3.7).
func AttachmentName(handle, driver, node string) string {
	var out [AttachmentNameLen]byte
	PutAttachmentName(&out, handle, driver, node)
	return string(out[:])
}

// AttachmentNameLen is the length of a computed VolumeAttachment name.
const AttachmentNameLen = 4 + 2*sha256.Size

// PutAttachmentName writes AttachmentName(handle, driver, node) to out
// without allocating (the timeline computes one per event).
func PutAttachmentName(out *[AttachmentNameLen]byte, handle, driver, node string) {
	var in [256]byte
	sum := sha256.Sum256(append(append(append(in[:0], handle...), driver...), node...))
	copy(out[:], "csi-")
	hex.Encode(out[4:], sum[:])
}

// ParseUniqueName splits a volume UniqueName into its driver (CSI driver
// name or in-tree plugin name) and backend handle. ok is false when the name
// does not look like a UniqueName.
//
//	kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz → com.tencent.cloud.csi.cbs, disk-7x9qk2mz
//	kubernetes.io/aws-ebs/aws://eu-west-1a/vol-0a1b           → kubernetes.io/aws-ebs, vol-0a1b
//	kubernetes.io/cinder/3c2b…                                → kubernetes.io/cinder, 3c2b…
//	kubernetes.io/vsphere-volume/[ds] kubevols/x.vmdk         → kubernetes.io/vsphere-volume, [ds] kubevols/x.vmdk
func ParseUniqueName(u string) (driver, handle string, ok bool) {
	if rest, found := strings.CutPrefix(u, "kubernetes.io/csi/"); found {
		d, h, hasCaret := strings.Cut(rest, "^")
		if !hasCaret || d == "" {
			return "", "", false
		}
		return d, h, true
	}
	plugin, rest, found := strings.Cut(strings.TrimPrefix(u, "kubernetes.io/"), "/")
	if !strings.HasPrefix(u, "kubernetes.io/") || !found || plugin == "" {
		return "", "", false
	}
	driver = u[:len("kubernetes.io/")+len(plugin)] // "kubernetes.io/" + plugin, without a copy
	return driver, inTreeHandle(driver, rest), true
}

// inTreeHandle is the backend id of an in-tree volume as the logs print it
// on its own: aws://zone/vol-… or vol-… → vol-…; an Azure disk URI
// (//subscriptions/… or /subscriptions/…) with one leading slash; others as
// they are.
func inTreeHandle(plugin, id string) string {
	switch plugin {
	case pluginAWS:
		if i := strings.LastIndexByte(id, '/'); i >= 0 {
			id = id[i+1:]
		}
	case pluginAzure:
		id = "/" + strings.TrimLeft(id, "/")
	}
	return id
}

// CSI reports whether the PV is a CSI volume (its Driver is not an in-tree
// kubernetes.io/ plugin).
func (pv *PersistentVolume) CSI() bool {
	return pv.Driver != "" && !strings.HasPrefix(pv.Driver, "kubernetes.io/")
}

// UniqueName is the name the attach/detach controller and kubelet log for
// the volume: kubernetes.io/csi/<driver>^<handle> for CSI, <plugin>/<id> for
// in-tree volumes (kubernetes.io/aws-ebs/aws://eu-west-1a/vol-…). "" when
// the PV has no attachable source.
func (pv *PersistentVolume) UniqueName() string {
	switch {
	case pv.VolumeID == "":
		return ""
	case pv.CSI():
		return "kubernetes.io/csi/" + pv.Driver + "^" + pv.VolumeID
	default:
		return pv.Driver + "/" + pv.VolumeID
	}
}

// Handle is the backend id the logs print on their own: the CSI volume
// handle; for in-tree volumes the id without decoration, as
// ParseUniqueName derives it (aws://zone/vol-… → vol-…, an Azure disk URI
// with one leading slash).
func (pv *PersistentVolume) Handle() string {
	return inTreeHandle(pv.Driver, pv.VolumeID)
}

// Names lists every name the logs may use for the PV's volume: the PV name,
// the UniqueName, the handle, and the VolumeAttachment name on each given
// node (CSI volumes only). Empty names are left out.
func (pv *PersistentVolume) Names(nodes ...string) []string {
	out := []string{pv.Name}
	for _, n := range []string{pv.UniqueName(), pv.Handle()} {
		if n != "" && n != pv.Name {
			out = append(out, n)
		}
	}
	if pv.CSI() && pv.VolumeID != "" {
		for _, node := range nodes {
			out = append(out, AttachmentName(pv.VolumeID, pv.Driver, node))
		}
	}
	return out
}

// ExpectedName is the name the VolumeAttachment should have for its
// handle, attacher and node, given the handle (from its PV or inline spec);
// "" when the handle is unknown.
func (va *VolumeAttachment) ExpectedName(handle string) string {
	if handle == "" {
		return ""
	}
	return AttachmentName(handle, va.Attacher, va.Node)
}
