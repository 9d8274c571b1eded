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
// volume's PV, handle, driver and VolumeAttachment names from its PV.
func joinState(t *Timeline, snap *state.Snapshot) {
	for _, v := range t.Volumes {
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
			if v.Driver == "" {
				v.Driver = pv.Driver
			}
			p := snap.VolumePresence(pv.Name)
			for _, ev := range p.Evidence {
				v.Objects = append(v.Objects, object(ev))
			}
		}
		if key == "" {
			continue
		}
		for _, va := range snap.Attachments(key) {
			v.Objects = append(v.Objects, object(snap.AttachmentEvidence(va)))
			if !slices.Contains(v.Attachments, va.Name) {
				v.Attachments = append(v.Attachments, va.Name)
			}
		}
		for _, pod := range snap.PodsUsing(key) {
			v.Objects = append(v.Objects, Object{Kind: pod.Kind, Name: pod.Key(), Source: pod.Source.String(),
				Text: pod.Kind + " " + pod.Key() + " spec.nodeName=" + pod.Node})
		}
	}
}

// stateVolume is the PV of a volume in the snapshot, by any of its names.
func stateVolume(snap *state.Snapshot, v *Volume) *state.PersistentVolume {
	for _, n := range append([]string{v.PV, v.UniqueName, v.Handle, v.Key}, v.Attachments...) {
		if n == "" {
			continue
		}
		if pv := snap.PV(n); pv != nil {
			return pv
		}
	}
	for _, n := range v.Names {
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

// Joined reports how many volumes have at least one state object.
func (t *Timeline) Joined() int {
	n := 0
	for _, v := range t.Volumes {
		if len(v.Objects) > 0 {
			n++
		}
	}
	return n
}
