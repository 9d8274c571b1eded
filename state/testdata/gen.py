#!/usr/bin/env python3
"""Writes the seed-legacy cluster dump (testdata/incidents/seed-legacy) as
kubectl would print it: seed-legacy/state.json (kubectl get -A -o json of
mixed kinds), seed-legacy/state.yaml (the same List as -o yaml),
seed-legacy/events.json (core/v1 EventList) and seed-legacy/events.yaml
(events.k8s.io/v1). The dump is taken at 04:10Z, after the last log line.
The same kinds of dump (state.json, state.yaml, events.json) are written for
the other seed scenarios: seed-1.28/ (the seed-legacy story logged by a
>=1.28 KCM, so the same objects, its Events in the newer driver wording) and
seed-2021/ (the original incident: db/redis-master-0, disk-rhtsqync, node A
172.28.16.10 in ap-guangzhou-2, node B 172.28.1.72 and the disk in
ap-guangzhou-3, taken with its describe.txt at 19:09:20 +08:00).
Run from this directory: python3 gen.py"""
import json, yaml

DRV = "com.tencent.cloud.csi.cbs"
ZK = "topology.com.tencent.cloud.csi.cbs/zone"
A, B, C = "10.0.3.15", "10.0.3.27", "10.0.3.41"
V1, H1 = "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f", "disk-7x9qk2mz"
V2, H2 = "pvc-a41c7f20-3e5b-4d9a-8c71-6b2e9f0d1a53", "disk-4k8m2p1q"
TAKEN = "2024-08-12T04:10:02Z"

def managed(t): return [{"manager": "kube-controller-manager", "operation": "Update", "time": t}]

def pv(name, handle, claim, uid, zone, ns="default", created="2024-08-01T02:00:00Z", bound="2024-08-01T02:00:05Z"):
    return {"apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": name, "uid": uid, "creationTimestamp": created,
            "annotations": {"pv.kubernetes.io/provisioned-by": DRV},
            "finalizers": ["kubernetes.io/pv-protection", "external-attacher/com-tencent-cloud-csi-cbs"],
            "managedFields": managed(bound)},
        "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"},
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "namespace": ns, "name": claim},
            "csi": {"driver": DRV, "volumeHandle": handle, "fsType": "ext4"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": ZK, "operator": "In", "values": [zone]}]}]}},
            "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "cbs", "volumeMode": "Filesystem"},
        "status": {"phase": "Bound"}}

def pvc(name, vol, ns="default", created="2024-08-01T01:59:58Z", selected=A):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": created,
            "annotations": {"pv.kubernetes.io/bind-completed": "yes", "volume.kubernetes.io/selected-node": selected},
            "finalizers": ["kubernetes.io/pvc-protection"]},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
            "storageClassName": "cbs", "volumeMode": "Filesystem", "volumeName": vol},
        "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"}, "phase": "Bound"}}

def unique(h): return "kubernetes.io/csi/%s^%s" % (DRV, h)

def node(name, zone, attached, unschedulable=False, created="2024-08-05T02:11:09Z", ready="2024-08-05T02:12:09Z", taken=TAKEN):
    n = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "creationTimestamp": created,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                "failure-domain.beta.kubernetes.io/zone": {"ap-guangzhou-2": "100002", "ap-guangzhou-3": "100003", "ap-guangzhou-4": "100004"}[zone],
                ZK: zone},
            "annotations": {"csi.volume.kubernetes.io/nodeid": json.dumps({DRV: "ins-" + name.replace(".", "")})}},
        "spec": {"providerID": "qcloud:///100004/ins-" + name.replace(".", "")},
        "status": {"allocatable": {"cpu": "3920m", "memory": "6857Mi", "pods": "61"},
            "addresses": [{"type": "InternalIP", "address": name}, {"type": "Hostname", "address": name}],
            "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                "lastHeartbeatTime": taken, "lastTransitionTime": ready}],
            "volumesAttached": [{"name": unique(h), "devicePath": ""} for h in attached],
            "volumesInUse": [unique(h) for h in attached]}}
    if unschedulable:
        n["spec"]["unschedulable"] = True
    if not attached:
        del n["status"]["volumesAttached"], n["status"]["volumesInUse"]
    return n

def csinode(name, zone, created="2024-08-05T02:11:20Z"):
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
        "metadata": {"name": name, "creationTimestamp": created},
        "spec": {"drivers": [{"name": DRV, "nodeID": "ins-" + name.replace(".", ""),
            "topologyKeys": [ZK], "allocatable": {"count": 20}}]}}

