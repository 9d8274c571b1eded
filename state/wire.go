package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The wire structs mirror the API's JSON for the fields kcmtrace reads;
// everything else in an object is ignored by encoding/json. They are
// converted to the model types (model.go) right after decoding.

type wireObject struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Metadata   *wireMeta `json:"metadata"`
}

type wireMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	ResourceVersion   string            `json:"resourceVersion"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
	Finalizers        []string          `json:"finalizers"`
	CreationTimestamp string            `json:"creationTimestamp"`
	DeletionTimestamp string            `json:"deletionTimestamp"`
	ManagedFields     []struct {
		Time string `json:"time"`
	} `json:"managedFields"`
}

type wireRef struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	UID        string `json:"uid"`
	FieldPath  string `json:"fieldPath"`
}

type wireVolumeError struct {
	Time    string `json:"time"`
	Message string `json:"message"`
}

type wireVA struct {
	Spec struct {
		Attacher string `json:"attacher"`
		NodeName string `json:"nodeName"`
		Source   struct {
			PersistentVolumeName *string `json:"persistentVolumeName"`
			InlineVolumeSpec     *struct {
				CSI *struct {
					Driver       string `json:"driver"`
					VolumeHandle string `json:"volumeHandle"`
				} `json:"csi"`
			} `json:"inlineVolumeSpec"`
		} `json:"source"`
	} `json:"spec"`
	Status struct {
		Attached           bool              `json:"attached"`
		AttachError        *wireVolumeError  `json:"attachError"`
		DetachError        *wireVolumeError  `json:"detachError"`
		AttachmentMetadata map[string]string `json:"attachmentMetadata"`
	} `json:"status"`
}

type wireSelectorTerm struct {
	MatchExpressions []wireRequirement `json:"matchExpressions"`
	MatchFields      []wireRequirement `json:"matchFields"`
}

type wireRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

type wirePV struct {
	Spec struct {
		AccessModes                   []string          `json:"accessModes"`
		Capacity                      map[string]string `json:"capacity"`
		StorageClassName              string            `json:"storageClassName"`
		PersistentVolumeReclaimPolicy string            `json:"persistentVolumeReclaimPolicy"`
		VolumeMode                    string            `json:"volumeMode"`
		ClaimRef                      *wireRef          `json:"claimRef"`
		NodeAffinity                  *struct {
			Required *struct {
				NodeSelectorTerms []wireSelectorTerm `json:"nodeSelectorTerms"`
			} `json:"required"`
		} `json:"nodeAffinity"`
		CSI *struct {
			Driver       string `json:"driver"`
			VolumeHandle string `json:"volumeHandle"`
			FSType       string `json:"fsType"`
		} `json:"csi"`
		AWSElasticBlockStore *struct {
			VolumeID string `json:"volumeID"`
			FSType   string `json:"fsType"`
		} `json:"awsElasticBlockStore"`
		GCEPersistentDisk *struct {
			PDName string `json:"pdName"`
			FSType string `json:"fsType"`
		} `json:"gcePersistentDisk"`
		Cinder *struct {
			VolumeID string `json:"volumeID"`
			FSType   string `json:"fsType"`
		} `json:"cinder"`
		AzureDisk *struct {
			DiskURI string `json:"diskURI"`
			FSType  string `json:"fsType"`
		} `json:"azureDisk"`
		VsphereVolume *struct {
			VolumePath string `json:"volumePath"`
			FSType     string `json:"fsType"`
		} `json:"vsphereVolume"`
	} `json:"spec"`
	Status struct {
		Phase   string `json:"phase"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
	} `json:"status"`
}

type wirePVC struct {
	Spec struct {
		VolumeName       string   `json:"volumeName"`
		StorageClassName *string  `json:"storageClassName"`
		AccessModes      []string `json:"accessModes"`
		VolumeMode       string   `json:"volumeMode"`
		Resources        struct {
			Requests map[string]string `json:"requests"`
		} `json:"resources"`
	} `json:"spec"`
	Status struct {
		Phase       string            `json:"phase"`
		AccessModes []string          `json:"accessModes"`
		Capacity    map[string]string `json:"capacity"`
	} `json:"status"`
}

