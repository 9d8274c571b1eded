package classifier

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// want is the subset of Event fields a classify case checks. Empty strings
// are checked too (a field that must stay empty), except where noted.
type want struct {
	kind      Kind
	volume    string
	pv        string
	handle    string
	node      string
	pod       string
	uid       string
	code      string
	component string
	origin    string
	reason    string
	detail    string
	attach    string // Attachment
	errPrefix string // Error must start with this ("" = Error not checked)
	backoff   time.Duration
	until     string
	mono      float64
}

const (
	cbsV   = "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz"
	cbsPV  = "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f"
	cbsH   = "disk-7x9qk2mz"
	podB   = "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e"
	vaB    = "csi-47e2661afacd684dd8a1d3236d7dbbf5e16e99f6dc5b879275532fc8b059c239"
	vaA    = "csi-9239c0a1144a95d8ff66f89edfb9703662060c0039e7a66100b722c89c3e693a"
	zoneMs = "rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: disk-7x9qk2mz, 可用区不匹配 (5e2b9c0d7a41), RequestId=0b7c3a52-6f1e-4d8a-9c2b-5e2b9c0d7a41"
)

func TestClassifyCases(t *testing.T) {
	cases := []struct {
		name   string
		file   string
		rest   string // klog text after "] "
		msg    string // JSON msg (when rest is empty)
		kvs    []kv   // JSON pairs
		table  *tableRow
		want   want
		ignore bool // expect ok=false
	}{
		// ---- ≤1.6 glog printf
		{name: "1.6 attach started", file: "reconciler.go",
			rest: `Started AttachVolume for volume "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718" to node "ip-10-0-3-27.ap-northeast-1.compute.internal"`,
			want: want{kind: AttachStarted, volume: "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718", handle: "vol-0a1b2c3d4e5f60718", node: "ip-10-0-3-27.ap-northeast-1.compute.internal", component: ComponentKCM.String()}},
		{name: "1.6 force detach", file: "reconciler.go",
			rest: `Started DetachVolume for volume "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718" from node "ip-10-0-3-15.ap-northeast-1.compute.internal". This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching`,
			want: want{kind: ForceDetach, volume: "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718", handle: "vol-0a1b2c3d4e5f60718", node: "ip-10-0-3-15.ap-northeast-1.compute.internal", component: ComponentKCM.String(), detail: "timeout 6m0s"}},
		{name: "1.6 retry, spec.Name and with:", file: "nestedpendingoperations.go",
			rest: `Operation for "\"kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718\"" failed. No retries permitted until 2017-08-12 03:10:02.234498123 +0000 UTC (durationBeforeRetry 500ms). Error: AttachVolume.Attach failed for volume "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718" (spec.Name: "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f") from node "ip-10-0-3-27.ap-northeast-1.compute.internal" with: error attaching EBS volume "vol-0a1b2c3d4e5f60718" to instance "i-0c6ae60ad1f13fa3d": VolumeInUse: vol-0a1b2c3d4e5f60718 is already attached to an instance`,
			want: want{kind: AttachFailed, volume: "kubernetes.io/aws-ebs/aws://ap-northeast-1a/vol-0a1b2c3d4e5f60718", pv: cbsPV, handle: "vol-0a1b2c3d4e5f60718", node: "ip-10-0-3-27.ap-northeast-1.compute.internal", code: CodeVolumeInUse, component: ComponentKCM.String(), errPrefix: `error attaching EBS volume "vol-0a1b2c3d4e5f60718"`, backoff: 500 * time.Millisecond, until: "2017-08-12 03:10:02.234498123 +0000 UTC"}},
		{name: "1.3 goroutinemap lowercase error:, not in VolumesInUse", file: "goroutinemap.go",
			rest: `Operation for "kubernetes.io/aws-ebs/vol-a8f1ae0c" failed. No retries permitted until 2016-07-29 17:40:17.644903469 +0000 UTC (durationBeforeRetry 2m0s). error: Volume "kubernetes.io/aws-ebs/vol-a8f1ae0c" (spec.Name: "test-volume") pod "3b861bea-55b3-11e6-9909-024f31b825bf" (UID: "3b861bea-55b3-11e6-9909-024f31b825bf") has not yet been added to the list of VolumesInUse in the node's volume status.`,
			want: want{kind: VerifyAttachedFailed, volume: "kubernetes.io/aws-ebs/vol-a8f1ae0c", pv: "test-volume", handle: "vol-a8f1ae0c", uid: "3b861bea-55b3-11e6-9909-024f31b825bf", code: CodeNotInUse, component: ComponentKubelet.String(), backoff: 2 * time.Minute, until: "2016-07-29 17:40:17.644903469 +0000 UTC"}},

		// ---- 1.7–1.23 printf (GenerateMsgDetailed)
		{name: "attach started, trailing blank", file: "reconciler.go",
			rest: `attacherDetacher.AttachVolume started for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") from node "10.0.3.15" `,
			want: want{kind: AttachStarted, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String()}},
		{name: "nil display name", file: "reconciler.go",
			rest: `attacherDetacher.DetachVolume started for volume "nil" (UniqueName: "` + cbsV + `") on node "10.0.3.15" `,
			want: want{kind: DetachStarted, volume: cbsV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String()}},
		{name: "force detach W printf", file: "reconciler.go",
			rest: `attacherDetacher.DetachVolume started for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") on node "10.0.3.15" This volume is not safe to detach, but maxWaitForUnmountDuration 6m0s expired, force detaching`,
			want: want{kind: ForceDetach, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String(), detail: "timeout 6m0s"}},
		{name: "multi-attach used by pods on node", file: "reconciler.go",
			rest: `Multi-Attach error for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") from node "10.0.3.27" Volume is already used by pods default/mysql-0, default/mysql-1 on node 10.0.3.15`,
			want: want{kind: MultiAttach, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.27", code: CodeMultiAttach, component: ComponentKCM.String(), detail: "pods=default/mysql-0,default/mysql-1 attachedTo=10.0.3.15"}},
		{name: "vSphere unique name with blank and brackets", file: "reconciler.go",
			rest: `Multi-Attach error for volume "pvc-2f53fe7e-846c-11e7-addd-0050569ccb52" (UniqueName: "kubernetes.io/vsphere-volume/[vsanDatastore] kubevols/kubernetes-dynamic-pvc-2f53fe7e-846c-11e7-addd-0050569ccb52.vmdk") from node "node3" Volume is already exclusively attached to one node and can't be attached to another`,
			want: want{kind: MultiAttach, volume: "kubernetes.io/vsphere-volume/[vsanDatastore] kubevols/kubernetes-dynamic-pvc-2f53fe7e-846c-11e7-addd-0050569ccb52.vmdk", pv: "pvc-2f53fe7e-846c-11e7-addd-0050569ccb52", handle: "[vsanDatastore] kubevols/kubernetes-dynamic-pvc-2f53fe7e-846c-11e7-addd-0050569ccb52.vmdk", node: "node3", code: CodeMultiAttach, component: ComponentKCM.String()}},
		{name: "detach blocked, 1.22 printf", file: "reconciler.go",
			rest: `Cannot detach volume because it is still mounted for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") on node "10.0.3.15" `,
			want: want{kind: DetachBlockedMounted, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String()}},
		{name: "verify marked detached", file: "operation_generator.go",
			rest: `VerifyVolumesAreAttached determined volume "` + cbsV + `" (spec.Name: "` + cbsPV + `") is no longer attached to node "10.0.3.27", therefore it was marked as detached.`,
			want: want{kind: MarkedDetached, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.27", component: ComponentKCM.String()}},
		{name: "retry 1.19 struct key, quoted error, double DetachVolume prefix", file: "nestedpendingoperations.go",
			rest: `Operation for "{volumeName:` + cbsV + ` podName: nodeName:}" failed. No retries permitted until 2024-08-12 03:14:21.902281466 +0000 UTC m=+259461.902281466 (durationBeforeRetry 500ms). Error: "DetachVolume.Detach failed for volume \"` + cbsPV + `\" (UniqueName: \"` + cbsV + `\") on node \"10.0.3.15\" : DetachVolume failed for volume \"` + cbsPV + `\" (UniqueName: \"` + cbsV + `\") on node \"10.0.3.15\" : volume is still in use by node, according to Node status"`,
			want: want{kind: DetachFailed, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.15", code: CodeStillMounted, component: ComponentKCM.String(), errPrefix: "DetachVolume failed for volume", backoff: 500 * time.Millisecond, until: "2024-08-12 03:14:21.902281466 +0000 UTC m=+259461.902281466", mono: 259461.902281466}},
		{name: "retry ≥1.22 raw error with newlines (mount output)", file: "nestedpendingoperations.go",
			rest: "Operation for \"{volumeName:kubernetes.io/csi/driver.longhorn.io^pvc-bd3c podName: nodeName:}\" failed. No retries permitted until 2023-02-17 12:11:29.160347027 -0600 CST m=+676618.002244475 (durationBeforeRetry 2m2s). Error: MountVolume.MountDevice failed for volume \"pvc-bd3c\" (UniqueName: \"kubernetes.io/csi/driver.longhorn.io^pvc-bd3c\") pod \"keycloakdb-postgresql-0\" (UID: \"ee7d\") : rpc error: code = Internal desc = mount failed: exit status 32\nMounting command: mount\nOutput: mount: wrong fs type",
			want: want{kind: MountDeviceFailed, volume: "kubernetes.io/csi/driver.longhorn.io^pvc-bd3c", pv: "pvc-bd3c", handle: "pvc-bd3c", pod: "keycloakdb-postgresql-0", uid: "ee7d", code: CodeWrongFSType, component: ComponentKubelet.String(), errPrefix: "rpc error: code = Internal desc = mount failed: exit status 32\nMounting command", backoff: 122 * time.Second, until: "2023-02-17 12:11:29.160347027 -0600 CST m=+676618.002244475", mono: 676618.002244475}},
		{name: "retry with unknown inner operation → retry-scheduled", file: "nestedpendingoperations.go",
			rest: `Operation for "{volumeName:` + cbsV + ` podName:8e1d nodeName:}" failed. No retries permitted until 2024-08-12 03:14:21 +0000 UTC m=+1.5 (durationBeforeRetry 1s). Error: something odd happened`,
			want: want{kind: RetryScheduled, volume: cbsV, handle: cbsH, uid: "8e1d", component: ComponentKubelet.String(), errPrefix: "something odd happened", backoff: time.Second, until: "2024-08-12 03:14:21 +0000 UTC m=+1.5", mono: 1.5}},
		{name: "kubelet printf controller attach succeeded", file: "operation_generator.go",
			rest: `Controller attach succeeded for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") pod "mysql-0" (UID: "` + podB + `") device path: "` + vaB + `"`,
			want: want{kind: VerifyAttachedSucceeded, volume: cbsV, pv: cbsPV, handle: cbsH, pod: "mysql-0", uid: podB, attach: vaB, component: ComponentKubelet.String(), detail: "device path " + vaB}},
		{name: "TearDown (OuterVolumeSpecName, pod = UID)", file: "operation_generator.go",
			rest: `UnmountVolume.TearDown succeeded for volume "` + cbsV + `" (OuterVolumeSpecName: "data") pod "` + podB + `" (UID: "` + podB + `"). InnerVolumeSpecName "` + cbsPV + `". PluginName "kubernetes.io/csi", VolumeGidValue ""`,
			want: want{kind: TeardownSucceeded, volume: cbsV, pv: cbsPV, handle: cbsH, uid: podB, component: ComponentKubelet.String()}},
		{name: "unable to attach or mount, printf 1.17+", file: "kubelet.go",
			rest: `Unable to attach or mount volumes for pod "mysql-0_default(` + podB + `)": unmounted volumes=[data], unattached volumes=[data default-token-r8x2q]: timed out waiting for the condition; skipping pod`,
			want: want{kind: MountTimeout, pod: "default/mysql-0", uid: podB, code: CodeDeadlineExceeded, component: ComponentKubelet.String(), detail: "unmounted volumes=[data] unattached volumes=[data default-token-r8x2q]", errPrefix: "timed out waiting for the condition"}},

		{name: "≤1.9 pod wait timeout, ns/name quoted apart", file: "kubelet.go",
			rest: `timeout expired waiting for volumes to attach/mount for pod "default"/"app". list of unattached/unmounted volumes=[data]`,
			want: want{kind: MountTimeout, pod: "default/app", code: CodeDeadlineExceeded, component: ComponentKubelet.String(), detail: "unattached/unmounted volumes=[data]"}},
		{name: "safe-to-detach skipped, node gone", file: "operation_generator.go",
			rest: `Node not found on API server. DetachVolume will skip safe to detach check for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") on node "10.0.3.15" `,
			want: want{kind: DetachVerifiedSafe, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String(), detail: "safe-to-detach check skipped: node not found"}},
		{name: "≤1.6 detach failed to start, with err:", file: "reconciler.go",
			rest: `operationExecutor.DetachVolume failed to start for volume "kubernetes.io/aws-ebs/vol-1abcdef" (spec.Name: "pv-1") from node "n1" with err: Failed to create operation with name "kubernetes.io/aws-ebs/vol-1abcdef". An operation with that name is already executing.`,
			want: want{kind: DetachStartFailed, volume: "kubernetes.io/aws-ebs/vol-1abcdef", pv: "pv-1", handle: "vol-1abcdef", node: "n1", code: CodeAlreadyExecuting, component: ComponentKCM.String(), errPrefix: "Failed to create operation"}},
		{name: "unrecognised volume sentence → unknown with fields", file: "reconciler.go",
			rest: `attacherDetacher.FooVolume happened for volume "p" (UniqueName: "kubernetes.io/csi/d^h") on node "n"`,
			want: want{kind: Unknown, volume: "kubernetes.io/csi/d^h", pv: "p", handle: "h", node: "n", reason: `unrecognised volume message: attacherDetacher.FooVolume happened for volume "p" (UniqueName: "kubernetes.io/c…`}},

		// ---- events
		{name: "legacy event FailedAttachVolume", file: "event.go",
			rest: `Event(v1.ObjectReference{Kind:"Pod", Namespace:"default", Name:"mysql-0", UID:"3f2b", APIVersion:"v1", ResourceVersion:"48213977", FieldPath:""}): type: 'Warning' reason: 'FailedAttachVolume' AttachVolume.Attach failed for volume "` + cbsPV + `" : ` + zoneMs,
			want: want{kind: AttachFailed, pv: cbsPV, pod: "default/mysql-0", uid: "3f2b", code: CodeZoneNotMatch, component: ComponentKCM.String(), origin: OriginEvent.String(), reason: "FailedAttachVolume", errPrefix: "rpc error: code = Internal"}},
		{name: "structured event multi-attach", file: "event.go",
			rest: `"Event occurred" object="default/mysql-0" fieldPath="" kind="Pod" apiVersion="v1" type="Warning" reason="FailedAttachVolume" message="Multi-Attach error for volume \"` + cbsPV + `\" Volume is already exclusively attached to one node and can't be attached to another"`,
			want: want{kind: MultiAttach, pv: cbsPV, pod: "default/mysql-0", code: CodeMultiAttach, component: ComponentKCM.String(), origin: OriginEvent.String(), reason: "FailedAttachVolume"}},
		{name: "future Waiting for detach event", file: "event.go",
			rest: `"Event occurred" object="default/mysql-0" kind="Pod" apiVersion="v1" type="Warning" reason="FailedAttachVolume" message="Waiting for detach for volume \"` + cbsPV + `\" Volume is already exclusively attached to one node, waiting on detach before it can be attached to another node"`,
			want: want{kind: MultiAttach, pv: cbsPV, pod: "default/mysql-0", code: CodeMultiAttach, component: ComponentKCM.String(), origin: OriginEvent.String(), reason: "FailedAttachVolume"}},
		{name: "event about a node is not a volume event", file: "event.go",
			rest:   `Event(v1.ObjectReference{Kind:"Node", Namespace:"", Name:"node2", UID:"14b8", APIVersion:"", ResourceVersion:"", FieldPath:""}): type: 'Normal' reason: 'RemovingNode' Node node2 event: Removing Node node2 from NodeController`,
			ignore: true},
		{name: "JSON event with KObj object", file: "event.go", msg: "Event occurred",
			kvs:  []kv{{"object", `{"name":"mysql-0","namespace":"default"}`}, {"kind", "Pod"}, {"type", "Warning"}, {"reason", "FailedMount"}, {"message", `MountVolume.MountDevice failed for volume "` + cbsPV + `" : rpc error: code = Internal desc = can not find diskId disk-7x9qk2mz by serial`}},
			want: want{kind: MountDeviceFailed, pv: cbsPV, handle: cbsH, pod: "default/mysql-0", code: CodeSerialNotFound, component: ComponentKubelet.String(), origin: OriginEvent.String(), reason: "FailedMount", errPrefix: "rpc error"}},

		// ---- 1.24–1.27 InfoS with %+v dumps
		{name: "1.27 detach started struct dump", file: "reconciler.go",
			rest: `"attacherDetacher.DetachVolume started" volume={AttachedVolume:{VolumeName:` + cbsV + ` VolumeSpec:0xc0012a4b70 NodeName:10.0.3.15 PluginIsAttachable:true DevicePath: DeviceMountPath: PluginName: SELinuxMountContext:} MountedByNode:false DetachRequestedTime:2024-08-12 03:14:10.812034511 +0000 UTC m=+259450.812034511}`,
			want: want{kind: DetachStarted, volume: cbsV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String()}},
		{name: "1.24 attach started with pod dump", file: "reconciler.go",
			rest: `"attacherDetacher.AttachVolume started" volume={VolumeToAttach:{MultiAttachErrorReported:false VolumeName:` + cbsV + ` VolumeSpec:0xc0023f8a50 NodeName:10.0.3.27 ScheduledPods:[&Pod{ObjectMeta:{mysql-0 mysql- default  ` + podB + ` 48214398 0 2024-08-12 03:14:09 +0000 UTC <nil> <nil> map[app:mysql] map[] ...`,
			want: want{kind: AttachStarted, volume: cbsV, handle: cbsH, node: "10.0.3.27", pod: "default/mysql-0", component: ComponentKCM.String()}},
		{name: "vSphere name in a struct dump", file: "reconciler.go",
			rest: `"attacherDetacher.DetachVolume started" volume={AttachedVolume:{VolumeName:kubernetes.io/vsphere-volume/[ds] kubevols/x.vmdk VolumeSpec:0xc0012a4b70 NodeName:node2 PluginIsAttachable:true} MountedByNode:false}`,
			want: want{kind: DetachStarted, volume: "kubernetes.io/vsphere-volume/[ds] kubevols/x.vmdk", handle: "[ds] kubevols/x.vmdk", node: "node2", component: ComponentKCM.String()}},
		{name: "1.24 force detach, Info level", file: "reconciler.go",
			rest: `"attacherDetacher.DetachVolume started: this volume is not safe to detach, but maxWaitForUnmountDuration expired, force detaching" duration="6m0s" volume={AttachedVolume:{VolumeName:` + cbsV + ` VolumeSpec:0xc0012a4b70 NodeName:10.0.3.15 PluginIsAttachable:true DevicePath: DeviceMountPath: PluginName:} MountedByNode:true DetachRequestedTime:2024-08-12 03:14:10.812034511 +0000 UTC m=+259450.812034511}`,
			want: want{kind: ForceDetach, volume: cbsV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String(), detail: "timeout 6m0s"}},
		{name: "1.27 multi-attach attachedTo list", file: "reconciler.go",
			rest: `"Multi-Attach error: volume is already exclusively attached and can't be attached to another node" attachedTo=[10.0.3.15] volume={VolumeToAttach:{MultiAttachErrorReported:false VolumeName:` + cbsV + ` VolumeSpec:0xc0023f8a50 NodeName:10.0.3.27 ScheduledPods:[]}}`,
			want: want{kind: MultiAttach, volume: cbsV, handle: cbsH, node: "10.0.3.27", code: CodeMultiAttach, component: ComponentKCM.String(), detail: "attachedTo=10.0.3.15"}},
		{name: "1.27 keys", file: "reconciler.go",
			rest: `"attacherDetacher.AttachVolume started" volumeName="` + cbsV + `" nodeName="10.0.3.27" scheduledPods=[default/mysql-0]`,
			want: want{kind: AttachStarted, volume: cbsV, handle: cbsH, node: "10.0.3.27", pod: "default/mysql-0", component: ComponentKCM.String()}},

		// ---- ≥1.28 contextual
		{name: "out-of-service force detach", file: "reconciler.go",
			rest: `"attacherDetacher.DetachVolume started: node has out-of-service taint, force detaching" logger="persistentvolume-attach-detach-controller" node="10.0.3.15" volumeName="` + cbsV + `"`,
			want: want{kind: ForceDetach, volume: cbsV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String(), detail: "out-of-service"}},
		{name: "JSON-era multi-attach used by pods", file: "reconciler.go",
			rest: `"Multi-Attach error: volume is already used by pods" logger="persistentvolume-attach-detach-controller" pods=["default/mysql-0"] attachedTo=["10.0.3.15"] volume={"MultiAttachErrorReported":false,"VolumeName":"` + cbsV + `","NodeName":"10.0.3.27","VolumeSpec":{"Volume":null}}`,
			want: want{kind: MultiAttach, volume: cbsV, handle: cbsH, node: "10.0.3.27", code: CodeMultiAttach, component: ComponentKCM.String(), detail: "pods=default/mysql-0 attachedTo=10.0.3.15"}},
		{name: "future Waiting for detach log", file: "reconciler.go",
			rest: `"Waiting for detach: volume is in use by pods" logger="persistentvolume-attach-detach-controller" pods=["default/mysql-0"] attachedTo=["10.0.3.15"] volumeName="` + cbsV + `"`,
			want: want{kind: MultiAttach, volume: cbsV, handle: cbsH, code: CodeMultiAttach, component: ComponentKCM.String(), detail: "pods=default/mysql-0 attachedTo=10.0.3.15"}},
		{name: "failed to start, err first", file: "reconciler.go",
			rest: `"attacherDetacher.AttachVolume failed to start" err="Failed to create operation with name {volumeName:` + cbsV + ` podName: nodeName:}. An operation with that name is already executing." logger="persistentvolume-attach-detach-controller" volumeName="` + cbsV + `" nodeName="10.0.3.27" scheduledPods=["default/mysql-0"]`,
			want: want{kind: AttachStartFailed, volume: cbsV, handle: cbsH, node: "10.0.3.27", pod: "default/mysql-0", code: CodeAlreadyExecuting, component: ComponentKCM.String(), errPrefix: "Failed to create operation"}},
		{name: "started controller", file: "controllermanager.go",
			rest: `"Started controller" controller="persistentvolume-attach-detach-controller"`,
			want: want{kind: ControllerStarted, component: ComponentKCM.String(), detail: "attach detach controller: started controller"}},
		{name: "newest Starting controller", file: "attach_detach_controller.go",
			rest: `"Starting controller" logger="persistentvolume-attach-detach-controller" controller="persistentvolume-attach-detach-controller"`,
			want: want{kind: ControllerStarted, component: ComponentKCM.String(), detail: "attach detach controller: starting controller"}},
		{name: "other controller is ignored", file: "controllermanager.go",
			rest: `"Started controller" controller="garbage-collector-controller"`, ignore: true},
		{name: "controller manager starting its controllers (1.19 printf)", file: "controllermanager.go",
			rest: `Started "nodelifecycle"`,
			want: want{kind: ControllerStarted, component: ComponentKCM.String(), detail: `controller manager starting controllers: Started "nodelifecycle"`}},
		{name: "controller manager starting the ADC (printf)", file: "controllermanager.go",
			rest: `Started "attachdetach"`,
			want: want{kind: ControllerStarted, component: ComponentKCM.String(), detail: "attach detach controller: started controller"}},
		{name: "reflector watch close names a volume type, not a volume", file: "reflector.go",
			rest: `k8s.io/client-go/informers/factory.go:134: Watch close - *v1.VolumeAttachment total 12 items received`, ignore: true},
		{name: "PV binding is another subsystem", file: "pv_controller.go",
			rest: `"Volume entered phase" volumeName="pvc-a41c7f20-3e5b-4d9a-8c71-6b2e9f0d1a53" phase="Bound"`, ignore: true},
		{name: "informer cache sync for the ADC is not an operation", file: "shared_informer.go",
			rest: `Caches are synced for attach detach`, ignore: true},
		{name: "leader election", file: "leaderelection.go",
			rest: `successfully acquired lease kube-system/kube-controller-manager`,
			want: want{kind: ControllerStarted, component: ComponentKCM.String(), detail: "leader election: acquired lease kube-system/kube-controller-manager"}},
		{name: "kubelet InfoS sentence with pod key, multi-line err block", file: "kubelet.go",
			rest: "\"Unable to attach or mount volumes for pod; skipping pod\" err=<\n\tunmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: context deadline exceeded\n >\npod=\"default/mysql-0\"",
			want: want{kind: MountTimeout, pod: "default/mysql-0", code: CodeDeadlineExceeded, component: ComponentKubelet.String(), detail: "unmounted volumes=[data] unattached volumes=[] failed to process volumes=[]", errPrefix: "context deadline exceeded"}},

		// ---- JSON format
		{name: "JSON detach started node KObj", file: "reconciler.go", msg: "attacherDetacher.DetachVolume started",
			kvs:  []kv{{"logger", "persistentvolume-attach-detach-controller"}, {"node", `{"name":"10.0.3.15"}`}, {"volumeName", cbsV}},
			want: want{kind: DetachStarted, volume: cbsV, handle: cbsH, node: "10.0.3.15", component: ComponentKCM.String()}},
		{name: "JSON printf message with trailing newline", file: "operation_generator.go",
			msg:  `AttachVolume.Attach succeeded for volume "` + cbsPV + `" (UniqueName: "` + cbsV + `") from node "10.0.3.27" ` + "\n",
			want: want{kind: AttachSucceeded, volume: cbsV, pv: cbsPV, handle: cbsH, node: "10.0.3.27", component: ComponentKCM.String()}},

		// ---- CSI plugin, driver, sidecar
		{name: "csi attach timeout", file: "csi_attacher.go",
			rest: `kubernetes.io/csi: Attach timeout after 2m0s [volume=vol-0ddf92e13636fa667; attachment.ID=` + vaA + `]`,
			want: want{kind: CSIError, handle: "vol-0ddf92e13636fa667", attach: vaA, code: CodeDeadlineExceeded, component: ComponentKCM.String(), detail: "attach", errPrefix: "Attach timeout"}},
		{name: "external-attacher Error processing", file: "csi_handler.go",
			rest: `Error processing "` + vaA + `": failed to attach: rpc error: code = Internal desc = Bad response statusCode [500]`,
			want: want{kind: CSIError, attach: vaA, code: CodeInternal, component: ComponentCSI.String(), detail: "attach", errPrefix: "rpc error: code = Internal"}},
		{name: "external-attacher old printf Attached", file: "csi_handler.go",
			rest: `Attached "` + vaA + `"`,
			want: want{kind: CSIAttached, attach: vaA, component: ComponentCSI.String()}},
		{name: "CBS ownership check", file: "controller.go",
			rest: `disk disk-7x9qk2mz is already attached to node ins-e5f6g7h8, assuming the disk is detached form node ins-a1b2c3d4`,
			want: want{kind: CSIDetached, handle: cbsH, node: "ins-a1b2c3d4", component: ComponentCSI.String(), detail: "skipped: disk disk-7x9qk2mz is already attached to node ins-e5f6g7h8, assuming the disk is detached form node ins-a1b2c3d4"}},
		// In-tree plugin lines are the plugin layer below the operation
		// executor: mapped to the CSI* kinds (driver level), component kcm
		// because they run inside the KCM. The cinder "node" on attach is an
		// OpenStack instance id, so it goes to Detail, not Node.
		{name: "cinder in-tree attach ok", file: "attacher.go",
			rest: `Attach operation successful: volume "98886632-9bd3-4bf3-b7af-e9be279d0308" attached to node "d0ac9769-fa0a-4e0f-b0f0-d644aa055569".`,
			want: want{kind: CSIAttached, handle: "98886632-9bd3-4bf3-b7af-e9be279d0308", component: ComponentKCM.String(), detail: "instance d0ac9769-fa0a-4e0f-b0f0-d644aa055569"}},

		// ---- bookkeeping and ASW
		{name: "set detach request time", file: "actual_state_of_world.go",
			rest: `Set detach request time to current time for volume kubernetes.io/cinder/1571fadb-8d3d-46ee-b93b-9212856092a9 on node "kube-dev-node-1-1"`,
			want: want{kind: DetachRequested, volume: "kubernetes.io/cinder/1571fadb-8d3d-46ee-b93b-9212856092a9", handle: "1571fadb-8d3d-46ee-b93b-9212856092a9", node: "kube-dev-node-1-1", component: ComponentKCM.String()}},

		// ---- describe rows
		{name: "describe kubelet, node row", table: &tableRow{Type: "Warning", Reason: "FailedMount", From: "kubelet, 10.0.3.27", Count: 4,
			Message: `MountVolume.MountDevice failed for volume "` + cbsPV + `" : rpc error: code = Internal desc = can not find diskId disk-7x9qk2mz by serial`},
			want: want{kind: MountDeviceFailed, pv: cbsPV, handle: cbsH, node: "10.0.3.27", code: CodeSerialNotFound, component: ComponentEvents.String(), origin: OriginDescribe.String(), reason: "FailedMount", errPrefix: "rpc error"}},
		{name: "describe row, volume in single quotes (AKS paste)", table: &tableRow{Type: "Normal", Reason: "SuccessfulAttachVolume", From: "attachdetach-controller",
			Message: `AttachVolume.Attach succeeded for volume '` + cbsPV + `'`},
			want: want{kind: AttachSucceeded, pv: cbsPV, component: ComponentEvents.String(), origin: OriginDescribe.String(), reason: "SuccessfulAttachVolume"}},
		{name: "describe Scheduled row is not a volume event", table: &tableRow{Type: "Normal", Reason: "Scheduled", From: "default-scheduler", Message: "Successfully assigned default/app to ip-172-18-26-100.ec2.internal"},
			ignore: true},

		// ---- unrelated lines
		{name: "orphaned volumes dir", file: "kubelet_volumes.go",
			rest: `"Cleaned up orphaned pod volumes dir" podUID=1d055e1c-0611-4c28-8a7b-69a982af2424 path="/var/lib/kubelet/pods/1d055e1c-0611-4c28-8a7b-69a982af2424/volumes"`, ignore: true},
		{name: "exec/attach streaming", file: "server.go",
			rest: `Error while proxying request: failed to attach to container: exec/attach stream closed`, ignore: true},
		{name: "logrus ping", msg: "Wrote ping", ignore: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := &record{File: tc.file, Rest: tc.rest, Msg: tc.msg, KV: tc.kvs, Table: tc.table}
			ev, ok := Classify(rec)
			if tc.ignore {
				if ok {
					t.Fatalf("want ok=false, got %s%s", ev.Kind, eventFields(ev))
				}
				return
			}
			if !ok {
				t.Fatal("want ok=true, got ok=false")
			}
			w := tc.want
			check := func(field, got, want string) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %q, want %q", field, got, want)
				}
			}
			check("kind", ev.Kind.String(), w.kind.String())
			check("volume", ev.Volume, w.volume)
			check("pv", ev.PV, w.pv)
			check("handle", ev.Handle, w.handle)
			check("node", ev.Node, w.node)
			check("pod", ev.Pod, w.pod)
			check("uid", ev.PodUID, w.uid)
			check("code", ev.Code, w.code)
			check("component", ev.Component.String(), w.component)
			check("origin", ev.Origin.String(), w.origin)
			check("reason", ev.Reason, w.reason)
			check("attachment", ev.Attachment, w.attach)
			if w.detail != "" || ev.Kind == MultiAttach || ev.Kind == ForceDetach {
				check("detail", ev.Detail, w.detail)
			}
			if w.errPrefix != "" && !strings.HasPrefix(ev.Error, w.errPrefix) {
				t.Errorf("error = %q, want prefix %q", ev.Error, w.errPrefix)
			}
			if w.backoff != 0 || w.until != "" {
				if ev.Retry == nil {
					t.Fatalf("retry = nil, want backoff %v", w.backoff)
				}
				if ev.Retry.Backoff != w.backoff || ev.Retry.Until != w.until || ev.Retry.Mono != w.mono {
					t.Errorf("retry = %+v, want {%v %q %v}", *ev.Retry, w.backoff, w.until, w.mono)
				}
			}
			if t.Failed() {
				t.Logf("got %s%s", ev.Kind, eventFields(ev))
			}
		})
	}
}

// TestClassifyExamplesKnown: every record of testdata/catalog/examples.log
// classifies to a kind other than Unknown. Justified exceptions (ok=false):
// the describe "Scheduled" row (not a volume event).
func TestClassifyExamplesKnown(t *testing.T) {
	recs := testRecords(t, testReadFile(t, filepath.Join("..", "..", "testdata", "catalog", "examples.log")))
	if len(recs) < 100 {
		t.Fatalf("only %d records read from examples.log", len(recs))
	}
	ignored := map[string]bool{"Scheduled": true}
	for _, r := range recs {
		ev, ok := Classify(r.rec)
		switch {
		case !ok && r.rec.Table != nil && ignored[r.rec.Table.Reason]:
		case !ok:
			t.Errorf("line %d: ok=false: %s", r.line, clip(r.text, 160))
		case ev.Kind == Unknown:
			t.Errorf("line %d: unknown (%s): %s", r.line, ev.Reason, clip(r.text, 160))
		case ev.Retry == nil && strings.Contains(r.text, "No retries permitted"):
			t.Errorf("line %d: retry line without Retry", r.line)
		}
	}
}

// TestClassifyRealLogsUnknown pins the number of Unknown events per real log.
// Every line of the real logs that is volume related is understood, so all
// counts are zero; a new unknown must be justified here.
func TestClassifyRealLogsUnknown(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real-logs", "*.log"))
	if len(files) == 0 {
		t.Fatal("no real logs under testdata/real-logs")
	}
	wantUnknown := map[string]int{
		// csi-attacher "Found NodeID se04 in CSINode se04" (csi_handler.go):
		// names a node, no volume or operation.
		"044-longhorn-stern-mixed-pods-aborted-is-attaching.log": 1,
	}
	for _, f := range files {
		_, kinds, _ := classifyDump(t, f)
		name := filepath.Base(f)
		if got := kinds[Unknown]; got != wantUnknown[name] {
			t.Errorf("%s: %d unknown events, want %d", name, got, wantUnknown[name])
		}
	}
}

// TestClassifyNoPanic feeds truncated and mangled variants of every example
// line to classify.
func TestClassifyNoPanic(t *testing.T) {
	recs := testRecords(t, testReadFile(t, filepath.Join("..", "..", "testdata", "catalog", "examples.log")))
	for _, r := range recs {
		s := r.rec.Rest
		if s == "" {
			s = r.rec.Msg
		}
		for _, cut := range []int{1, 2, 5, 17, 40, 80, len(s) / 2, len(s) - 1} {
			if cut <= 0 || cut >= len(s) {
				continue
			}
			Classify(&record{Rest: s[:cut]})
			Classify(&record{Rest: s[cut:]})
			Classify(&record{Msg: s[:cut], KV: []kv{{"volume", s[cut:]}, {"err", s[:cut]}}})
		}
	}
	Classify(nil)
	Classify(&record{})
}

// TestDoubleQuoteVolume: a volume name in single quotes is double-quoted
// when it is whole on its line and the text has no double-quoted one;
// anything else is left as it is.
func TestDoubleQuoteVolume(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"single quotes":        {`Attach succeeded for volume 'pvc-1'`, `Attach succeeded for volume "pvc-1"`},
		"at the start":         {`volume 'pvc-1' is busy`, `volume "pvc-1" is busy`},
		"after a line break":   {"Attach succeeded for\nvolume 'pvc-1'", "Attach succeeded for\nvolume \"pvc-1\""},
		"already double":       {`for volume "pvc-1" and volume 'x'`, `for volume "pvc-1" and volume 'x'`},
		"part of a word":       {`subvolume 'pvc-1'`, `subvolume 'pvc-1'`},
		"unterminated":         {`for volume 'pvc-1`, `for volume 'pvc-1`},
		"ends on another line": {"for volume 'pvc-\n1'", "for volume 'pvc-\n1'"},
		"holds a double quote": {`for volume 'a"b'`, `for volume 'a"b'`},
		"empty":                {`for volume ''`, `for volume ''`},
		"no volume":            {`Successfully assigned default/app to node-1`, `Successfully assigned default/app to node-1`},
	} {
		if got := doubleQuoteVolume(tc.in); got != tc.want {
			t.Errorf("%s: doubleQuoteVolume(%q) = %q, want %q", name, tc.in, got, tc.want)
		}
	}
}