def va(handle, pvname, nodename, created):
    import hashlib
    return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
        "metadata": {"name": "csi-" + hashlib.sha256((handle + DRV + nodename).encode()).hexdigest(),
            "creationTimestamp": created, "finalizers": ["external-attacher/com-tencent-cloud-csi-cbs"],
            "annotations": {"csi.alpha.kubernetes.io/node-id": "ins-" + nodename.replace(".", "")},
            "managedFields": managed(created)},
        "spec": {"attacher": DRV, "nodeName": nodename, "source": {"persistentVolumeName": pvname}},
        "status": {"attached": True}}

def pod(name, uid, claim, nodename, ns="default", created="2024-08-12T03:52:30Z", volume="data", phase=None):
    return {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": uid, "creationTimestamp": created},
        "spec": {"nodeName": nodename, "volumes": [
            {"name": volume, "persistentVolumeClaim": {"claimName": claim}},
            {"name": "kube-api-access-x", "projected": {"sources": []}}]},
        "status": {"phase": phase or ("Pending" if name == "mysql-0" else "Running")}}

objs = [
    pv(V1, H1, "data-mysql-0", "5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f", "ap-guangzhou-4"),
    pv(V2, H2, "data-redis-0", "a41c7f20-3e5b-4d9a-8c71-6b2e9f0d1a53", "ap-guangzhou-4"),
    pvc("data-mysql-0", V1), pvc("data-redis-0", V2),
    node(A, "ap-guangzhou-3", []), node(B, "ap-guangzhou-4", [H1, H2]), node(C, "ap-guangzhou-4", [], True),
    csinode(A, "ap-guangzhou-3"), csinode(B, "ap-guangzhou-4"), csinode(C, "ap-guangzhou-4"),
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRV},
        "spec": {"attachRequired": True, "podInfoOnMount": False, "volumeLifecycleModes": ["Persistent"]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "cbs"},
        "provisioner": DRV, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
        "parameters": {"diskType": "CLOUD_PREMIUM"}},
    pod("mysql-0", "5a9c7e3d-2b1f-4c8a-9e6d-7f0a1b2c3d4e", "data-mysql-0", B),
    pod("redis-0", "0c9b8a7d-6e5f-4d3c-9b2a-1f0e9d8c7b6a", "data-redis-0", B),
    va(H1, V1, B, "2024-08-12T03:45:09Z"),
    va(H2, V2, B, "2024-08-12T03:50:48Z"),
]
lst = {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}
open("seed-legacy/state.json", "w").write(json.dumps(lst, indent=4) + "\n")
open("seed-legacy/state.yaml", "w").write(yaml.safe_dump(lst, default_flow_style=False, sort_keys=True))

def ref(name, uid): return {"apiVersion": "v1", "kind": "Pod", "namespace": "default", "name": name, "uid": uid}
zmsg = ("AttachVolume.Attach failed for volume \"%s\" : rpc error: code = Internal desc = [TencentCloudSDKError] "
        "Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: %s, 可用区不匹配 (5e2b9c0d7a41), RequestId=413c9497-d987-4b3a-9fa2-31a30f5c68c3") % (V1, H1)
core = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
    {"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "mysql-0.17eab1c2d3e4f5a6", "namespace": "default", "creationTimestamp": "2024-08-12T03:10:01Z"},
        "involvedObject": ref("mysql-0", "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e"), "reason": "FailedAttachVolume",
        "message": zmsg, "type": "Warning", "count": 24, "firstTimestamp": "2024-08-12T03:10:01Z",
        "lastTimestamp": "2024-08-12T03:43:06Z", "source": {"component": "attachdetach-controller"},
        "eventTime": None, "reportingComponent": "", "reportingInstance": ""},
    {"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "mysql-0.17eab3a0b1c2d3e4", "namespace": "default", "creationTimestamp": "2024-08-12T03:45:13Z"},
        "involvedObject": ref("mysql-0", "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e"), "reason": "SuccessfulAttachVolume",
        "message": "AttachVolume.Attach succeeded for volume \"%s\" " % V1, "type": "Normal", "count": 1,
        "firstTimestamp": "2024-08-12T03:45:13Z", "lastTimestamp": "2024-08-12T03:45:13Z",
        "source": {"component": "attachdetach-controller"}}]}
