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
	sum := sha256.Sum256([]byte(handle + driver + node))
	return "csi-" + hex.EncodeToString(sum[:])
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
// handle; for in-tree volumes the id without decoration, as the timeline's
// ParseUniqueName derives it (aws://zone/vol-… → vol-…, an Azure disk URI
// with one leading slash).
func (pv *PersistentVolume) Handle() string {
	id := pv.VolumeID
	switch pv.Driver {
	case pluginAWS:
		if i := strings.LastIndexByte(id, '/'); i >= 0 {
			id = id[i+1:]
		}
	case pluginAzure:
		id = "/" + strings.TrimLeft(id, "/")
	}
	return id
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
