package loggen

import (
	"strconv"
	"time"
)

// This file renders the attach/detach/mount lines, one function per message,
// in the three eras (see catalog §3–§5 and testdata/catalog/examples.log).

func (g *gen) emitKCM(t int64)     { g.write(g.kcm, t) }
func (g *gen) emitKubelet(t int64) { g.write(g.kl, t) }

// emitPodLine writes a kubelet line about v's pod: ≥1.21 kubelets add the
// pod="ns/name" key to their InfoS sentences.
func (g *gen) emitPodLine(t int64, e *entry, v *volume) {
	if g.modern {
		e.kobj("pod", v.ns, v.pod)
	}
	g.emitKubelet(t)
}

// detailed appends `<prefix> for volume "P" (UniqueName: "V") <dir> node "N" `.
func detailed(b []byte, prefix string, v *volume, dir, node string) []byte {
	b = append(b, prefix...)
	b = append(b, ` for volume "`...)
	b = append(b, v.pv...)
	b = append(b, `" (UniqueName: "`...)
	b = append(b, v.unique...)
	b = append(b, `") `...)
	b = append(b, dir...)
	b = append(b, ` node "`...)
	b = append(b, node...)
	return append(b, `" `...)
}

// podDetailed appends `<prefix> for volume "P" (UniqueName: "V") pod "name" (UID: "uid") `.
func podDetailed(b []byte, prefix string, pvName, unique, pod, uid string) []byte {
	b = append(b, prefix...)
	b = append(b, ` for volume "`...)
	b = append(b, pvName...)
	b = append(b, `" (UniqueName: "`...)
	b = append(b, unique...)
	b = append(b, `") pod "`...)
	b = append(b, pod...)
	b = append(b, `" (UID: "`...)
	b = append(b, uid...)
	return append(b, `") `...)
}

// byEra picks a caller line number.
func (g *gen) byEra(legacy, modern int) int {
	if g.modern {
		return modern
	}
	return legacy
}

func (g *gen) attachStarted(t int64, v *volume, node string) {
	e := &g.e
	e.reset('I', "reconciler.go", g.byEra(304, 360), "reconciler")
	if !g.modern {
		e.printf = true
		e.msg = detailed(e.msg, "attacherDetacher.AttachVolume started", v, "from", node)
	} else {
		e.logger = adcLogger
		e.msg = append(e.msg, "attacherDetacher.AttachVolume started"...)
		e.str("volumeName", v.unique)
		e.str("nodeName", node)
		e.kobjs("scheduledPods", v.ns, v.pod)
	}
	g.emitKCM(t)
}

func (g *gen) attachSucceeded(t int64, v *volume, node string) {
	e := &g.e
	e.reset('I', "operation_generator.go", g.byEra(360, 298), "operationexecutor")
	e.printf = true
	e.msg = detailed(e.msg, "AttachVolume.Attach succeeded", v, "from", node)
	g.emitKCM(t)
}

func (g *gen) detachStarted(t int64, v *volume, node string) {
	e := &g.e
	e.reset('I', "reconciler.go", g.byEra(221, 264), "reconciler")
	if !g.modern {
		e.printf = true
		e.msg = detailed(e.msg, "attacherDetacher.DetachVolume started", v, "on", node)
	} else {
		e.logger = adcLogger
		e.msg = append(e.msg, "attacherDetacher.DetachVolume started"...)
		e.node("node", node)
		e.str("volumeName", v.unique)
	}
	g.emitKCM(t)
}

func (g *gen) forceDetach(t int64, v *volume, node string) {
	e := &g.e
	if !g.modern {
		e.reset('W', "reconciler.go", 232, "reconciler")
		e.printf = true
		e.msg = detailed(e.msg, "attacherDetacher.DetachVolume started", v, "on", node)
		e.msg = append(e.msg, "This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching"...)
	} else {
		e.reset('I', "reconciler.go", 279, "reconciler")
		e.logger = adcLogger
		e.msg = append(e.msg, "attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching"...)
		e.str("duration", "6m0s")
		e.node("node", node)
		e.str("volumeName", v.unique)
	}
	g.emitKCM(t)
}