open("seed-legacy/events.json", "w").write(json.dumps(core, indent=4, ensure_ascii=False) + "\n")
new = [{"apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "mysql-0.17eab4f0a1b2c3d4", "namespace": "default", "creationTimestamp": "2024-08-12T03:52:41Z"},
        "eventTime": "2024-08-12T03:52:41.118237Z", "reportingController": "kubelet", "reportingInstance": B,
        "action": "", "reason": "FailedMount", "type": "Warning",
        "regarding": ref("mysql-0", "5a9c7e3d-2b1f-4c8a-9e6d-7f0a1b2c3d4e"),
        "note": "MountVolume.WaitForAttach failed for volume \"%s\" : can not find diskId %s by serial" % (V1, H1),
        "series": {"count": 14, "lastObservedTime": "2024-08-12T04:06:59.017187Z"},
        "deprecatedFirstTimestamp": "2024-08-12T03:52:41Z", "deprecatedLastTimestamp": "2024-08-12T04:06:59Z",
        "deprecatedCount": 14, "deprecatedSource": {"component": "kubelet", "host": B}}]
open("seed-legacy/events.yaml", "w").write("".join("---\n" + yaml.safe_dump(e, allow_unicode=True, sort_keys=True) for e in new))

# kubectl describe pod mysql-0 at the dump time: the Events table repeats
# the Event objects above with relative ages (duration.HumanDuration).
from datetime import datetime, timezone
def at(s): return datetime.strptime(s[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
def human(d):
    s = int(d.total_seconds())
    if s < 120: return "%ds" % s
    m = s // 60
    if m < 10: return "%dm%ds" % (m, s % 60) if s % 60 else "%dm" % m
    if m < 180: return "%dm" % m
    h = m // 60
    return "%dh%dm" % (h, m % 60) if h < 8 and m % 60 else "%dh" % h
def age(e, first, last, count):
    a = human(at(TAKEN) - at(last))
    return a if count <= 1 else "%s (x%d over %s)" % (a, count, human(at(TAKEN) - at(first)))
rows = [("Warning", "FailedAttachVolume", age(None, "2024-08-12T03:10:01Z", "2024-08-12T03:43:06Z", 24), "attachdetach-controller", zmsg),
    ("Normal", "SuccessfulAttachVolume", age(None, "2024-08-12T03:45:13Z", "2024-08-12T03:45:13Z", 1), "attachdetach-controller",
        "AttachVolume.Attach succeeded for volume \"%s\" " % V1),
    ("Warning", "FailedMount", age(None, "2024-08-12T03:52:41Z", "2024-08-12T04:06:59Z", 14), "kubelet",
        "MountVolume.WaitForAttach failed for volume \"%s\" : can not find diskId %s by serial" % (V1, H1))]
w = [max(len(r[i]) for r in rows + [("Type", "Reason", "Age", "From", "Message")]) for i in range(4)]
def row(r): return "  " + "  ".join(r[i].ljust(w[i]) for i in range(4)) + "  " + r[4]
table = [row(("Type", "Reason", "Age", "From", "Message")), row(("----", "------", "----", "----", "-------"))]
open("seed-legacy/describe-pod.txt", "w").write("\n".join([
    "Name:             mysql-0", "Namespace:        default", "Priority:         0", "Node:             %s/%s" % (B, B),
    "Start Time:       Mon, 12 Aug 2024 03:52:30 +0000", "Status:           Pending", "Volumes:", "  data:",
    "    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
    "    ClaimName:  data-mysql-0", "    ReadOnly:   false", "Events:"] + table + [row(r) for r in rows]) + "\n")

def write_dump(d, objs, events):
    """state.json, state.yaml (kubectl get -o json|yaml of a List) and
    events.json (a core/v1 EventList) in directory d."""
    import os
    os.makedirs(d, exist_ok=True)
    l = {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}
    open(d + "/state.json", "w").write(json.dumps(l, indent=4) + "\n")
    open(d + "/state.yaml", "w").write(yaml.safe_dump(l, default_flow_style=False, sort_keys=True))
    e = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": events}
    open(d + "/events.json", "w").write(json.dumps(e, indent=4, ensure_ascii=False) + "\n")

def event(name, ns, involved, reason, typ, msg, count, first, last, component, host=None):
    src = {"component": component}
    if host:
        src["host"] = host
    return {"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": ns, "creationTimestamp": first},
        "involvedObject": involved, "reason": reason, "message": msg, "type": typ, "count": count,
        "firstTimestamp": first, "lastTimestamp": last, "source": src,
        "eventTime": None, "reportingComponent": "", "reportingInstance": ""}

# seed-1.28: the same cluster and objects as seed-legacy; the Events carry
# the >=1.28 driver's wording (Aborted wrapping the ZoneNotMatch).
z128 = ("AttachVolume.Attach failed for volume \"%s\" : rpc error: code = Aborted desc = attachVolume %s failed, err: "
        "[rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: %s, "
        "可用区不匹配 (5e2b9c0d7a41), RequestId=413c9497-d987-4b3a-9fa2-31a30f5c68c3]") % (V1, H1, H1)
mysql = ref("mysql-0", "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e")
write_dump("seed-1.28", objs, [
    event("mysql-0.17eab1c2d3e4f5a6", "default", mysql, "FailedAttachVolume", "Warning", z128, 24,
        "2024-08-12T03:10:01Z", "2024-08-12T03:43:06Z", "attachdetach-controller"),
    event("mysql-0.17eab3a0b1c2d3e4", "default", mysql, "SuccessfulAttachVolume", "Normal",
        "AttachVolume.Attach succeeded for volume \"%s\" " % V1, 1,
        "2024-08-12T03:45:13Z", "2024-08-12T03:45:13Z", "attachdetach-controller")])

# seed-2021: Jan 13 2021, all log clocks +08:00 CST; the objects in UTC.
A21, B21 = "172.28.16.10", "172.28.1.72"
V3, H3 = "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36", "disk-rhtsqync"
T21 = "2021-01-13T11:09:20Z"
C21 = "redis-data-redis-master-0"
redis = {"apiVersion": "v1", "kind": "Pod", "namespace": "db", "name": "redis-master-0",
    "uid": "d41f9c7e-2a3b-4c5d-8e6f-7a8b9c0d1e2f"}
z21 = ("AttachVolume.Attach failed for volume \"%s\" : rpc error: code = Internal desc = [TencentCloudSDKError] "
       "Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: %s, 可用区不匹配 (6c0a1d9e3b27), "
       "RequestId=3fa21855-bb80-4435-95c7-545af96d1075") % (V3, H3)
n21 = dict(created="2020-11-20T03:00:00Z", ready="2020-11-20T03:01:00Z", taken=T21)
write_dump("seed-2021", [
    pv(V3, H3, C21, "2708bf81-6678-4999-9ca2-9a8d2eae3c36", "ap-guangzhou-3", ns="db",
        created="2020-12-02T06:40:14Z", bound="2020-12-02T06:40:15Z"),
    pvc(C21, V3, ns="db", created="2020-12-02T06:40:11Z", selected=B21),
    node(A21, "ap-guangzhou-2", [], **n21), node(B21, "ap-guangzhou-3", [H3], **n21),
    csinode(A21, "ap-guangzhou-2", created="2020-11-20T03:00:20Z"),
    csinode(B21, "ap-guangzhou-3", created="2020-11-20T03:00:20Z"),
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": DRV},
        "spec": {"attachRequired": True, "podInfoOnMount": False, "volumeLifecycleModes": ["Persistent"]}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "cbs"},
        "provisioner": DRV, "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
        "parameters": {"diskType": "CLOUD_PREMIUM"}},
    pod("redis-master-0", redis["uid"], C21, B21, ns="db", created="2021-01-13T09:50:55Z",
        volume="redis-data", phase="Running"),
    va(H3, V3, B21, "2021-01-13T09:50:56Z"),
], [
    event("redis-master-0.165a0c3e1f2d4b5a", "db", redis, "FailedAttachVolume", "Warning", z21, 47,
        "2021-01-13T08:27:16Z", "2021-01-13T09:48:54Z", "attachdetach-controller"),
    event("redis-master-0.165a10b7c8d9e0f1", "db", redis, "SuccessfulAttachVolume", "Normal",
        "AttachVolume.Attach succeeded for volume \"%s\" " % V3, 1,
        "2021-01-13T09:51:08Z", "2021-01-13T09:51:08Z", "attachdetach-controller"),
    event("redis-master-0.165a10baf1e2d3c4", "db", redis, "FailedMount", "Warning",
        "MountVolume.MountDevice failed for volume \"%s\" : rpc error: code = Internal desc = can not find diskId %s by serial" % (V3, H3),
        35, "2021-01-13T09:51:21Z", "2021-01-13T10:47:19Z", "kubelet", host=B21)])
