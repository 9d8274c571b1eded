package loggen

import "strconv"

// Noise: the other controllers' lines that make up ~99% of a KCM log. Each
// kind has a weight and a renderer per era; file:line and wording follow
// real 1.20 and 1.29 controller-managers (see testdata/real-logs).

type noiseKind uint8

const (
	nScaling noiseKind = iota
	nRSCreateDelete
	nJobEvents
	nSTSCreate
	nHPA
	nProvisioning
	nTooFew
	nGCDelete
	nLeaseRenew
	nEndpointSlice
	nEndpoints
	nNodeReady
	nReflector
	nTaint
	nDeployErr
	nControllerUtils
	nPodGC
	nJobEnqueue
	nNamespace
	nLongDiscovery
	nLongQuota
	nNodeZone
	numNoise
)

var noiseWeights = [numNoise]float64{
	nScaling:         7,
	nRSCreateDelete:  9,
	nJobEvents:       4,
	nSTSCreate:       2,
	nHPA:             2,
	nProvisioning:    0.4,
	nTooFew:          6,
	nGCDelete:        5,
	nLeaseRenew:      6,
	nEndpointSlice:   3,
	nEndpoints:       2,
	nNodeReady:       3,
	nReflector:       5,
	nTaint:           0.5,
	nDeployErr:       2,
	nControllerUtils: 2,
	nPodGC:           1,
	nJobEnqueue:      3,
	nNamespace:       0.3,
	nLongDiscovery:   0.12,
	nLongQuota:       0.12,
	nNodeZone:        0.2,
}

type kNoiseKind uint8

const (
	kProbe kNoiseKind = iota
	kPLEG
	kSyncUpdate
	kKill
	kImage
	numKNoise
)

var kNoiseWeights = [numKNoise]float64{kProbe: 5, kPLEG: 4, kSyncUpdate: 2, kKill: 1, kImage: 1}

func cumulative(w []float64) []float64 {
	c := make([]float64, len(w))
	s := 0.0
	for i, x := range w {
		s += x
		c[i] = s
	}
	return c
}

func (g *gen) buildNoiseTables() {
	g.noiseCum = cumulative(noiseWeights[:])
	g.kNoiseCum = cumulative(kNoiseWeights[:])
}

func (g *gen) pickWeighted(cum []float64) int {
	x := g.r.Float64() * cum[len(cum)-1]
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}

// a few random names, built per line
func (g *gen) rsName(app string) string { return app + "-" + randString(g.r, safeAlphabet, 10) }
func (g *gen) podName(rs string) string { return rs + "-" + randString(g.r, safeAlphabet, 5) }

// structured prepares a structured (InfoS / contextual) entry.
func (g *gen) structured(level byte, file string, legacyLine, modernLine int, dir, logger, msg string) *entry {
	e := &g.e
	e.reset(level, file, g.byEra(legacyLine, modernLine), dir)
	if g.modern {
		e.logger = logger
	}
	e.msg = append(e.msg, msg...)
	return e
}

// printfEntry prepares a printf entry.
func (g *gen) printfEntry(level byte, file string, legacyLine, modernLine int, dir string) *entry {
	e := &g.e
	e.reset(level, file, g.byEra(legacyLine, modernLine), dir)
	e.printf = true
	return e
}

