package loggen

import "time"

// Nodes of the planted incidents (A/B as in the catalog's scenario).
const (
	nodeA = "10.0.3.15"
	nodeB = "10.0.3.27"
	nodeC = "10.0.5.41"
	nodeD = "10.0.5.62"
	nodeE = "10.0.7.12"
	nodeF = "10.0.7.33"
)

// Rule names the planted incidents are expected to produce (docs/DESIGN.md).
const (
	RuleAttachBeforeDetach   = "attach-before-detach"
	RuleAttachRetryStorm     = "attach-retry-storm"
	RuleMountDeviceNotFound  = "mount-device-not-found"
	RuleMultiAttach          = "multi-attach"
	RuleForceDetach          = "force-detach"
	RuleSlowAttach           = "slow-attach"
	IncidentSeedChain        = "seed-chain"
	IncidentMultiAttachForce = "multi-attach-force-detach"
	IncidentCleanMove        = "clean-move"
)

const maxBackoff = 2*time.Minute + 2*time.Second

func nextBackoff(d time.Duration) time.Duration {
	d *= 2
	if d > maxBackoff {
		d = maxBackoff
	}
	return d
}

func cbsVolume(pvUID, handle, ns, pod string) *volume {
	return &volume{pv: "pvc-" + pvUID, handle: handle, unique: csiPrefix + handle, ns: ns, pod: pod}
}

func ts(t int64) time.Time { return time.Unix(0, t).UTC() }

// anchor returns start + frac·span, on a whole second, plus sub.
func (g *gen) anchor(frac float64, sub time.Duration) int64 {
	t := g.start + int64(frac*float64(g.span))
	return t - t%int64(time.Second) + int64(sub)
}

func (g *gen) plant() {
	g.incidents = append(g.incidents,
		g.plantSeed(g.anchor(0.20, 612388*time.Microsecond)),
		g.plantMultiAttach(g.anchor(0.55, 912376*time.Microsecond)),
		g.plantCleanMove(g.anchor(0.80, 318201*time.Microsecond)),
	)
}

func (g *gen) zoneErr() string {
	core := "[TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: disk-7x9qk2mz, 可用区不匹配 (5e2b9c0d7a41), RequestId=" + randUUID(g.r)
	if g.modern {
		return "rpc error: code = Aborted desc = attachVolume disk-7x9qk2mz failed, err: [rpc error: code = Internal desc = " + core + "]"
	}
	return "rpc error: code = Internal desc = " + core
}

func (g *gen) serialErr(handle string) string {
	if g.modern {
		return "rpc error: code = Internal desc = findCBSVolume error cbs disk=/dev/disk/by-id/virtio-" + handle + ", error can not find diskId " + handle + " by serial"
	}
	return "rpc error: code = Internal desc = can not find diskId " + handle + " by serial"
}

// failedAttempt schedules one attempt of v's attach to node that fails
// with the error errText makes, as the controller logs it: the
// reconciler's started line at s; at the failure, about a second later
// (returned), the CSI attacher's error and nestedpendingoperations'
// backoff b; then the FailedAttachVolume Event of pod uid. counted, when
// not nil, is called as each of its volume lines is written.
func (g *gen) failedAttempt(s int64, v *volume, node, uid string, b time.Duration, errText func() string, counted func()) int64 {
	g.at(s, func(at int64) {
		g.attachStarted(at, v, node)
		if counted != nil {
			counted()
		}
	})
	f := s + g.uniform(900*time.Millisecond, 1300*time.Millisecond)
	e := errText()
	g.at(f-g.uniform(100*time.Microsecond, 200*time.Microsecond), func(at int64) { g.csiAttachFailed(at, v.handle, e) })
	g.at(f, func(at int64) {
		inner := detailed(g.scratch[:0], "AttachVolume.Attach failed", v, "from", node)
		inner = append(inner, ": "...)
		inner = append(inner, e...)
		g.scratch = inner
		g.nestedFailed(g.kcm, at, b, v.unique, inner)
		if counted != nil {
			counted()
		}
	})
	g.at(f+g.uniform(100*time.Microsecond, 250*time.Microsecond), func(at int64) {
		g.podEvent(g.kcm, at, v.ns, v.pod, uid, "Warning", "FailedAttachVolume", `AttachVolume.Attach failed for volume "`+v.pv+`" : `+e)
	})
	return f
}

