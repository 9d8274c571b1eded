#!/usr/bin/env python3
"""Generate testdata/incidents/* from the catalog scenario (kcmtrace).

Times are integers: nanoseconds since the Unix epoch, UTC.
"""
import calendar, hashlib, os, sys

OUT = sys.argv[1]

def ts(y, mo, d, h, mi, s, us=0):
    return (calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) * 10**6 + us) * 1000

SEC = 10**9
MS = 10**6
US = 1000

MON = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

def parts(t, off):
    t2 = t + off * SEC
    secs, ns = divmod(t2, SEC)
    import time as _t
    tm = _t.gmtime(secs)
    return tm, ns

def klog(level, t, off, pid, fl, msg):
    tm, ns = parts(t, off)
    return "%s%02d%02d %02d:%02d:%02d.%06d %7d %s] %s" % (
        level, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns // 1000, pid, fl, msg)

def gotime(t, off, zname, start):
    t = t + (t // 1000) % 997 + 1
    tm, ns = parts(t, off)
    frac = ("%09d" % ns).rstrip("0")
    sign = "+" if off >= 0 else "-"
    o = abs(off)
    s = "%04d-%02d-%02d %02d:%02d:%02d%s %s%02d%02d %s" % (
        tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
        ("." + frac) if frac else "", sign, o // 3600, (o % 3600) // 60, zname)
    m = t - start
    return s + " m=+%d.%09d" % (m // SEC, m % SEC)

def dur(b):
    # Go duration strings for the backoff values used here.
    ms = b // MS
    if ms < 1000:
        return "%dms" % ms
    s = ms // 1000
    if s < 60:
        return "%ds" % s
    return "%dm%ds" % (s // 60, s % 60)

def journald(t, off, host, proc, pid, line):
    tm, _ = parts(t, off)
    return "%s %2d %02d:%02d:%02d %s %s[%d]: %s" % (MON[tm.tm_mon - 1], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, host, proc, pid, line)

def cri(t, line, stream="stderr"):
    tm, ns = parts(t, 0)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ %s F %s" % (tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns, stream, line)

def q(s):
    # Go %q for our ASCII/CJK strings: escape backslash and double quote.
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'

def reqid(seed):
    h = hashlib.sha256(seed.encode()).hexdigest()
    return "%s-%s-4%s-%s-%s" % (h[0:8], h[8:12], h[13:16], "9" + h[17:20], h[20:32])

BACKOFF = [500 * MS, 1 * SEC, 2 * SEC, 4 * SEC, 8 * SEC, 16 * SEC, 32 * SEC, 64 * SEC]
MAXB = 122 * SEC

def backoff(i):
    return BACKOFF[i] if i < len(BACKOFF) else MAXB

def va(handle, driver, node):
    return "csi-" + hashlib.sha256((handle + driver + node).encode()).hexdigest()

class Log:
    def __init__(self):
        self.lines = []  # (t, seq, text)
    def add(self, t, text):
        self.lines.append((t, len(self.lines), text))
    def write(self, path):
        self.lines.sort()
        with open(path, "w") as f:
            for _, _, l in self.lines:
                f.write(l + "\n")

DRV = "com.tencent.cloud.csi.cbs"

def detailed(prefix, name, uniq, tail):
    return '%s for volume "%s" (UniqueName: "%s") %s' % (prefix, name, uniq, tail)

# --------------------------------------------------------------------------------------
# Scenario builder shared by seed-legacy and seed-1.28.
# style: "legacy" (1.20 printf KCM, CST; journald kubelet UTC) or "new" (>=1.28 contextual
# KCM, UTC; CRI kubelet, kubelet clock skewed).

def scenario(style, outdir):
    legacy = style == "legacy"
    KOFF = 8 * 3600 if legacy else 0          # KCM clock UTC offset
    KZ = "CST" if legacy else "UTC"
    KUOFF, KUZ = 0, "UTC"                     # kubelet clock zone
    SKEW = 0 if legacy else -2500 * MS        # kubelet clock error (kubelet clock = true + SKEW)
    kcm_start = ts(2024, 8, 9, 3, 10, 0)
    kl_start = ts(2024, 8, 2, 3, 13, 51, 500000)
    A, B, C = "10.0.3.15", "10.0.3.27", "10.0.3.41"
    P = "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f"
    H = "disk-7x9qk2mz"
    V = "kubernetes.io/csi/%s^%s" % (DRV, H)
    P2 = "pvc-a41c7f20-3e5b-4d9a-8c71-6b2e9f0d1a53"
    H2 = "disk-4k8m2p1q"
    V2 = "kubernetes.io/csi/%s^%s" % (DRV, H2)
    UID_A = "3f2b6c1e-9a4d-4e7b-8c2d-1a2b3c4d5e6f"
    UID_B = "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e"
    UID_B2 = "5a9c7e3d-2b1f-4c8a-9e6d-7f0a1b2c3d4e"
    UID_R1 = "6d0e4b2a-7c1f-4a9e-8b3d-2e5f6a7b8c9d"
    UID_R2 = "0c9b8a7d-6e5f-4d3c-9b2a-1f0e9d8c7b6a"
    kcm, kl = Log(), Log()
    LG = 'logger="persistentvolume-attach-detach-controller"'

    def K(level, t, fl, msg):
        kcm.add(t, klog(level, t, KOFF, 1, fl, msg))

    def L(level, t, fl, msg):
        tl = t + SKEW  # what the kubelet's clock says
        line = klog(level, tl, KUOFF, 2783, fl, msg)
        if legacy:
            kl.add(t, journald(tl, KUOFF, "vm-3-27-centos", "kubelet", 2783, line))
        else:
            kl.add(t, cri(tl + 12 * US + (t % 7) * US, line))

    def kdeadline(t, b):
        return gotime(t - 14 * US + b, KOFF, KZ, kcm_start)

    def ldeadline(t, b):
        return gotime(t + SKEW - 29 * US + b, KUOFF, KUZ, kl_start)

    def zerr(i):
        core = "[TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: %s, 可用区不匹配 (5e2b9c0d7a41), RequestId=%s" % (H, reqid("zone%d" % i))
        if legacy:
            return "rpc error: code = Internal desc = " + core
        return "rpc error: code = Aborted desc = attachVolume %s failed, err: [rpc error: code = Internal desc = %s]" % (H, core)

    if legacy:
        serial = "rpc error: code = Internal desc = can not find diskId %s by serial" % H
    else:
        serial = "rpc error: code = Internal desc = findCBSVolume error cbs disk=/dev/disk/by-id/virtio-%s, error can not find diskId %s by serial" % (H, H)

    def nested_key(v):
        return "{volumeName:%s podName: nodeName:}" % v

    def nested(t, b, err, deadline, fl):
        if legacy:
            return 'Operation for "%s" failed. No retries permitted until %s (durationBeforeRetry %s). Error: %s' % (fl[0], deadline, dur(b), q(err))
        return 'Operation for "%s" failed. No retries permitted until %s (durationBeforeRetry %s). Error: %s' % (fl[0], deadline, dur(b), err)
    NPO = "nestedpendingoperations.go:301" if legacy else "nestedpendingoperations.go:348"

    def event_k(t, obj, kind, api, typ, reason, msg):
        if legacy:
            K("I", t, "event.go:291", '"Event occurred" object="%s" kind="%s" apiVersion="%s" type="%s" reason="%s" message=%s' % (obj, kind, api, typ, reason, q(msg)))
        else:
            K("I", t, "event.go:389", '"Event occurred" object="%s" fieldPath="" kind="%s" apiVersion="%s" type="%s" reason="%s" message=%s' % (obj, kind, api, typ, reason, q(msg)))

    def event_l(t, pod, uid, rv, typ, reason, msg):
        if legacy:
            L("I", t, "event.go:258", 'Event(v1.ObjectReference{Kind:"Pod", Namespace:"default", Name:"%s", UID:"%s", APIVersion:"v1", ResourceVersion:"%s", FieldPath:""}): type: \'%s\' reason: \'%s\' %s' % (pod, uid, rv, typ, reason, msg))
        else:
            L("I", t, "event.go:377", '"Event occurred" object="default/%s" fieldPath="" kind="Pod" apiVersion="v1" type="%s" reason="%s" message=%s' % (pod, typ, reason, q(msg)))

    def attach_started(t, name, v, node, pod):
        if legacy:
            K("I", t, "reconciler.go:304", detailed("attacherDetacher.AttachVolume started", name, v, 'from node "%s" ' % node))
        else:
            K("I", t, "reconciler.go:360", '"attacherDetacher.AttachVolume started" %s volumeName="%s" nodeName="%s" scheduledPods=["%s"]' % (LG, v, node, pod))

    def attach_ok(t, name, v, node, pod):
        K("I", t, "operation_generator.go:370" if legacy else "operation_generator.go:298",
          detailed("AttachVolume.Attach succeeded", name, v, 'from node "%s" ' % node))
        event_k(t + 137 * US, pod, "Pod", "v1", "Normal", "SuccessfulAttachVolume", 'AttachVolume.Attach succeeded for volume "%s" ' % name)

    def detach(t, name, v, node, took):
        if legacy:
            K("I", t, "reconciler.go:221", detailed("attacherDetacher.DetachVolume started", name, v, 'on node "%s" ' % node))
        else:
            K("I", t, "reconciler.go:264", '"attacherDetacher.DetachVolume started" %s node="%s" volumeName="%s"' % (LG, node, v))
        K("I", t + 13676 * US, "operation_generator.go:1578" if legacy else "operation_generator.go:1485",
          detailed("Verified volume is safe to detach", name, v, 'on node "%s" ' % node))
        K("I", t + took, "operation_generator.go:485" if legacy else "operation_generator.go:514",
          detailed("DetachVolume.Detach succeeded", name, v, 'on node "%s" ' % node))

    # ---- KCM noise
    if legacy:
        K("I", ts(2024, 8, 12, 3, 5, 3, 114208), "event.go:291", '"Event occurred" object="default/nginx-6799fc88d8" kind="ReplicaSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: nginx-6799fc88d8-x7k2p"')
        K("I", ts(2024, 8, 12, 3, 6, 2, 331905), "pv_controller.go:879", 'volume "%s" entered phase "Bound"' % P2)
        K("W", ts(2024, 8, 12, 3, 25, 33, 873019), "endpointslice_controller.go:306", 'Error syncing endpoint slices for service "kube-system/kube-dns", retrying. Error: EndpointSlice informer cache is out of date')
        K("I", ts(2024, 8, 12, 3, 30, 0, 226514), "event.go:291", '"Event occurred" object="default/backup-28725930" kind="Job" apiVersion="batch/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: backup-28725930-9ptqz"')
        K("E", ts(2024, 8, 12, 3, 33, 10, 441067), "leaderelection.go:325", 'error retrieving resource lock kube-system/kube-controller-manager: Get "https://10.0.3.2:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=5s": context deadline exceeded')
        K("I", ts(2024, 8, 12, 3, 36, 0, 512330), "event.go:291", '"Event occurred" object="default/backup-28725930" kind="Job" apiVersion="batch/v1" type="Normal" reason="Completed" message="Job completed"')
    else:
        K("I", ts(2024, 8, 12, 3, 5, 3, 114208), "event.go:389", '"Event occurred" object="default/nginx-6799fc88d8" fieldPath="" kind="ReplicaSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: nginx-6799fc88d8-x7k2p"')
        K("I", ts(2024, 8, 12, 3, 6, 2, 331905), "pv_controller.go:932", '"Volume entered phase" %s volumeName="%s" phase="Bound"' % ('logger="persistentvolume-binder-controller"', P2))
        K("I", ts(2024, 8, 12, 3, 25, 33, 873019), "endpointslice_controller.go:325", '"Error syncing endpoint slices for service, retrying" logger="endpointslice-controller" key="kube-system/kube-dns" err="EndpointSlice informer cache is out of date"')
        K("I", ts(2024, 8, 12, 3, 30, 0, 226514), "event.go:389", '"Event occurred" object="default/backup-28725930" fieldPath="" kind="Job" apiVersion="batch/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: backup-28725930-9ptqz"')
        K("E", ts(2024, 8, 12, 3, 33, 10, 441067), "leaderelection.go:347", 'error retrieving resource lock kube-system/kube-controller-manager: Get "https://10.0.3.2:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=5s": context deadline exceeded')
        K("I", ts(2024, 8, 12, 3, 36, 0, 512330), "job_controller.go:566", '"enqueueing job" logger="job-controller" key="default/backup-28725930"')

    # ---- volume 2: initially attached to C
    t = ts(2024, 8, 12, 3, 6, 10, 208117)
    attach_started(t, P2, V2, C, "default/redis-0")
    attach_ok(t + 4 * SEC + 311270 * US, P2, V2, C, "default/redis-0")

    # ---- volume 1: attach storm on A
    t = ts(2024, 8, 12, 3, 10, 0, 612388)
    nfail = 24
    for i in range(nfail):
        attach_started(t, P, V, A, "default/mysql-0")
        tf = t + 1121989 * US + (i % 3) * 7311 * US
        K("E", tf - 135 * US, "csi_attacher.go:254" if legacy else "csi_attacher.go:788", "kubernetes.io/csi: attachment for %s failed: %s" % (H, zerr(i)))
        b = backoff(i)
        err = detailed("AttachVolume.Attach failed", P, V, 'from node "%s" : %s' % (A, zerr(i)))
        K("E", tf, NPO, nested(tf, b, err, kdeadline(tf, b), [nested_key(V)]))
        event_k(tf + 177 * US, "default/mysql-0", "Pod", "v1", "Warning", "FailedAttachVolume", 'AttachVolume.Attach failed for volume "%s" : %s' % (P, zerr(i)))
        t = tf - 14 * US + b + 63 * MS + (i % 4) * 9 * MS
    last_deadline = t
    # The pod is deleted 41 s after the last failure and recreated on B.
    tdel = tf + 41 * SEC + 280124 * US
    event_k(tdel + 1 * SEC, "default/mysql", "StatefulSet", "apps/v1", "Normal", "SuccessfulCreate", "create Pod mysql-0 in StatefulSet mysql successful")
    # the attach to B waits for the backoff left by the failed attaches
    tB = last_deadline  # attach B started
    attach_started(tB, P, V, B, "default/mysql-0")
    tBok = tB + 4 * SEC + 707428 * US
    attach_ok(tBok, P, V, B, "default/mysql-0")
    tDA = tBok + 4 * SEC + 698397 * US
    detach(tDA, P, V, A, 7 * SEC + 122015 * US)

    # ---- kubelet on B: pod arrives
    tv = tdel + 2 * SEC + 899110 * US
    pfx = "reconciler.go:203" if legacy else "reconciler_common.go:245"

    def kl_detailed(level, t, fl, prefix, name, v, pod, uid, suffix=" "):
        msg = detailed(prefix, name, v, 'pod "%s" (UID: "%s")%s' % (pod, uid, suffix))
        if legacy:
            L(level, t, fl, msg)
        else:
            L(level, t, fl, q(msg) + ' pod="default/%s"' % pod)

    def kl_plain(level, t, fl, msg):
        L(level, t, fl, msg if legacy else q(msg))

    def verify_wait(tv, tok, name, v, pod, uid, rv, vaname):
        kl_detailed("I", tv, pfx, "operationExecutor.VerifyControllerAttachedVolume started", name, v, pod, uid)
        # kubelet polls node status with backoff until the controller reports the attach
        i = 0
        tt = tv + 452 * US
        while True:
            b = backoff(i)
            err = detailed("Volume not attached according to node status", name, v, 'pod "%s" (UID: "%s") ' % (pod, uid))
            L("E", tt, NPO, nested(tt, b, err, ldeadline(tt, b), [nested_key(v)]))
            nxt = tt - 29 * US + b + 100 * MS + 21 * US
            if nxt + backoff(i + 1) > tok:
                break
            tt = nxt
            i += 1
        tc = max(nxt, tok + 782314 * US)
        dp = vaname if legacy else ""
        kl_detailed("I", tc, "operation_generator.go:1348" if legacy else "operation_generator.go:1617",
                    "Controller attach succeeded", name, v, pod, uid, ' device path: "%s"' % dp)
        return tc

    def mount_ok(tc, name, v, pod, uid, vaname, device=True):
        if legacy:
            kl_detailed("I", tc + 100 * MS, "reconciler.go:224", "operationExecutor.MountVolume started", name, v, pod, uid)
        kl_detailed("I", tc + 100492 * US, "operation_generator.go:558" if legacy else "operation_generator.go:538",
                    "MountVolume.WaitForAttach entering", name, v, pod, uid, ' DevicePath "%s"' % (vaname if legacy else ""))
        kl_detailed("I", tc + 108811 * US, "operation_generator.go:567" if legacy else "operation_generator.go:548",
                    "MountVolume.WaitForAttach succeeded", name, v, pod, uid, ' DevicePath "%s"' % vaname)
        if device:
            mp = "/var/lib/kubelet/plugins/kubernetes.io/csi/pv/%s/globalmount" % name if legacy else \
                "/var/lib/kubelet/plugins/kubernetes.io/csi/%s/%s/globalmount" % (DRV, hashlib.sha256(v.split("^")[1].encode()).hexdigest())
            kl_detailed("I", tc + 1484002 * US, "operation_generator.go:596" if legacy else "operation_generator.go:580",
                        "MountVolume.MountDevice succeeded", name, v, pod, uid, ' device mount path "%s"' % mp)
        kl_detailed("I", tc + 1549329 * US, "operation_generator.go:657" if legacy else "operation_generator.go:721",
                    "MountVolume.SetUp succeeded", name, v, pod, uid)
        return tc + 1549329 * US

    vaB = va(H, DRV, B)
    tc = verify_wait(tv, tBok, P, V, "mysql-0", UID_B, "48214460", vaB)
    mount_ok(tc, P, V, "mysql-0", UID_B, vaB)

    # ---- volume 2: node C drained at 03:50:10; clean move C -> B (detach first)
    tdrain = ts(2024, 8, 12, 3, 50, 10, 118230)
    event_k(tdrain + 2 * SEC, "default/redis", "StatefulSet", "apps/v1", "Normal", "SuccessfulCreate", "create Pod redis-0 in StatefulSet redis successful")
    tDC = tdrain + 31 * SEC + 440912 * US
    detach(tDC, P2, V2, C, 6 * SEC + 977120 * US)
    tDCok = tDC + 6 * SEC + 977120 * US
    tA2 = tDCok + 98 * MS + 311 * US
    attach_started(tA2, P2, V2, B, "default/redis-0")
    tA2ok = tA2 + 4 * SEC + 96203 * US
    attach_ok(tA2ok, P2, V2, B, "default/redis-0")
    vaB2 = va(H2, DRV, B)
    tc2 = verify_wait(tdrain + 2 * SEC + 981400 * US, tA2ok, P2, V2, "redis-0", UID_R2, "48219003", vaB2)
    mount_ok(tc2, P2, V2, "redis-0", UID_R2, vaB2)

    # ---- volume 1 on B: mysql-0 is restarted by the operator at 03:52:30 (new UID);
    # unmount, then the remount fails: the disk is gone from B.
    tr = ts(2024, 8, 12, 3, 52, 30, 774310)
    if legacy:
        L("I", tr, "reconciler.go:183", detailed("operationExecutor.UnmountVolume started", "data", V, 'pod "%s" (UID: "%s") ' % (UID_B, UID_B)))
        L("I", tr + 127545 * US, "operation_generator.go:782", 'UnmountVolume.TearDown succeeded for volume "%s" (OuterVolumeSpecName: "data") pod "%s" (UID: "%s"). InnerVolumeSpecName "%s". PluginName "kubernetes.io/csi", VolumeGidValue ""' % (V, UID_B, UID_B, P))
        L("I", tr + 227880 * US, "reconciler.go:319", detailed("operationExecutor.UnmountDevice started", P, V, 'on node "%s" ' % B))
        L("I", tr + 839966 * US, "operation_generator.go:893", detailed("UnmountDevice succeeded", P, V, 'on node "%s" ' % B))
    else:
        L("I", tr, "reconciler_common.go:162", q(detailed("operationExecutor.UnmountVolume started", "data", V, 'pod "%s" (UID: "%s") ' % (UID_B, UID_B))))
        L("I", tr + 127545 * US, "operation_generator.go:803", 'UnmountVolume.TearDown succeeded for volume "%s" (OuterVolumeSpecName: "data") pod "%s" (UID: "%s"). InnerVolumeSpecName "%s". PluginName "kubernetes.io/csi", VolumeGidValue ""' % (V, UID_B, UID_B, P))
        L("I", tr + 227880 * US, "reconciler_common.go:288", q(detailed("operationExecutor.UnmountDevice started", P, V, 'on node "%s" ' % B)))
        L("I", tr + 839966 * US, "operation_generator.go:1004", q(detailed("UnmountDevice succeeded", P, V, 'on node "%s" ' % B)))
    tn = tr + 3 * SEC + 201877 * US
    kl_detailed("I", tn, pfx, "operationExecutor.VerifyControllerAttachedVolume started", P, V, "mysql-0", UID_B2)
    kl_detailed("I", tn + 100831 * US, "operation_generator.go:1348" if legacy else "operation_generator.go:1617",
                "Controller attach succeeded", P, V, "mysql-0", UID_B2, ' device path: "%s"' % (vaB if legacy else ""))
    tm = tn + 201102 * US
    nmount = 14
    for i in range(nmount):
        if legacy:
            kl_detailed("I", tm, "reconciler.go:224", "operationExecutor.MountVolume started", P, V, "mysql-0", UID_B2)
        kl_detailed("I", tm + 240 * US, "operation_generator.go:558" if legacy else "operation_generator.go:538",
                    "MountVolume.WaitForAttach entering", P, V, "mysql-0", UID_B2, ' DevicePath "%s"' % (vaB if legacy else ""))
        kl_detailed("I", tm + 8561 * US, "operation_generator.go:567" if legacy else "operation_generator.go:548",
                    "MountVolume.WaitForAttach succeeded", P, V, "mysql-0", UID_B2, ' DevicePath "%s"' % vaB)
        tf = tm + 4616383 * US + (i % 3) * 4117 * US
        if not legacy:
            L("E", tf - 258 * US, "csi_attacher.go:392", "kubernetes.io/csi: attacher.MountDevice failed: " + serial)
        b = backoff(i)
        err = detailed("MountVolume.MountDevice failed", P, V, 'pod "%s" (UID: "%s") : %s' % ("mysql-0", UID_B2, serial))
        L("E", tf, NPO, nested(tf, b, err, ldeadline(tf, b), [nested_key(V)]))
        event_l(tf + 141 * US, "mysql-0", UID_B2, str(48221000 + i), "Warning", "FailedMount", 'MountVolume.MountDevice failed for volume "%s" : %s' % (P, serial))
        tm = tf - 29 * US + b + 100 * MS + (i % 5) * 3 * MS
    # pod-level timeouts every 2m3s
    tu = tn + 123 * SEC + 17 * MS
    while tu < tm:
        if legacy:
            L("E", tu, "kubelet.go:1682", 'Unable to attach or mount volumes for pod "mysql-0_default(%s)": unmounted volumes=[data], unattached volumes=[]: timed out waiting for the condition; skipping pod' % UID_B2)
            L("I", tu + 301 * US, "event.go:258", 'Event(v1.ObjectReference{Kind:"Pod", Namespace:"default", Name:"mysql-0", UID:"%s", APIVersion:"v1", ResourceVersion:"48220917", FieldPath:""}): type: \'Warning\' reason: \'FailedMount\' Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[]: timed out waiting for the condition' % UID_B2)
        else:
            L("E", tu, "pod_workers.go:1298", '"Error syncing pod, skipping" err="unmounted volumes=[data], unattached volumes=[], failed to process volumes=[]: context deadline exceeded" pod="default/mysql-0" podUID="%s"' % UID_B2)
        tu += 123 * SEC + 4 * MS
    # kubelet noise
    L("I", ts(2024, 8, 12, 3, 47, 11, 40022), "kubelet_getters.go:182" if not legacy else "kubelet_getters.go:176", '"Pod status updated" pod="kube-system/kube-proxy-8tq2w" status="Running"' if not legacy else 'Pod status updated for kube-system/kube-proxy-8tq2w')
    L("W", ts(2024, 8, 12, 3, 55, 2, 651993), "container.go:586" if legacy else "container.go:589", 'Failed to update stats for container "/kubepods/burstable/pod%s": unable to determine device info for dir: /var/lib/kubelet/pods: stat failed on /var/lib/kubelet/pods with error: no such file or directory, continuing to push stats' % UID_B)

    os.makedirs(outdir, exist_ok=True)
    kcm.write(os.path.join(outdir, "kcm.log"))
    kl.write(os.path.join(outdir, "kubelet.log"))
    return dict(tB=tB, tBok=tBok, tDA=tDA, nfail=nfail)


# --------------------------------------------------------------------------------------
def seed2021(outdir):
    KOFF = 8 * 3600
    kcm_start = ts(2021, 1, 5, 2, 41, 17, 0)  # KCM up for about a week
    kl_start = ts(2020, 12, 28, 9, 12, 40, 250000)
    A, B = "172.28.16.10", "172.28.1.72"
    P = "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36"
    H = "disk-rhtsqync"
    V = "kubernetes.io/csi/%s^%s" % (DRV, H)
    UID_A = "b6e1f3a2-5c4d-4e8f-9a0b-1c2d3e4f5a6b"
    UID_B = "d41f9c7e-2a3b-4c5d-8e6f-7a8b9c0d1e2f"
    kcm, kl = Log(), Log()

    def K(level, t, fl, msg):
        kcm.add(t, klog(level, t, KOFF, 1, fl, msg))

    def L(level, t, fl, msg):
        kl.add(t, journald(t, KOFF, "172-28-1-72", "kubelet", 1184, klog(level, t, KOFF, 1184, fl, msg)))

    def zerr(i):
        return "rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: %s, 可用区不匹配 (6c0a1d9e3b27), RequestId=%s" % (H, reqid("2021zone%d" % i))
    serial = "rpc error: code = Internal desc = can not find diskId %s by serial" % H

    def ev(t, obj, typ, reason, msg):
        K("I", t, "event.go:291", '"Event occurred" object="%s" kind="Pod" apiVersion="v1" type="%s" reason="%s" message=%s' % (obj, typ, reason, q(msg)))

    K("I", ts(2021, 1, 13, 8, 27, 14, 982114), "event.go:291", '"Event occurred" object="db/redis-master" kind="StatefulSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="create Pod redis-master-0 in StatefulSet redis-master successful"')
    # schedule: attempt starts; the last failure's deadline expires just before the real
    # 17:50:56.616633 attach to B, the extra time spread over the 2m2s gaps.
    start = ts(2021, 1, 13, 8, 27, 15, 316502)
    tB = ts(2021, 1, 13, 9, 50, 56, 616633)
    OPT = 1187402 * US
    gaps = []
    t = start
    i = 0
    while True:
        tf = t + OPT + (i % 3) * 5501 * US
        b = backoff(i)
        nxt = tf - 13 * US + b + 71 * MS + (i % 4) * 11 * MS
        if nxt + OPT + MAXB + 200 * MS > tB:
            break
        gaps.append(nxt)
        t = nxt
        i += 1
    n = i + 1
    slack = tB - 90 * MS - (tf - 13 * US + b)
    nslow = sum(1 for k in range(n) if backoff(k) == MAXB)
    t = start
    for i in range(n):
        K("I", t, "reconciler.go:304", detailed("attacherDetacher.AttachVolume started", P, V, 'from node "%s" ' % A))
        extra = slack // nslow if backoff(i) == MAXB else 0
        tf = t + OPT + (i % 3) * 5501 * US + extra
        K("E", tf - 161 * US, "csi_attacher.go:254", "kubernetes.io/csi: attachment for %s failed: %s" % (H, zerr(i)))
        b = backoff(i)
        err = detailed("AttachVolume.Attach failed", P, V, 'from node "%s" : %s' % (A, zerr(i)))
        K("E", tf, "nestedpendingoperations.go:301", 'Operation for "{volumeName:%s podName: nodeName:}" failed. No retries permitted until %s (durationBeforeRetry %s). Error: %s' % (V, gotime(tf - 13 * US + b, KOFF, "CST", kcm_start), dur(b), q(err)))
        ev(tf + 203 * US, "db/redis-master-0", "Warning", "FailedAttachVolume", 'AttachVolume.Attach failed for volume "%s" : %s' % (P, zerr(i)))
        t = tf - 13 * US + b + 71 * MS + (i % 4) * 11 * MS
    K("I", ts(2021, 1, 13, 9, 50, 55, 611302), "event.go:291", '"Event occurred" object="db/redis-master" kind="StatefulSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="create Pod redis-master-0 in StatefulSet redis-master successful"')
    # the real lines (testdata/seed), verbatim
    real = [
        'I0113 17:50:56.616633       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync") from node "172.28.1.72" ',
        'I0113 17:51:08.630091       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync") from node "172.28.1.72" ',
        'I0113 17:51:08.630228       1 event.go:291] "Event occurred" object="db/redis-master-0" kind="Pod" apiVersion="v1" type="Normal" reason="SuccessfulAttachVolume" message="AttachVolume.Attach succeeded for volume \\"pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36\\" "',
        'I0113 17:51:08.733908       1 reconciler.go:221] attacherDetacher.DetachVolume started for volume "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync") on node "172.28.16.10" ',
        'I0113 17:51:08.736979       1 operation_generator.go:1578] Verified volume is safe to detach for volume "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync") on node "172.28.16.10" ',
        'I0113 17:51:15.767935       1 operation_generator.go:485] DetachVolume.Detach succeeded for volume "pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-rhtsqync") on node "172.28.16.10" ',
    ]
    realt = [ts(2021, 1, 13, 9, 50, 56, 616633), ts(2021, 1, 13, 9, 51, 8, 630091), ts(2021, 1, 13, 9, 51, 8, 630228),
             ts(2021, 1, 13, 9, 51, 8, 733908), ts(2021, 1, 13, 9, 51, 8, 736979), ts(2021, 1, 13, 9, 51, 15, 767935)]
    for tt, l in zip(realt, real):
        kcm.add(tt, l)
    K("I", ts(2021, 1, 13, 9, 58, 41, 70112), "event.go:291", '"Event occurred" object="monitoring/node-exporter" kind="DaemonSet" apiVersion="apps/v1" type="Normal" reason="SuccessfulCreate" message="Created pod: node-exporter-5v2qz"')

    # kubelet on B
    def KD(level, t, fl, prefix, suffix=" ", uid=UID_B):
        L(level, t, fl, detailed(prefix, P, V, 'pod "redis-master-0" (UID: "%s")%s' % (uid, suffix)))
    vaB = va(H, DRV, B)
    tv = ts(2021, 1, 13, 9, 50, 57, 212904)
    KD("I", tv, "reconciler.go:224", "operationExecutor.VerifyControllerAttachedVolume started")
    tt, j = tv + 511 * US, 0
    while tt < ts(2021, 1, 13, 9, 51, 8, 630091):
        b = backoff(j)
        err = detailed("Volume not attached according to node status", P, V, 'pod "redis-master-0" (UID: "%s") ' % UID_B)
        L("E", tt, "nestedpendingoperations.go:301", 'Operation for "{volumeName:%s podName: nodeName:}" failed. No retries permitted until %s (durationBeforeRetry %s). Error: %s' % (V, gotime(tt - 31 * US + b, KOFF, "CST", kl_start), dur(b), q(err)))
        tt = tt + b + 100 * MS + 7 * US
        j += 1
    tc = tt
    KD("I", tc, "operation_generator.go:1348", "Controller attach succeeded", ' device path: "%s"' % vaB)
    KD("I", tc + 100 * MS, "reconciler.go:269", "operationExecutor.MountVolume started")
    KD("I", tc + 100418 * US, "operation_generator.go:587", "MountVolume.WaitForAttach entering", ' DevicePath "%s"' % vaB)
    KD("I", tc + 108377 * US, "operation_generator.go:596", "MountVolume.WaitForAttach succeeded", ' DevicePath "%s"' % vaB)
    # NodeStage raced with the detach that pulled the disk off this VM at 17:51:15
    tm = tc + 108377 * US
    tf = ts(2021, 1, 13, 9, 51, 21, 402331)
    k = 0
    while True:
        if k > 0:
            if k == 35:
                break
            KD("I", tm, "reconciler.go:269", "operationExecutor.MountVolume started")
            KD("I", tm + 311 * US, "operation_generator.go:587", "MountVolume.WaitForAttach entering", ' DevicePath "%s"' % vaB)
            KD("I", tm + 7930 * US, "operation_generator.go:596", "MountVolume.WaitForAttach succeeded", ' DevicePath "%s"' % vaB)
            tf = tm + 1603127 * US + (k % 3) * 3301 * US
        b = backoff(k)
        err = detailed("MountVolume.MountDevice failed", P, V, 'pod "redis-master-0" (UID: "%s") : %s' % (UID_B, serial))
        L("E", tf, "nestedpendingoperations.go:301", 'Operation for "{volumeName:%s podName: nodeName:}" failed. No retries permitted until %s (durationBeforeRetry %s). Error: %s' % (V, gotime(tf - 31 * US + b, KOFF, "CST", kl_start), dur(b), q(err)))
        tm = tf - 31 * US + b + 100 * MS + (k % 5) * 2 * MS
        k += 1
        last_fail = tf
    # pod-level timeouts
    tu = tv + 123 * SEC + 9 * MS
    while tu < last_fail:
        L("E", tu, "kubelet.go:1701", 'Unable to attach or mount volumes for pod "redis-master-0_db(%s)": unmounted volumes=[redis-data], unattached volumes=[default-token-7sx4n]: timed out waiting for the condition; skipping pod' % UID_B)
        tu += 123 * SEC + 5 * MS
    # 19:09 the operator re-attached the disk by hand in the console; the next retry works
    KD("I", tm, "reconciler.go:269", "operationExecutor.MountVolume started")
    KD("I", tm + 288 * US, "operation_generator.go:587", "MountVolume.WaitForAttach entering", ' DevicePath "%s"' % vaB)
    KD("I", tm + 8010 * US, "operation_generator.go:596", "MountVolume.WaitForAttach succeeded", ' DevicePath "%s"' % vaB)
    KD("I", tm + 1388120 * US, "operation_generator.go:625", "MountVolume.MountDevice succeeded", ' device mount path "/var/lib/kubelet/plugins/kubernetes.io/csi/pv/%s/globalmount"' % P)
    KD("I", tm + 1452310 * US, "operation_generator.go:686", "MountVolume.SetUp succeeded")
    os.makedirs(outdir, exist_ok=True)
    kcm.write(os.path.join(outdir, "kcm.log"))
    kl.write(os.path.join(outdir, "kubelet.log"))
    return dict(first_fail=ts(2021, 1, 13, 9, 51, 21, 402331), last_fail=last_fail, nfail_attach=i, success=tm)


if __name__ == "__main__":
    print(scenario("legacy", os.path.join(OUT, "seed-legacy")))
    print(scenario("new", os.path.join(OUT, "seed-1.28")))
    print(seed2021(os.path.join(OUT, "seed-2021")))