type wireNode struct {
	Spec struct {
		ProviderID    string `json:"providerID"`
		Unschedulable bool   `json:"unschedulable"`
		Taints        []struct {
			Key       string `json:"key"`
			Value     string `json:"value"`
			Effect    string `json:"effect"`
			TimeAdded string `json:"timeAdded"`
		} `json:"taints"`
	} `json:"spec"`
	Status struct {
		Allocatable map[string]string `json:"allocatable"`
		Conditions  []struct {
			Type               string `json:"type"`
			Status             string `json:"status"`
			LastHeartbeatTime  string `json:"lastHeartbeatTime"`
			LastTransitionTime string `json:"lastTransitionTime"`
		} `json:"conditions"`
		Addresses []struct {
			Type    string `json:"type"`
			Address string `json:"address"`
		} `json:"addresses"`
		VolumesAttached []struct {
			Name       string `json:"name"`
			DevicePath string `json:"devicePath"`
		} `json:"volumesAttached"`
		VolumesInUse []string `json:"volumesInUse"`
	} `json:"status"`
}

type wireCSINode struct {
	Spec struct {
		Drivers []struct {
			Name         string   `json:"name"`
			NodeID       string   `json:"nodeID"`
			TopologyKeys []string `json:"topologyKeys"`
			Allocatable  *struct {
				Count *int `json:"count"`
			} `json:"allocatable"`
		} `json:"drivers"`
	} `json:"spec"`
}

type wireCSIDriver struct {
	Spec struct {
		AttachRequired       *bool    `json:"attachRequired"`
		PodInfoOnMount       *bool    `json:"podInfoOnMount"`
		VolumeLifecycleModes []string `json:"volumeLifecycleModes"`
	} `json:"spec"`
}

type wireStorageClass struct {
	Provisioner          string            `json:"provisioner"`
	VolumeBindingMode    string            `json:"volumeBindingMode"`
	ReclaimPolicy        string            `json:"reclaimPolicy"`
	AllowVolumeExpansion *bool             `json:"allowVolumeExpansion"`
	Parameters           map[string]string `json:"parameters"`
	AllowedTopologies    []struct {
		MatchLabelExpressions []struct {
			Key    string   `json:"key"`
			Values []string `json:"values"`
		} `json:"matchLabelExpressions"`
	} `json:"allowedTopologies"`
}