func (g *gen) noise(t int64) {
	r := g.r
	ns := pick(r, namespaces)
	app := pick(r, apps)
	switch noiseKind(g.pickWeighted(g.noiseCum)) {
	case nScaling:
		rs := g.rsName(app)
		n := 1 + r.IntN(12)
		var msg string
		up := r.IntN(2) == 0
		switch {
		case g.modern && up:
			msg = "Scaled up replica set " + rs + " to " + itoa(n+1) + " from " + itoa(n)
		case g.modern:
			msg = "Scaled down replica set " + rs + " to " + itoa(n-1) + " from " + itoa(n)
		case up:
			msg = "Scaled up replica set " + rs + " to " + itoa(n+1)
		default:
			msg = "Scaled down replica set " + rs + " to " + itoa(n-1)
		}
		g.objEvent(g.kcm, t, ns, app, "Deployment", "apps/v1", "Normal", "ScalingReplicaSet", msg)
	case nRSCreateDelete:
		rs := g.rsName(app)
		if r.IntN(3) > 0 {
			g.objEvent(g.kcm, t, ns, rs, "ReplicaSet", "apps/v1", "Normal", "SuccessfulCreate", "Created pod: "+g.podName(rs))
		} else {
			g.objEvent(g.kcm, t, ns, rs, "ReplicaSet", "apps/v1", "Normal", "SuccessfulDelete", "Deleted pod: "+g.podName(rs))
		}
	case nJobEvents:
		job := app + "-" + itoa(28712000+r.IntN(99999))
		switch r.IntN(3) {
		case 0:
			g.objEvent(g.kcm, t, ns, app, "CronJob", "batch/v1", "Normal", "SuccessfulCreate", "Created job "+job)
		case 1:
			g.objEvent(g.kcm, t, ns, app, "CronJob", "batch/v1", "Normal", "SawCompletedJob", "Saw completed job: "+job+", status: Complete")
		default:
			g.objEvent(g.kcm, t, ns, job, "Job", "batch/v1", "Normal", "SuccessfulCreate", "Created pod: "+job+"-"+randString(r, safeAlphabet, 5))
		}
	case nSTSCreate:
		ord := itoa(r.IntN(5))
		g.objEvent(g.kcm, t, ns, app, "StatefulSet", "apps/v1", "Normal", "SuccessfulCreate", "create Pod "+app+"-"+ord+" in StatefulSet "+app+" successful")
	case nHPA:
		if r.IntN(2) == 0 {
			e := g.printfEntry('I', "horizontal.go", 226, 261, "podautoscaler")
			if g.modern {
				e.printf = false
				e.logger = "horizontal-pod-autoscaler-controller"
				e.msg = append(e.msg, "Unhandled Error"...)
				e.hasErr, e.err = true, "failed to compute desired number of replicas based on listed metrics for Deployment/"+ns+"/"+app+": invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"
				e.level = 'E'
			} else {
				e.level = 'E'
				e.msg = append(e.msg, "failed to compute desired number of replicas based on listed metrics for Deployment/"+ns+"/"+app+": invalid metrics (1 invalid out of 1), first error is: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API"...)
			}
			g.emitKCM(t)
		} else {
			g.objEvent(g.kcm, t, ns, app, "HorizontalPodAutoscaler", "autoscaling/v2", "Warning", "FailedGetResourceMetric", "failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API")
		}
	case nProvisioning:
		g.objEvent(g.kcm, t, ns, "data-"+app+"-"+itoa(r.IntN(3)), "PersistentVolumeClaim", "v1", "Normal", "ExternalProvisioning",
			"waiting for a volume to be created, either by external provisioner \""+cbsDriver+"\" or manually created by system administrator")
	case nTooFew:
		rs := g.rsName(app)
		n := 2 + r.IntN(10)
		if r.IntN(3) > 0 {
			e := g.structured('I', "replica_set.go", 559, 583, "replicaset", "replicaset-controller", "Too few replicas")
			e.kobj("replicaSet", ns, rs)
			e.num("need", int64(n))
			e.num("creating", int64(1+r.IntN(2)))
			e.v = 2
		} else {
			e := g.structured('I', "replica_set.go", 594, 615, "replicaset", "replicaset-controller", "Too many replicas")
			e.kobj("replicaSet", ns, rs)
			e.num("need", int64(n))
			e.num("deleting", 1)
			e.v = 2
		}
		g.emitKCM(t)
	case nGCDelete:
		pod := g.podName(g.rsName(app))
		if g.modern {
			e := g.structured('I', "garbagecollector.go", 0, 549, "garbagecollector", "garbage-collector-controller", "Deleting item")
			e.str("item", "[v1/Pod, namespace: "+ns+", name: "+pod+", uid: "+randUUID(r)+"]")
			e.str("propagationPolicy", "Background")
			e.v = 2
		} else {
			e := g.structured('I', "garbagecollector.go", 580, 0, "garbagecollector", "", "Deleting object")
			e.kobj("object", ns, pod)
			e.str("objectUID", randUUID(r))
			e.str("kind", "Pod")
			e.kv[e.nkv] = kvp{key: "propagationPolicy", kind: vRaw, raw: []byte("Background")}
			e.nkv++
		}
		g.emitKCM(t)
	case nLeaseRenew:
		e := g.printfEntry('I', "leaderelection.go", 278, 281, "leaderelection")
		e.msg = append(e.msg, "successfully renewed lease kube-system/kube-controller-manager"...)
		e.v = 5
		g.emitKCM(t)
	case nEndpointSlice:
		svc := app
		if g.modern {
			e := g.structured('I', "endpointslice_controller.go", 0, 311, "endpointslice", "endpointslice-controller", "Error syncing endpoint slices for service, retrying")
			e.kobj("key", ns, svc)
			e.str("err", "EndpointSlice informer cache is out of date")
		} else {
			e := g.printfEntry('I', "endpointslice_controller.go", 306, 0, "endpointslice")
			e.msg = append(e.msg, `Error syncing endpoint slices for service "`+ns+"/"+svc+`", retrying. Error: EndpointSlice informer cache is out of date`...)
		}
		g.emitKCM(t)
	case nEndpoints:
		if g.modern {
			e := g.structured('I', "endpoints_controller.go", 0, 360, "endpoint", "endpoints-controller", "Failed to update endpoint")
			e.kobj("endpoint", ns, app)
			e.str("err", `Operation cannot be fulfilled on endpoints "`+app+`": the object has been modified; please apply your changes to the latest version and try again`)
		} else {
			e := g.printfEntry('I', "endpoints_controller.go", 0, 0, "endpoint")
			e.line = 536
			e.msg = append(e.msg, `Error syncing endpoints for service "`+ns+"/"+app+`", retrying. Error: Operation cannot be fulfilled on endpoints "`+app+`": the object has been modified; please apply your changes to the latest version and try again`...)
		}
		g.emitKCM(t)
	case nNodeReady:
		node := pick(r, g.nodes)
		if g.modern {
			e := g.structured('I', "node_lifecycle_controller.go", 0, 1079, "nodelifecycle", "node-lifecycle-controller", "Node ReadyCondition updated. Updating timestamp")
			e.str("node", node)
			e.v = 4
		} else {
			e := g.printfEntry('I', "node_lifecycle_controller.go", 1077, 0, "nodelifecycle")
			e.msg = append(e.msg, "Node "+node+" ReadyCondition updated. Updating timestamp."...)
		}
		g.emitKCM(t)
	case nReflector:
		kinds := [...]string{"*v1.Pod", "*v1.Node", "*v1.Endpoints", "*v1.ReplicaSet", "*v1.Deployment", "*v1.Secret", "*v1.ConfigMap", "*v1.PartialObjectMetadata", "*v1.Lease", "*v1.Job", "*v1.StatefulSet", "*v1.Service", "*v1.PersistentVolumeClaim", "*v1.PersistentVolume", "*v1.VolumeAttachment"}
		e := g.printfEntry('I', "reflector.go", 530, 800, "cache")
		e.msg = append(e.msg, "k8s.io/client-go/informers/factory.go:"...)
		e.msg = strconv.AppendInt(e.msg, int64(g.byEra(134, 159)), 10)
		e.msg = append(e.msg, ": Watch close - "...)
		e.msg = append(e.msg, pick(r, kinds[:])...)
		e.msg = append(e.msg, " total "...)
		e.msg = strconv.AppendInt(e.msg, int64(r.IntN(400)), 10)
		e.msg = append(e.msg, " items received"...)
		e.v = 4
		g.emitKCM(t)
	case nTaint:
		g.taintDelete(t, ns, g.podName(g.rsName(app)))
	case nDeployErr:
		err := `Operation cannot be fulfilled on deployments.apps "` + app + `": the object has been modified; please apply your changes to the latest version and try again`
		if g.modern {
			e := g.structured('I', "deployment_controller.go", 0, 497, "deployment", "deployment-controller", "Error syncing deployment")
			e.kobj("deployment", ns, app)
			e.str("err", err)
		} else {
			e := g.printfEntry('I', "deployment_controller.go", 490, 0, "deployment")
			e.msg = append(e.msg, "Error syncing deployment "+ns+"/"+app+": "+err...)
		}
		g.emitKCM(t)
	case nControllerUtils:
		rs := g.rsName(app)
		e := g.structured('I', "controller_utils.go", 604, 609, "controller", "", "Deleting pod")
		e.str("controller", rs)
		e.kobj("pod", ns, g.podName(rs))
		e.v = 2
		g.emitKCM(t)
	case nPodGC:
		pod := g.podName(g.rsName(app))
		if g.modern {
			e := g.structured('I', "gc_controller.go", 0, 329, "podgc", "pod-garbage-collector-controller", "PodGC is force deleting Pod")
			e.kobj("pod", ns, pod)
		} else {
			e := g.printfEntry('I', "gc_controller.go", 184, 0, "podgc")
			e.msg = append(e.msg, "PodGC is force deleting Pod: "+ns+"/"+pod...)
		}
		g.emitKCM(t)
	case nJobEnqueue:
		job := app + "-" + itoa(28712000+r.IntN(99999))
		if g.modern {
			e := g.structured('I', "job_controller.go", 0, 564, "job", "job-controller", "enqueueing job")
			e.kobj("key", ns, job)
			e.str("delay", "0s")
			e.v = 4
		} else {
			e := g.printfEntry('I', "job_controller.go", 410, 0, "job")
			e.msg = append(e.msg, "enqueueing job "+ns+"/"+job...)
		}
		g.emitKCM(t)
	case nNamespace:
		nsName := "ci-" + randString(r, lowerAlnum, 6)
		e := g.structured('I', "namespace_controller.go", 185, 186, "namespace", "namespace-controller", "Namespace has been deleted")
		e.str("namespace", nsName)
		g.emitKCM(t)
	case nNodeZone:
		if g.modern {
			e := g.structured('I', "node_lifecycle_controller.go", 0, 1236, "nodelifecycle", "node-lifecycle-controller", "Controller detected that zone is now in new state")
			e.str("zone", "ap-guangzhou-"+itoa(3+r.IntN(4)))
			e.str("newState", "Normal")
		} else {
			e := g.printfEntry('I', "node_lifecycle_controller.go", 1245, 0, "nodelifecycle")
			e.msg = append(e.msg, "Controller detected that zone ap-guangzhou-"+itoa(3+r.IntN(4))+" is now in state Normal."...)
		}
		g.emitKCM(t)
	case nLongDiscovery:
		g.longDiscovery(t)
	case nLongQuota:
		g.longQuota(t, ns)
	}
}