func (g *gen) verifiedSafe(t int64, v *volume, node string) {
	e := &g.e
	e.reset('I', "operation_generator.go", g.byEra(1400, 1485), "operationexecutor")
	e.printf = true
	e.msg = detailed(e.msg, "Verified volume is safe to detach", v, "on", node)
	g.emitKCM(t)
}

func (g *gen) detachSucceeded(t int64, v *volume, node string) {
	e := &g.e
	e.reset('I', "operation_generator.go", g.byEra(472, 514), "operationexecutor")
	e.printf = true
	e.msg = detailed(e.msg, "DetachVolume.Detach succeeded", v, "on", node)
	g.emitKCM(t)
}

// multiAttach logs the reconciler's Multi-Attach error for an attach of v to
// node while it is attached to other.
func (g *gen) multiAttach(t int64, v *volume, node, other string, uid string) {
	e := &g.e
	if !g.modern {
		e.reset('W', "reconciler.go", 328, "reconciler")
		e.printf = true
		e.msg = detailed(e.msg, "Multi-Attach error", v, "from", node)
		e.msg = append(e.msg, "Volume is already exclusively attached to node "...)
		e.msg = append(e.msg, other...)
		e.msg = append(e.msg, " and can't be attached to another"...)
	} else {
		e.reset('I', "reconciler.go", 379, "reconciler")
		e.logger = adcLogger
		e.msg = append(e.msg, "Multi-Attach error: volume is already exclusively attached and can't be attached to another node"...)
		e.strs("attachedTo", other)
		e.raw("volume", g.volumeToAttachJSON(v, node, uid))
	}
	g.emitKCM(t)
}

// nestedFailed is the nestedpendingoperations error line of a failed
// operation on the per-volume key; inner is the operation's error text.
func (g *gen) nestedFailed(s *stream, t int64, backoff time.Duration, unique string, inner []byte) {
	e := &g.e
	e.reset('E', "nestedpendingoperations.go", g.byEra(301, 348), "nestedpendingoperations")
	e.printf = true
	b := e.msg
	b = append(b, `Operation for "{volumeName:`...)
	b = append(b, unique...)
	b = append(b, ` podName: nodeName:}" failed. No retries permitted until `...)
	until := t - g.uniform(8*time.Microsecond, 40*time.Microsecond) + int64(backoff)
	b = appendGoTime(b, until, s.procStart)
	b = append(b, " (durationBeforeRetry "...)
	b = appendDuration(b, backoff)
	b = append(b, "). Error: "...)
	if g.modern {
		b = append(b, inner...)
	} else {
		b = strconv.AppendQuote(b, string(inner))
	}
	e.msg = b
	g.write(s, t)
}

func (g *gen) csiAttachFailed(t int64, handle, errText string) {
	e := &g.e
	e.reset('E', "csi_attacher.go", g.byEra(254, 788), "csi")
	e.printf = true
	e.msg = append(e.msg, "kubernetes.io/csi: attachment for "...)
	e.msg = append(e.msg, handle...)
	e.msg = append(e.msg, " failed: "...)
	e.msg = append(e.msg, errText...)
	g.emitKCM(t)
}

// podEvent logs a Kubernetes Event about a pod the way the event broadcaster
// echoes it into the component log.
func (g *gen) podEvent(s *stream, t int64, ns, name, uid, typ, reason, message string) {
	g.objEvent(s, t, ns, name, "Pod", "v1", typ, reason, message)
}

func (g *gen) objEvent(s *stream, t int64, ns, name, kind, apiVersion, typ, reason, message string) {
	e := &g.e
	e.reset('I', "event.go", g.byEra(291, 389), "record")
	e.msg = append(e.msg, "Event occurred"...)
	e.kobj("object", ns, name)
	if g.modern {
		e.str("fieldPath", "")
	}
	e.str("kind", kind)
	e.str("apiVersion", apiVersion)
	e.str("type", typ)
	e.str("reason", reason)
	e.str("message", message)
	if s != nil && s.kubelet {
		e.v = 3
	}
	g.write(s, t)
}

// ---- kubelet ----------------------------------------------------------------

// kubeletLine prepares a kubelet volume-manager line: printf before 1.21,
// InfoS with the whole sentence as message (and pod=) afterwards.
func (g *gen) kubeletLine(level byte, file string, legacyLine, modernLine int, dir string) *entry {
	e := &g.e
	if g.modern && file == "reconciler.go" {
		file = "reconciler_common.go"
	}
	e.reset(level, file, g.byEra(legacyLine, modernLine), dir)
	e.printf = !g.modern
	return e
}

