package timeline

import (
	"slices"
	"strings"

	"github.com/kcmtrace/kcmtrace/state"
)

// Object is one cluster-state object joined to a volume (Options.State):
// what it is, where it was read and what it says.
type Object struct {
	Kind   string // PersistentVolume, PersistentVolumeClaim, VolumeAttachment, Pod
	Name   string // name, or namespace/name
	Source string // "state.json:12"
	Text   string // the evidence line without its source
}

// joinState joins the snapshot's objects to the volumes they describe,
// under the names the logs use (PV name, UniqueName, CSI handle,
// VolumeAttachment csi-<sha256> name; state.Snapshot.PV), and completes a
// volume's PV, handle, driver and VolumeAttachment names from its PV. It
// returns false, with a problem for each dump of volume objects, when the
// logs have volumes and the snapshot holds volume objects but none of them
// joins (a dump of another cluster, or of another time): such a snapshot
// must not become evidence.
func joinState(t *Timeline, snap *state.Snapshot) bool {
	for _, v := range t.Volumes {
		objs := v.Objects()
		pv := stateVolume(snap, v)
		key := v.UniqueName
		if pv != nil {
			key = pv.Name
			if v.PV == "" {
				v.PV = pv.Name
			}
			if v.Handle == "" {
				v.Handle = pv.Handle()
			}
			if v.Driver() == "" {
				v.SetDriver(pv.Driver)
			}
			p := snap.VolumePresence(pv.Name)
			for _, ev := range p.Evidence {
				objs = append(objs, object(ev))
			}
		}
		if key == "" {
			continue
		}
		for _, va := range snap.Attachments(key) {
			objs = append(objs, object(snap.AttachmentEvidence(va)))
			if a := v.Attachments(); !slices.Contains(a, va.Name) {
				v.SetAttachments(append(a, va.Name)) // (a window of Names is capped: a copy)
			}
		}
		for _, pod := range snap.PodsUsing(key) {
			objs = append(objs, Object{Kind: pod.Kind, Name: pod.Key(), Source: pod.Source.String(),
				Text: pod.Kind + " " + pod.Key() + " spec.nodeName=" + pod.Node})
		}
		if objs != nil {
			v.SetObjects(objs)
		}
	}
	if len(t.Volumes) == 0 || t.joined() > 0 ||
		len(snap.PersistentVolumes)+len(snap.VolumeAttachments)+len(snap.PersistentVolumeClaims) == 0 {
		return true
	}
	for _, f := range snap.Files {
		if f.Role == state.RoleState && f.Objects > 0 {
			snap.Problems = append(snap.Problems, state.Problem{Path: f.Path,
				Message: "no volume of the logs is in it (a dump of another cluster, or of another time?): not used as evidence"})
		}
	}
	return false
}

// stateVolume is the PV of a volume in the snapshot, by any of its names.
func stateVolume(snap *state.Snapshot, v *Volume) *state.PersistentVolume {
	for _, n := range append([]string{v.PV, v.UniqueName, v.Handle, v.Key()}, v.Attachments()...) {
		if n == "" {
			continue
		}
		if pv := snap.PV(n); pv != nil {
			return pv
		}
	}
	for _, n := range v.Names() {
		if pv := snap.PV(n); pv != nil {
			return pv
		}
	}
	return nil
}

// object turns an evidence line into an Object.
func object(ev state.Evidence) Object {
	kind, rest, _ := strings.Cut(ev.Text, " ")
	name, _, _ := strings.Cut(rest, " ")
	return Object{Kind: kind, Name: name, Source: ev.Source.String(), Text: ev.Text}
}

// joined is how many volumes have at least one state object.
func (t *Timeline) joined() int {
	n := 0
	for _, v := range t.Volumes {
		if len(v.Objects()) > 0 {
			n++
		}
	}
	return n
}