var apiGroups = []string{
	"metrics.k8s.io/v1beta1", "custom.metrics.k8s.io/v1beta1", "external.metrics.k8s.io/v1beta1",
	"snapshot.storage.k8s.io/v1", "monitoring.coreos.com/v1", "cert-manager.io/v1", "networking.istio.io/v1beta1",
	"security.istio.io/v1beta1", "argoproj.io/v1alpha1", "velero.io/v1", "keda.sh/v1alpha1",
	"cilium.io/v2", "kyverno.io/v1", "traefik.containo.us/v1alpha1", "apps.kruise.io/v1beta1",
}

// longDiscovery is a multi-KB garbage collector discovery failure.
func (g *gen) longDiscovery(t int64) {
	n := 8 + g.r.IntN(90)
	b := g.scratch[:0]
	b = append(b, "failed to discover some groups: map["...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		grp := pick(g.r, apiGroups)
		if i >= len(apiGroups) {
			grp = "ext" + itoa(i) + "." + grp
		}
		b = append(b, grp...)
		b = append(b, ":stale GroupVersion discovery: "...)
		b = append(b, grp...)
		b = append(b, " (the server is currently unable to handle the request; request id "...)
		b = appendRand(b, g.r, hexDigits, 16)
		b = append(b, ')')
	}
	b = append(b, ']')
	g.scratch = b
	e := &g.e
	if g.modern {
		e.reset('E', "garbagecollector.go", 832, "garbagecollector")
		e.logger = "garbage-collector-controller"
		e.msg = append(e.msg, "Unhandled Error"...)
		e.hasErr, e.err = true, string(b)
	} else {
		e.reset('W', "garbagecollector.go", 705, "garbagecollector")
		e.printf = true
		e.msg = append(e.msg, b...)
	}
	g.emitKCM(t)
}