func (g *gen) kVerifyStarted(t int64, v *volume, uid string) {
	e := g.kubeletLine('I', "reconciler.go", 224, 245, "reconciler")
	e.msg = podDetailed(e.msg, "operationExecutor.VerifyControllerAttachedVolume started", v.pv, v.unique, v.pod, uid)
	g.emitPodLine(t, e, v)
}

func (g *gen) kControllerAttached(t int64, v *volume, uid, node string) {
	e := g.kubeletLine('I', "operation_generator.go", 1348, 1617, "operationexecutor")
	e.msg = podDetailed(e.msg, "Controller attach succeeded", v.pv, v.unique, v.pod, uid)
	e.msg = append(e.msg, `device path: "`...)
	if !g.modern {
		e.msg = append(e.msg, attachmentName(v.handle, cbsDriver, node)...)
	}
	e.msg = append(e.msg, '"')
	g.emitPodLine(t, e, v)
}

func (g *gen) kWaitForAttach(t int64, v *volume, uid, node string) {
	e := g.kubeletLine('I', "operation_generator.go", 567, 548, "operationexecutor")
	e.msg = podDetailed(e.msg, "MountVolume.WaitForAttach succeeded", v.pv, v.unique, v.pod, uid)
	e.msg = append(e.msg, `DevicePath "`...)
	e.msg = append(e.msg, attachmentName(v.handle, cbsDriver, node)...)
	e.msg = append(e.msg, '"')
	g.emitPodLine(t, e, v)
}

func (g *gen) kMountStarted(t int64, v *volume, uid string) {
	e := g.kubeletLine('I', "reconciler.go", 224, 218, "reconciler")
	e.msg = podDetailed(e.msg, "operationExecutor.MountVolume started", v.pv, v.unique, v.pod, uid)
	g.emitPodLine(t, e, v)
}

func (g *gen) kMountDeviceOK(t int64, v *volume, uid string) {
	e := g.kubeletLine('I', "operation_generator.go", 596, 580, "operationexecutor")
	e.msg = podDetailed(e.msg, "MountVolume.MountDevice succeeded", v.pv, v.unique, v.pod, uid)
	e.msg = append(e.msg, `device mount path "/var/lib/kubelet/plugins/kubernetes.io/csi/`...)
	if g.modern {
		e.msg = append(e.msg, cbsDriver+"/"...)
		e.msg = append(e.msg, globalMountHash(v.handle)...)
	} else {
		e.msg = append(e.msg, "pv/"...)
		e.msg = append(e.msg, v.pv...)
	}
	e.msg = append(e.msg, `/globalmount"`...)
	g.emitPodLine(t, e, v)
}

func (g *gen) kSetUpOK(t int64, v *volume, uid string) {
	e := g.kubeletLine('I', "operation_generator.go", 657, 721, "operationexecutor")
	e.msg = podDetailed(e.msg, "MountVolume.SetUp succeeded", v.pv, v.unique, v.pod, uid)
	g.emitPodLine(t, e, v)
}

func (g *gen) kUnmountVolume(t int64, v *volume, uid string) {
	e := g.kubeletLine('I', "reconciler.go", 196, 159, "reconciler")
	e.msg = podDetailed(e.msg, "operationExecutor.UnmountVolume started", "data", v.unique, uid, uid)
	g.emitKubelet(t)
}

func (g *gen) kTearDownOK(t int64, v *volume, uid string) {
	e := &g.e
	e.reset('I', "operation_generator.go", g.byEra(797, 803), "operationexecutor")
	e.printf = true
	b := append(e.msg, `UnmountVolume.TearDown succeeded for volume "`...)
	b = append(b, v.unique...)
	b = append(b, `" (OuterVolumeSpecName: "data") pod "`...)
	b = append(b, uid...)
	b = append(b, `" (UID: "`...)
	b = append(b, uid...)
	b = append(b, `"). InnerVolumeSpecName "`...)
	b = append(b, v.pv...)
	b = append(b, `". PluginName "kubernetes.io/csi", VolumeGidValue ""`...)
	e.msg = b
	g.emitKubelet(t)
}