// plantSeed plants the incident that started kcmtrace (catalog §8): a
// ZoneNotMatch attach storm on A for more than 30 minutes, the pod moves to
// B, the attach to B succeeds while (V, A) is uncertain, only then the detach
// from A, and the kubelet on B cannot find the disk any more.
func (g *gen) plantSeed(t0 int64) Incident {
	v := cbsVolume("5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f", "disk-7x9qk2mz", "default", "mysql-0")
	const uidA, uidB = "3f2b6c1e-9a4d-4e7b-8c2d-1a2b3c4d5e6f", "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e"
	stormEnd := t0 + dur(35*time.Minute)
	s, bo := t0, 500*time.Millisecond
	var lastFail int64
	var lastBo time.Duration
	attempts := 0
	for {
		b := bo
		f := g.failedAttempt(s, v, nodeA, uidA, b, g.zoneErr, nil)
		attempts++
		lastFail, lastBo = f, b
		next := f + int64(b) + g.uniform(10*time.Millisecond, 100*time.Millisecond)
		if next > stormEnd {
			break
		}
		s, bo = next, nextBackoff(bo)
	}
	// The pod is deleted and recreated on B (zone 4).
	tMove := lastFail + g.uniform(5*time.Second, 30*time.Second)
	g.at(tMove, func(at int64) {
		g.objEvent(g.kcm, at, "default", "mysql", "StatefulSet", "apps/v1", "Normal", "SuccessfulCreate", "create Pod mysql-0 in StatefulSet mysql successful")
	})
	// The attach to B waits for the backoff window of the failed attaches
	// (same per-volume operation key), then succeeds: no Multi-Attach error,
	// because (V, A) is only uncertain.
	tAB := max(lastFail+int64(lastBo)+g.uniform(50*time.Millisecond, 100*time.Millisecond), tMove+dur(200*time.Millisecond))
	tABok := tAB + g.uniform(3*time.Second, 6*time.Second)
	g.at(tAB, func(at int64) { g.attachStarted(at, v, nodeB) })
	g.at(tABok, func(at int64) {
		g.attachSucceeded(at, v, nodeB)
		g.podEvent(g.kcm, at+dur(207*time.Microsecond), v.ns, v.pod, uidB, "Normal", "SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	})
	// Only then the controller detaches the uncertain (V, A).
	tDA := tABok + g.uniform(3*time.Second, 6*time.Second)
	tDAok := tDA + g.uniform(5*time.Second, 9*time.Second)
	g.at(tDA, func(at int64) { g.detachStarted(at, v, nodeA) })
	g.at(tDA+g.uniform(8*time.Millisecond, 20*time.Millisecond), func(at int64) { g.verifiedSafe(at, v, nodeA) })
	g.at(tDAok, func(at int64) { g.detachSucceeded(at, v, nodeA) })
	end := tDAok
	rules := []string{RuleAttachRetryStorm, RuleAttachBeforeDetach}
	if g.kl != nil {
		rules = append(rules, RuleMountDeviceNotFound)
		g.kub(func() {
			// Kubelet on B: waits for the controller, mounts, then (after the
			// driver pulled the disk off B while "detaching from A") fails.
			tV := tMove + g.uniform(1*time.Second, 2*time.Second)
			g.at(tV, func(at int64) { g.kub(func() { g.kVerifyStarted(at, v, uidB) }) })
			f, kb := tV+g.uniform(200*time.Microsecond, 600*time.Microsecond), 500*time.Millisecond
			for f < tABok+dur(300*time.Millisecond) {
				b := kb
				g.at(f, func(at int64) { g.kub(func() { g.kNotAttached(at, v, uidB, b) }) })
				f += int64(kb) + g.uniform(50*time.Millisecond, 100*time.Millisecond)
				kb = nextBackoff(kb)
			}
			g.at(f, func(at int64) { g.kControllerAttached(at, v, uidB, nodeB) })
			g.at(f+dur(100*time.Millisecond), func(at int64) { g.kMountStarted(at, v, uidB) })
			g.at(f+dur(108*time.Millisecond), func(at int64) { g.kWaitForAttach(at, v, uidB, nodeB) })
			g.at(f+dur(1484*time.Millisecond), func(at int64) { g.kMountDeviceOK(at, v, uidB) })
			g.at(f+dur(1549*time.Millisecond), func(at int64) { g.kSetUpOK(at, v, uidB) })
			tMF := tDAok + dur(7*time.Minute+14*time.Second)
			g.at(tMF-dur(101*time.Millisecond), func(at int64) { g.kMountStarted(at, v, uidB) })
			errText := g.serialErr(v.handle)
			f, kb = tMF, 500*time.Millisecond
			for i := 0; i < 12; i++ {
				b := kb
				g.at(f, func(at int64) { g.kub(func() { g.kMountDeviceFailed(at, v, uidB, b, errText) }) })
				end = f
				f += int64(kb) + g.uniform(90*time.Millisecond, 130*time.Millisecond)
				kb = nextBackoff(kb)
			}
			for _, d := range []time.Duration{2*time.Minute + 3*time.Second, 4*time.Minute + 6*time.Second + 200*time.Millisecond} {
				g.at(tMF+dur(d), func(at int64) { g.kub(func() { g.kUnableToMount(at, v, uidB) }) })
			}
		})
	}
	return Incident{
		Name: IncidentSeedChain, Volume: v.unique, PV: v.pv, Handle: v.handle, Pod: v.ns + "/" + v.pod,
		Nodes: []string{nodeA, nodeB}, Start: ts(t0), End: ts(end), ExpectRules: rules,
		Note: "ZoneNotMatch attach storm on " + nodeA + " (" + itoa(attempts) + " attempts, backoff 500ms…2m2s), attach to " + nodeB +
			" succeeds while " + nodeA + " is uncertain, then detach from " + nodeA + "; kubelet on " + nodeB + " cannot find the disk by serial",
	}
}

// plantMultiAttach: node C dies, the pod moves to D, the attach to D is
// refused with Multi-Attach until the controller force-detaches from C after
// maxWaitForUnmountDuration (6m0s).
func (g *gen) plantMultiAttach(tm int64) Incident {
	v := cbsVolume("1c7e4b2a-3f5d-4a8e-b9c1-6d2e8f0a7b3c", "disk-k3m9p2xq", "payments", "ledger-0")
	uidC, uidD := randUUID(g.r), randUUID(g.r)
	pre := tm - dur(47*time.Minute)
	g.at(pre, func(at int64) { g.attachStarted(at, v, nodeC) })
	g.at(pre+dur(3212*time.Millisecond), func(at int64) {
		g.attachSucceeded(at, v, nodeC)
		g.podEvent(g.kcm, at+dur(190*time.Microsecond), v.ns, v.pod, uidC, "Normal", "SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	})
	g.at(tm-dur(46*time.Second), func(at int64) {
		g.objEvent(g.kcm, at, "", nodeC, "Node", "v1", "Normal", "NodeNotReady", "Node "+nodeC+" status is now: NodeNotReady")
	})
	tDel := tm - dur(8*time.Second)
	g.at(tDel, func(at int64) { g.taintDelete(at, v.ns, v.pod) })
	g.at(tm-dur(2*time.Second), func(at int64) {
		g.objEvent(g.kcm, at, v.ns, "ledger", "StatefulSet", "apps/v1", "Normal", "SuccessfulCreate", "create Pod ledger-0 in StatefulSet ledger successful")
	})
	g.at(tm, func(at int64) {
		g.multiAttach(at, v, nodeD, nodeC, uidD)
		g.podEvent(g.kcm, at+dur(201*time.Microsecond), v.ns, v.pod, uidD, "Warning", "FailedAttachVolume",
			`Multi-Attach error for volume "`+v.pv+`" Volume is already exclusively attached to one node and can't be attached to another`)
	})
	tF := tDel + dur(6*time.Minute+100*time.Millisecond)
	tFok := tF + dur(6312*time.Millisecond)
	g.at(tF, func(at int64) { g.forceDetach(at, v, nodeC) })
	g.at(tFok, func(at int64) { g.detachSucceeded(at, v, nodeC) })
	tAD := tFok + dur(150*time.Millisecond)
	tADok := tAD + dur(3904*time.Millisecond)
	g.at(tAD, func(at int64) { g.attachStarted(at, v, nodeD) })
	g.at(tADok, func(at int64) {
		g.attachSucceeded(at, v, nodeD)
		g.podEvent(g.kcm, at+dur(230*time.Microsecond), v.ns, v.pod, uidD, "Normal", "SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	})
	return Incident{
		Name: IncidentMultiAttachForce, Volume: v.unique, PV: v.pv, Handle: v.handle, Pod: v.ns + "/" + v.pod,
		Nodes: []string{nodeC, nodeD}, Start: ts(pre), End: ts(tADok),
		ExpectRules: []string{RuleMultiAttach, RuleForceDetach},
		Note:        "node " + nodeC + " NotReady; attach to " + nodeD + " refused with Multi-Attach until the force detach from " + nodeC + " after 6m0s",
	}
}

// plantCleanMove: detach from E completes before the attach to F starts. It
// must produce no finding.
func (g *gen) plantCleanMove(tc int64) Incident {
	v := cbsVolume("9a8b7c6d-5e4f-4321-8fed-cba987654321", "disk-q8w7e6r5", "analytics", "kafka-2")
	uidE, uidF := randUUID(g.r), randUUID(g.r)
	pre := tc - dur(38*time.Minute)
	g.at(pre, func(at int64) { g.attachStarted(at, v, nodeE) })
	g.at(pre+dur(2817*time.Millisecond), func(at int64) {
		g.attachSucceeded(at, v, nodeE)
		g.podEvent(g.kcm, at+dur(180*time.Microsecond), v.ns, v.pod, uidE, "Normal", "SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	})
	tok := tc + dur(6831*time.Millisecond)
	g.at(tc, func(at int64) { g.detachStarted(at, v, nodeE) })
	g.at(tc+dur(12*time.Millisecond), func(at int64) { g.verifiedSafe(at, v, nodeE) })
	g.at(tok, func(at int64) { g.detachSucceeded(at, v, nodeE) })
	ta := tok + dur(412*time.Millisecond)
	taok := ta + dur(3506*time.Millisecond)
	g.at(ta, func(at int64) { g.attachStarted(at, v, nodeF) })
	g.at(taok, func(at int64) {
		g.attachSucceeded(at, v, nodeF)
		g.podEvent(g.kcm, at+dur(200*time.Microsecond), v.ns, v.pod, uidF, "Normal", "SuccessfulAttachVolume", `AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	})
	return Incident{
		Name: IncidentCleanMove, Volume: v.unique, PV: v.pv, Handle: v.handle, Pod: v.ns + "/" + v.pod,
		Nodes: []string{nodeE, nodeF}, Start: ts(pre), End: ts(taok), ExpectRules: []string{}, ExpectNone: true,
		Note: "detach from " + nodeE + " completes before the attach to " + nodeF + " starts: no finding expected",
	}
}

func (g *gen) taintDelete(t int64, ns, pod string) {
	e := &g.e
	if g.modern {
		e.reset('I', "taint_eviction.go", 110, "tainteviction")
		e.logger = "taint-eviction-controller"
		e.msg = append(e.msg, "Deleting pod"...)
		e.str("controller", "taint-eviction-controller")
		e.kobj("pod", ns, pod)
	} else {
		e.reset('I', "taint_manager.go", 106, "nodelifecycle/scheduler")
		e.msg = append(e.msg, "NoExecuteTaintManager is deleting Pod"...)
		e.kobj("pod", ns, pod)
	}
	g.emitKCM(t)
	g.objEvent(g.kcm, t+dur(310*time.Microsecond), ns, pod, "Pod", "v1", "Normal", "TaintManagerEviction", "Marking for deletion Pod "+ns+"/"+pod)
}

// startup writes the controller manager's start: leader election, the
// attach/detach controller, informer cache syncs.
func (g *gen) startup() {
	t := g.start
	step := func() int64 { t += g.uniform(200*time.Microsecond, 30*time.Millisecond); return t }
	printf := func(level byte, file string, line int, dir, msg string) {
		e := &g.e
		e.reset(level, file, line, dir)
		e.printf = true
		e.msg = append(e.msg, msg...)
		g.emitKCM(step())
	}
	ver := "v1.20.15"
	if g.modern {
		ver = "v1.29.6"
	}
	printf('I', "serving.go", 341, "options", "Generated self-signed cert in-memory")
	if g.modern {
		e := &g.e
		e.reset('I', "controllermanager.go", 203, "app")
		e.msg = append(e.msg, "Starting"...)
		e.str("version", ver)
		g.emitKCM(step())
	} else {
		printf('I', "controllermanager.go", 175, "app", "Version: "+ver)
	}
	printf('I', "secure_serving.go", 197, "dynamiccertificates", "Serving securely on [::]:10257")
	printf('I', "leaderelection.go", g.byEra(243, 250), "leaderelection", "attempting to acquire leader lease kube-system/kube-controller-manager...")
	t += dur(17 * time.Second)
	printf('I', "leaderelection.go", g.byEra(253, 260), "leaderelection", "successfully acquired lease kube-system/kube-controller-manager")
	g.objEvent(g.kcm, step(), "kube-system", "kube-controller-manager", "Lease", "coordination.k8s.io/v1", "Normal", "LeaderElection", "master-1_"+randUUID(g.r)+" became leader")
	controllers := []string{"endpoint", "endpointslice", "replicationcontroller", "podgc", "resourcequota", "namespace", "serviceaccount", "garbagecollector", "daemonset", "job", "deployment", "replicaset", "horizontalpodautoscaling", "statefulset", "cronjob", "csrsigning", "ttl", "nodelifecycle", "persistentvolume-binder", "attachdetach", "persistentvolume-expander", "pvc-protection", "pv-protection", "ephemeral-volume", "endpointslicemirroring"}
	for _, c := range controllers {
		if g.modern {
			e := &g.e
			e.reset('I', "controllermanager.go", 761, "app")
			e.msg = append(e.msg, "Started controller"...)
			name := c + "-controller"
			if c == "attachdetach" {
				name = adcLogger
			}
			e.str("controller", name)
			g.emitKCM(step())
		} else {
			printf('I', "controllermanager.go", 554, "app", `Started "`+c+`"`)
		}
		if c == "attachdetach" {
			e := &g.e
			if g.modern {
				e.reset('I', "attach_detach_controller.go", 342, "attachdetach")
				e.logger = adcLogger
				e.msg = append(e.msg, "Starting attach detach controller"...)
				g.emitKCM(step())
			} else {
				printf('I', "attach_detach_controller.go", 328, "attachdetach", "Starting attach detach controller")
			}
		}
	}
	caches := []string{"attach detach", "endpoint", "endpoint_slice", "ReplicaSet", "deployment", "stateful set", "job", "cronjob", "garbage collector", "resource quota", "taint", "persistent volume", "PVC protection", "namespace", "daemon sets"}
	wait, synced := g.byEra(240, 313), g.byEra(247, 320)
	for _, c := range caches {
		printf('I', "shared_informer.go", wait, "cache", "Waiting for caches to sync for "+c)
	}
	t += dur(800 * time.Millisecond)
	for _, c := range caches {
		printf('I', "shared_informer.go", synced, "cache", "Caches are synced for "+c)
	}
}