type wirePod struct {
	Spec struct {
		NodeName string `json:"nodeName"`
		Volumes  []struct {
			Name                  string `json:"name"`
			PersistentVolumeClaim *struct {
				ClaimName string `json:"claimName"`
			} `json:"persistentVolumeClaim"`
			Ephemeral *json.RawMessage `json:"ephemeral"`
			CSI       *struct {
				Driver string `json:"driver"`
			} `json:"csi"`
		} `json:"volumes"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

type wireSeries struct {
	Count            int    `json:"count"`
	LastObservedTime string `json:"lastObservedTime"`
}

type wireSource struct {
	Component string `json:"component"`
	Host      string `json:"host"`
}

// wireEvent holds the fields of both Event APIs: core/v1 and events.k8s.io/v1.
type wireEvent struct {
	Type                string      `json:"type"`
	Reason              string      `json:"reason"`
	Action              string      `json:"action"`
	EventTime           string      `json:"eventTime"`
	Series              *wireSeries `json:"series"`
	ReportingController string      `json:"reportingController"` // events.k8s.io/v1
	ReportingComponent  string      `json:"reportingComponent"`  // core/v1
	ReportingInstance   string      `json:"reportingInstance"`
	Related             *wireRef    `json:"related"`

	// core/v1
	Message        string      `json:"message"`
	InvolvedObject *wireRef    `json:"involvedObject"`
	FirstTimestamp string      `json:"firstTimestamp"`
	LastTimestamp  string      `json:"lastTimestamp"`
	Count          int         `json:"count"`
	Source         *wireSource `json:"source"`

	// events.k8s.io/v1
	Note                     string      `json:"note"`
	Regarding                *wireRef    `json:"regarding"`
	DeprecatedFirstTimestamp string      `json:"deprecatedFirstTimestamp"`
	DeprecatedLastTimestamp  string      `json:"deprecatedLastTimestamp"`
	DeprecatedCount          int         `json:"deprecatedCount"`
	DeprecatedSource         *wireSource `json:"deprecatedSource"`
}

// converter turns one object's JSON into a model value; it collects bad
// timestamps as the object's problems instead of failing the object.
type converter struct {
	bad []string
}

// time parses an RFC 3339 (or MicroTime) timestamp; "" is the zero time.
func (c *converter) time(field, s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		c.bad = append(c.bad, fmt.Sprintf("%s %q is not an RFC 3339 time", field, s))
		return time.Time{}
	}
	return t.UTC()
}

func (c *converter) meta(o *wireObject, src Source) Meta {
	m := Meta{Kind: o.Kind, APIVersion: o.APIVersion, Source: src}
	w := o.Metadata
	m.Name, m.Namespace, m.UID, m.ResourceVersion = w.Name, w.Namespace, w.UID, w.ResourceVersion
	m.Labels, m.Annotations, m.Finalizers = w.Labels, w.Annotations, w.Finalizers
	m.Created = c.time("metadata.creationTimestamp", w.CreationTimestamp)
	m.Deleted = c.time("metadata.deletionTimestamp", w.DeletionTimestamp)
	for _, f := range w.ManagedFields {
		if t := c.time("metadata.managedFields.time", f.Time); t.After(m.Managed) {
			m.Managed = t
		}
	}
	return m
}

func ref(w *wireRef) ObjectRef {
	if w == nil {
		return ObjectRef{}
	}
	return ObjectRef{Kind: w.Kind, APIVersion: w.APIVersion, Namespace: w.Namespace, Name: w.Name, UID: w.UID, FieldPath: w.FieldPath}
}

func (c *converter) volumeError(field string, w *wireVolumeError) *VolumeError {
	if w == nil {
		return nil
	}
	return &VolumeError{Time: c.time(field+".time", w.Time), Message: w.Message}
}

// accessModes shortens the API's access mode names the way kubectl does.
func accessModes(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, m := range in {
		switch m {
		case "ReadWriteOnce":
			m = "RWO"
		case "ReadOnlyMany":
			m = "ROX"
		case "ReadWriteMany":
			m = "RWX"
		case "ReadWriteOncePod":
			m = "RWOP"
		}
		out[i] = m
	}
	return out
}

func requirements(terms []wireSelectorTerm) [][]Requirement {
	var out [][]Requirement
	for _, t := range terms {
		var reqs []Requirement
		for _, e := range append(append([]wireRequirement(nil), t.MatchExpressions...), t.MatchFields...) {
			reqs = append(reqs, Requirement(e))
		}
		out = append(out, reqs)
	}
	return out
}

// decodeKind decodes data (one object's JSON) as kind into s. known is false
// for a kind the package does not read.
func (c *converter) decodeKind(s *Snapshot, o *wireObject, data []byte, src Source) (known bool, err error) {
	switch o.Kind {
	case "VolumeAttachment":
		var w wireVA
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		va := &VolumeAttachment{Meta: c.meta(o, src), Attacher: w.Spec.Attacher, Node: w.Spec.NodeName,
			Attached: w.Status.Attached, Metadata: w.Status.AttachmentMetadata}
		if p := w.Spec.Source.PersistentVolumeName; p != nil {
			va.PV = *p
		}
		if in := w.Spec.Source.InlineVolumeSpec; in != nil && in.CSI != nil {
			va.InlineHandle = in.CSI.VolumeHandle
		}
		va.AttachError = c.volumeError("status.attachError", w.Status.AttachError)
		va.DetachError = c.volumeError("status.detachError", w.Status.DetachError)
		s.VolumeAttachments = append(s.VolumeAttachments, va)
	case "PersistentVolume":
		var w wirePV
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		sp := w.Spec
		pv := &PersistentVolume{Meta: c.meta(o, src), AccessModes: accessModes(sp.AccessModes),
			Capacity: sp.Capacity["storage"], StorageClass: sp.StorageClassName,
			ReclaimPolicy: sp.PersistentVolumeReclaimPolicy, VolumeMode: sp.VolumeMode,
			Claim: ref(sp.ClaimRef), Phase: w.Status.Phase, Message: strings.TrimSpace(w.Status.Reason + " " + w.Status.Message)}
		switch {
		case sp.CSI != nil:
			pv.Driver, pv.VolumeID, pv.FSType = sp.CSI.Driver, sp.CSI.VolumeHandle, sp.CSI.FSType
		case sp.AWSElasticBlockStore != nil:
			pv.Driver, pv.VolumeID, pv.FSType = pluginAWS, sp.AWSElasticBlockStore.VolumeID, sp.AWSElasticBlockStore.FSType
		case sp.GCEPersistentDisk != nil:
			pv.Driver, pv.VolumeID, pv.FSType = pluginGCE, sp.GCEPersistentDisk.PDName, sp.GCEPersistentDisk.FSType
		case sp.Cinder != nil:
			pv.Driver, pv.VolumeID, pv.FSType = pluginCinder, sp.Cinder.VolumeID, sp.Cinder.FSType
		case sp.AzureDisk != nil:
			pv.Driver, pv.VolumeID, pv.FSType = pluginAzure, sp.AzureDisk.DiskURI, sp.AzureDisk.FSType
		case sp.VsphereVolume != nil:
			pv.Driver, pv.VolumeID, pv.FSType = pluginVsphere, sp.VsphereVolume.VolumePath, sp.VsphereVolume.FSType
		}
		if na := sp.NodeAffinity; na != nil && na.Required != nil {
			pv.Affinity = requirements(na.Required.NodeSelectorTerms)
		}
		s.PersistentVolumes = append(s.PersistentVolumes, pv)
	case "PersistentVolumeClaim":
		var w wirePVC
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		pvc := &PersistentVolumeClaim{Meta: c.meta(o, src), Volume: w.Spec.VolumeName,
			AccessModes: accessModes(w.Status.AccessModes), Capacity: w.Status.Capacity["storage"],
			VolumeMode: w.Spec.VolumeMode, Phase: w.Status.Phase}
		if w.Spec.StorageClassName != nil {
			pvc.StorageClass = *w.Spec.StorageClassName
		}
		if pvc.AccessModes == nil {
			pvc.AccessModes = accessModes(w.Spec.AccessModes)
		}
		if pvc.Capacity == "" {
			pvc.Capacity = w.Spec.Resources.Requests["storage"]
		}
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, pvc)
	case "Node":
		var w wireNode
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		n := &Node{Meta: c.meta(o, src), ProviderID: w.Spec.ProviderID, Unschedulable: w.Spec.Unschedulable,
			Allocatable: w.Status.Allocatable, InUse: w.Status.VolumesInUse}
		for _, cd := range w.Status.Conditions {
			if cd.Type == "Ready" {
				n.Ready = cd.Status
				n.ReadySince = c.time("status.conditions.lastTransitionTime", cd.LastTransitionTime)
			}
			if t := c.time("status.conditions.lastHeartbeatTime", cd.LastHeartbeatTime); t.After(n.Heartbeat) {
				n.Heartbeat = t
			}
		}
		for _, t := range w.Spec.Taints {
			n.Taints = append(n.Taints, Taint{Key: t.Key, Value: t.Value, Effect: t.Effect, Added: c.time("spec.taints.timeAdded", t.TimeAdded)})
		}
		for _, a := range w.Status.Addresses {
			if n.Addresses == nil {
				n.Addresses = map[string]string{}
			}
			n.Addresses[a.Type] = a.Address
		}
		for _, v := range w.Status.VolumesAttached {
			n.Attached = append(n.Attached, AttachedVolume{Name: v.Name, DevicePath: v.DevicePath})
		}
		s.Nodes = append(s.Nodes, n)
	case "CSINode":
		var w wireCSINode
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		cn := &CSINode{Meta: c.meta(o, src)}
		for _, d := range w.Spec.Drivers {
			nd := CSINodeDriver{Name: d.Name, NodeID: d.NodeID, TopologyKeys: d.TopologyKeys, Allocatable: -1}
			if d.Allocatable != nil && d.Allocatable.Count != nil {
				nd.Allocatable = *d.Allocatable.Count
			}
			cn.Drivers = append(cn.Drivers, nd)
		}
		s.CSINodes = append(s.CSINodes, cn)
	case "CSIDriver":
		var w wireCSIDriver
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		d := &CSIDriver{Meta: c.meta(o, src), AttachRequired: true, Modes: w.Spec.VolumeLifecycleModes}
		if w.Spec.AttachRequired != nil {
			d.AttachRequired = *w.Spec.AttachRequired
		}
		if w.Spec.PodInfoOnMount != nil {
			d.PodInfoOnMount = *w.Spec.PodInfoOnMount
		}
		s.CSIDrivers = append(s.CSIDrivers, d)
	case "StorageClass":
		var w wireStorageClass
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		sc := &StorageClass{Meta: c.meta(o, src), Provisioner: w.Provisioner, BindingMode: w.VolumeBindingMode,
			ReclaimPolicy: w.ReclaimPolicy, Parameters: w.Parameters}
		if sc.BindingMode == "" {
			sc.BindingMode = "Immediate"
		}
		if w.AllowVolumeExpansion != nil {
			sc.AllowExpansion = *w.AllowVolumeExpansion
		}
		for _, t := range w.AllowedTopologies {
			var reqs []Requirement
			for _, e := range t.MatchLabelExpressions {
				reqs = append(reqs, Requirement{Key: e.Key, Operator: "In", Values: e.Values})
			}
			sc.AllowedTopologies = append(sc.AllowedTopologies, reqs)
		}
		s.StorageClasses = append(s.StorageClasses, sc)
	case "Pod":
		var w wirePod
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		p := &Pod{Meta: c.meta(o, src), Node: w.Spec.NodeName, Phase: w.Status.Phase}
		for _, v := range w.Spec.Volumes {
			switch {
			case v.PersistentVolumeClaim != nil:
				p.Volumes = append(p.Volumes, PodVolume{Name: v.Name, Claim: v.PersistentVolumeClaim.ClaimName})
			case v.Ephemeral != nil:
				p.Volumes = append(p.Volumes, PodVolume{Name: v.Name, Claim: p.Name + "-" + v.Name, Ephemeral: true})
			case v.CSI != nil:
				p.Volumes = append(p.Volumes, PodVolume{Name: v.Name, Driver: v.CSI.Driver})
			}
		}
		s.Pods = append(s.Pods, p)
	case "Event":
		var w wireEvent
		if err := json.Unmarshal(data, &w); err != nil {
			return true, err
		}
		s.Events = append(s.Events, c.event(o, &w, src))
	default:
		return false, nil
	}
	return true, nil
}

// event normalises both Event APIs into one record.
func (c *converter) event(o *wireObject, w *wireEvent, src Source) *Event {
	e := &Event{Meta: c.meta(o, src), Type: w.Type, Reason: w.Reason, Action: w.Action, Related: ref(w.Related)}
	e.Message = w.Message
	if e.Message == "" {
		e.Message = w.Note
	}
	e.Involved = ref(w.InvolvedObject)
	if w.InvolvedObject == nil {
		e.Involved = ref(w.Regarding)
	}
	first := c.time("firstTimestamp", w.FirstTimestamp)
	if first.IsZero() {
		first = c.time("deprecatedFirstTimestamp", w.DeprecatedFirstTimestamp)
	}
	eventTime := c.time("eventTime", w.EventTime)
	if first.IsZero() {
		first = eventTime
	}
	if first.IsZero() {
		first = e.Created
	}
	last := time.Time{}
	if w.Series != nil {
		last = c.time("series.lastObservedTime", w.Series.LastObservedTime)
	}
	if last.IsZero() {
		last = c.time("lastTimestamp", w.LastTimestamp)
	}
	if last.IsZero() {
		last = c.time("deprecatedLastTimestamp", w.DeprecatedLastTimestamp)
	}
	if last.IsZero() || last.Before(first) {
		last = first
	}
	e.First, e.Last = first, last
	e.Count = max(w.Count, w.DeprecatedCount, 1)
	if w.Series != nil {
		e.Count = max(e.Count, w.Series.Count)
	}
	e.Component = w.ReportingController
	if e.Component == "" {
		e.Component = w.ReportingComponent
	}
	src2 := w.Source
	if src2 == nil {
		src2 = w.DeprecatedSource
	}
	if e.Component == "" && src2 != nil {
		e.Component = src2.Component
	}
	e.Host = w.ReportingInstance
	if e.Host == "" && src2 != nil {
		e.Host = src2.Host
	}
	return e
}