func (g *gen) kUnmountDevice(t int64, v *volume, node string, done bool) {
	var e *entry
	if done {
		e = &g.e
		e.reset('I', "operation_generator.go", g.byEra(911, 1003), "operationexecutor")
		e.printf = true
		e.msg = detailed(e.msg, "UnmountDevice succeeded", v, "on", node)
	} else {
		e = g.kubeletLine('I', "reconciler.go", 312, 288, "reconciler")
		e.msg = detailed(e.msg, "operationExecutor.UnmountDevice started", v, "on", node)
	}
	g.emitKubelet(t)
}

func (g *gen) kVolumeDetached(t int64, v *volume, node string) {
	e := g.kubeletLine('I', "reconciler.go", 319, 299, "reconciler")
	e.msg = detailed(e.msg, "Volume detached", v, "on", node)
	e.msg = append(e.msg, `DevicePath "`...)
	if !g.modern {
		e.msg = append(e.msg, attachmentName(v.handle, cbsDriver, node)...)
	}
	e.msg = append(e.msg, '"')
	g.emitKubelet(t)
}

// kMountDeviceFailed logs one failed MountDevice attempt: the CSI plugin's
// error, the nestedpendingoperations line and the FailedMount event.
func (g *gen) kMountDeviceFailed(t int64, v *volume, uid string, backoff time.Duration, errText string) {
	e := &g.e
	e.reset('E', "csi_attacher.go", g.byEra(306, 392), "csi")
	e.printf = true
	e.msg = append(e.msg, "kubernetes.io/csi: attacher.MountDevice failed: "...)
	e.msg = append(e.msg, errText...)
	g.emitKubelet(t - g.uniform(100*time.Microsecond, 400*time.Microsecond))

	inner := podDetailed(g.scratch[:0], "MountVolume.MountDevice failed", v.pv, v.unique, v.pod, uid)
	inner = append(inner, ": "...)
	inner = append(inner, errText...)
	g.scratch = inner
	g.nestedFailed(g.kl, t, backoff, v.unique, inner)
	g.podEvent(g.kl, t+g.uniform(80*time.Microsecond, 300*time.Microsecond), v.ns, v.pod, uid, "Warning", "FailedMount",
		`MountVolume.MountDevice failed for volume "`+v.pv+`" : `+errText)
}

// kNotAttached logs the kubelet's VerifyControllerAttachedVolume failure while
// the controller has not attached the volume yet.
func (g *gen) kNotAttached(t int64, v *volume, uid string, backoff time.Duration) {
	inner := podDetailed(g.scratch[:0], "Volume not attached according to node status", v.pv, v.unique, v.pod, uid)
	g.scratch = inner
	g.nestedFailed(g.kl, t, backoff, v.unique, inner)
}

func (g *gen) kUnableToMount(t int64, v *volume, uid string) {
	e := &g.e
	if !g.modern {
		e.reset('E', "kubelet.go", 1682, "kubelet")
		e.printf = true
		e.msg = append(e.msg, `Unable to attach or mount volumes for pod "`+v.pod+"_"+v.ns+"("+uid+`)": unmounted volumes=[data], unattached volumes=[data default-token-r8x2q]: timed out waiting for the condition; skipping pod`...)
	} else {
		e.reset('E', "kubelet.go", 2049, "kubelet")
		e.msg = append(e.msg, "Unable to attach or mount volumes for pod; skipping pod"...)
		e.hasErr, e.err = true, "unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: timed out waiting for the condition"
		e.kobj("pod", v.ns, v.pod)
	}
	g.emitKubelet(t)
	g.podEvent(g.kl, t+g.uniform(80*time.Microsecond, 300*time.Microsecond), v.ns, v.pod, uid, "Warning", "FailedMount",
		"Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data kube-api-access-6qz9d]: timed out waiting for the condition")
}