// longQuota is a multi-KB resource quota monitor failure listing resources.
func (g *gen) longQuota(t int64, ns string) {
	n := 10 + g.r.IntN(60)
	b := g.scratch[:0]
	b = append(b, "unable to sync caches for resource quota monitors in namespace "...)
	b = append(b, ns...)
	b = append(b, ": timed out waiting for the condition; unmonitored resources: ["...)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		grp := pick(g.r, apiGroups)
		b = append(b, grp...)
		b = append(b, ", Resource="...)
		b = append(b, pick(g.r, apps)...)
		b = append(b, "s"...)
		b = appendRand(b, g.r, lowerAlnum, 3)
	}
	b = append(b, ']')
	g.scratch = b
	e := &g.e
	e.reset('E', "resource_quota_controller.go", g.byEra(446, 493), "resourcequota")
	if g.modern {
		e.logger = "resourcequota-controller"
		e.msg = append(e.msg, "Unhandled Error"...)
		e.hasErr, e.err = true, string(b)
	} else {
		e.printf = true
		e.msg = append(e.msg, b...)
	}
	g.emitKCM(t)
}

// kubeletNoise writes one line of the kubelet's everyday chatter.
func (g *gen) kubeletNoise(t int64) {
	r := g.r
	ns := pick(r, namespaces)
	app := pick(r, apps)
	pod := g.podName(g.rsName(app))
	uid := randUUID(r)
	e := &g.e
	switch kNoiseKind(g.pickWeighted(g.kNoiseCum)) {
	case kProbe:
		out := `Get "http://10.244.` + itoa(r.IntN(250)) + "." + itoa(2+r.IntN(250)) + `:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
		if g.modern {
			e.reset('I', "prober.go", 107, "prober")
			e.msg = append(e.msg, "Probe failed"...)
			e.str("probeType", "Readiness")
			e.kobj("pod", ns, pod)
			e.str("podUID", uid)
			e.str("containerName", app)
			e.str("probeResult", "failure")
			e.str("output", out)
		} else {
			e.reset('I', "prober.go", 117, "prober")
			e.printf = true
			e.msg = append(e.msg, `Readiness probe for "`+pod+"_"+ns+"("+uid+"):"+app+`" failed (failure): `+out...)
		}
	case kPLEG:
		cid := randString(r, hexDigits, 64)
		typ := [...]string{"ContainerStarted", "ContainerDied"}[r.IntN(2)]
		if g.modern {
			e.reset('I', "kubelet.go", 2457, "kubelet")
			e.msg = append(e.msg, "SyncLoop (PLEG): event for pod"...)
			e.kobj("pod", ns, pod)
			e.raw("event", []byte(`{"ID":"`+uid+`","Type":"`+typ+`","Data":"`+cid+`"}`))
		} else {
			e.reset('I', "kubelet.go", 1955, "kubelet")
			e.printf = true
			e.msg = append(e.msg, `SyncLoop (PLEG): "`+pod+"_"+ns+"("+uid+`)", event: &pleg.PodLifecycleEvent{ID:"`+uid+`", Type:"`+typ+`", Data:"`+cid+`"}`...)
		}
	case kSyncUpdate:
		if g.modern {
			e.reset('I', "kubelet.go", 2390, "kubelet")
			e.msg = append(e.msg, "SyncLoop UPDATE"...)
			e.str("source", "api")
			e.kobjs("pods", ns, pod)
		} else {
			e.reset('I', "kubelet.go", 1900, "kubelet")
			e.printf = true
			e.msg = append(e.msg, `SyncLoop (UPDATE, "api"): "`+pod+"_"+ns+"("+uid+`)"`...)
		}
	case kKill:
		cid := "containerd://" + randString(r, hexDigits, 64)
		if g.modern {
			e.reset('I', "kuberuntime_container.go", 779, "kuberuntime")
			e.msg = append(e.msg, "Killing container with a grace period"...)
			e.kobj("pod", ns, pod)
			e.str("podUID", uid)
			e.str("containerName", app)
			e.str("containerID", cid)
			e.num("gracePeriod", 30)
		} else {
			e.reset('I', "kuberuntime_container.go", 650, "kuberuntime")
			e.printf = true
			e.msg = append(e.msg, `Killing container "`+cid+`" with a grace period of 30 seconds`...)
		}
	case kImage:
		if g.modern {
			e.reset('I', "image_gc_manager.go", 391, "images")
			e.msg = append(e.msg, "Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold"...)
			e.num("usage", int64(85+r.IntN(10)))
			e.num("highThreshold", 85)
			e.num("amountToFree", int64(r.IntN(1<<30)))
			e.num("lowThreshold", 80)
		} else {
			e.reset('I', "image_gc_manager.go", 305, "images")
			e.printf = true
			e.msg = append(e.msg, "[imageGCManager]: Disk usage on image filesystem is at "+itoa(85+r.IntN(10))+"% which is over the high threshold (85%). Trying to free "+itoa(r.IntN(1<<30))+" bytes down to the low threshold (80%)."...)
		}
	}
	g.emitKubelet(t)
}