// volumeToAttachJSON is the ≥1.28 JSON encoding of cache.VolumeToAttach that
// the multi-attach line carries: the PV spec and the whole pod, several KB.
func (g *gen) volumeToAttachJSON(v *volume, node, uid string) []byte {
	b := make([]byte, 0, 6<<10)
	b = append(b, `{"MultiAttachErrorReported":false,"VolumeName":`...)
	b = appendJSONString(b, []byte(v.unique))
	b = append(b, `,"VolumeSpec":{"Volume":null,"PersistentVolume":{"metadata":{"name":"`+v.pv+`","uid":"`+randUUID(g.r)+`","resourceVersion":"48213977","creationTimestamp":"2024-07-30T08:14:55Z","labels":{"topology.kubernetes.io/region":"ap-guangzhou","topology.kubernetes.io/zone":"ap-guangzhou-4"},"annotations":{"pv.kubernetes.io/provisioned-by":"`+cbsDriver+`","volume.kubernetes.io/provisioner-deletion-secret-name":"","volume.kubernetes.io/provisioner-deletion-secret-namespace":""},"finalizers":["kubernetes.io/pv-protection","external-attacher/com-tencent-cloud-csi-cbs"],"managedFields":[{"manager":"csi-provisioner","operation":"Update","apiVersion":"v1","time":"2024-07-30T08:14:55Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:pv.kubernetes.io/provisioned-by":{}}},"f:spec":{"f:accessModes":{},"f:capacity":{".":{},"f:storage":{}},"f:claimRef":{},"f:csi":{".":{},"f:driver":{},"f:fsType":{},"f:volumeAttributes":{".":{},"f:diskType":{},"f:storage.kubernetes.io/csiProvisionerIdentity":{}},"f:volumeHandle":{}},"f:nodeAffinity":{".":{},"f:required":{}},"f:persistentVolumeReclaimPolicy":{},"f:storageClassName":{},"f:volumeMode":{}}}}]},"spec":{"capacity":{"storage":"100Gi"},"csi":{"driver":"`+cbsDriver+`","volumeHandle":"`+v.handle+`","fsType":"ext4","volumeAttributes":{"diskType":"CLOUD_PREMIUM","storage.kubernetes.io/csiProvisionerIdentity":"1721969312514-8081-`+cbsDriver+`"}},"accessModes":["ReadWriteOnce"],"claimRef":{"kind":"PersistentVolumeClaim","namespace":"`+v.ns+`","name":"data-`+v.pod+`","uid":"`+v.pv[4:]+`","apiVersion":"v1","resourceVersion":"48211020"},"persistentVolumeReclaimPolicy":"Delete","storageClassName":"cbs-premium","volumeMode":"Filesystem","nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.com.tencent.cloud.csi.cbs/zone","operator":"In","values":["ap-guangzhou-4"]}]}]}}},"status":{"phase":"Bound"}},"ReadOnly":false,"InlineVolumeSpecForCSIMigration":false,"Migrated":false},"NodeName":`...)
	b = appendJSONString(b, []byte(node))
	b = append(b, `,"ScheduledPods":[{"metadata":{"name":"`+v.pod+`","generateName":"ledger-","namespace":"`+v.ns+`","uid":"`+uid+`","resourceVersion":"48214398","creationTimestamp":"2024-08-12T00:00:00Z","labels":{"app":"ledger","controller-revision-hash":"ledger-6d8f7c9b5","statefulset.kubernetes.io/pod-name":"`+v.pod+`"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"ledger","uid":"`+randUUID(g.r)+`","controller":true,"blockOwnerDeletion":true}]},"spec":{"volumes":[{"name":"data","persistentVolumeClaim":{"claimName":"data-`+v.pod+`"}},{"name":"kube-api-access-6qz9d","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],"containers":[{"name":"ledger","image":"registry.example.com/payments/ledger:2.14.3","ports":[{"name":"grpc","containerPort":7443,"protocol":"TCP"}],"env":[{"name":"LEDGER_DATA_DIR","value":"/data"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"2","memory":"4Gi"},"requests":{"cpu":"500m","memory":"2Gi"}},"volumeMounts":[{"name":"data","mountPath":"/data"},{"name":"kube-api-access-6qz9d","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"grpc":{"port":7443,"service":null},"initialDelaySeconds":10,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","serviceAccount":"default","nodeName":"`+node+`","securityContext":{"fsGroup":1000},"hostname":"`+v.pod+`","subdomain":"ledger","schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Pending","conditions":[{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-08-12T00:00:00Z"}],"qosClass":"Burstable"}}]}`...)
	return b
}
