package timeline

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

const (
	vU    = "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz"
	vPV   = "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f"
	nodeA = "10.0.3.15"
	nodeB = "10.0.3.27"
)

var t0 = time.Date(2024, 8, 12, 3, 10, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// ev builds an event; the text is unique per (kind, node, time) so that
// duplicate detection sees real lines.
func ev(sec float64, kind parser.Kind, comp parser.Component, node string) parser.Event {
	e := parser.Draft{Time: parser.StampOf(at(sec)), Kind: kind, Volume: vU, PV: vPV, Node: node, Component: comp}.Event()
	e.Text = parser.TextOf(kind.String() + " " + node + " " + e.Time.Format(time.RFC3339Nano))
	return e
}

func result(path, comp string, evs ...parser.Event) parser.Result {
	for i := range evs {
		evs[i].Source.File = parser.InternPath(path)
		evs[i].Source.Line = parser.Int32(i + 1)
	}
	return parser.Result{Input: parser.Input{Path: path, Component: comp}, Events: evs}
}

// seedKCM is the catalog §8 sequence on the controller side.
func seedKCM() parser.Result {
	k := parser.ComponentKCM
	return result("kcm.log", k.String(),
		ev(0, parser.AttachStarted, k, nodeA),
		ev(1, parser.AttachFailed, k, nodeA),
		ev(2, parser.AttachStarted, k, nodeA),
		ev(3, parser.AttachFailed, k, nodeA),
		ev(250, parser.AttachStarted, k, nodeB),
		ev(255, parser.AttachSucceeded, k, nodeB),
		ev(260, parser.DetachStarted, k, nodeA),
		ev(267, parser.DetachSucceeded, k, nodeA),
	)
}

func one(t *testing.T, tl *Timeline) *Volume {
	t.Helper()
	if len(tl.Volumes) != 1 {
		t.Fatalf("got %d volumes, want 1", len(tl.Volumes))
	}
	return tl.Volumes[0]
}

func TestAttachmentName(t *testing.T) {
	for _, tc := range []struct{ node, want string }{
		{nodeA, "csi-9239c0a1144a95d8ff66f89edfb9703662060c0039e7a66100b722c89c3e693a"},
		{nodeB, "csi-47e2661afacd684dd8a1d3236d7dbbf5e16e99f6dc5b879275532fc8b059c239"},
	} {
		if got := AttachmentName("disk-7x9qk2mz", "com.tencent.cloud.csi.cbs", tc.node); got != tc.want {
			t.Errorf("AttachmentName(%s) = %s, want %s", tc.node, got, tc.want)
		}
	}
}

func TestParseUniqueName(t *testing.T) {
	for _, tc := range []struct{ in, driver, handle string }{
		{in: vU, driver: "com.tencent.cloud.csi.cbs", handle: "disk-7x9qk2mz"},
		{in: "kubernetes.io/aws-ebs/aws://eu-west-1a/vol-0a1b2c", driver: "kubernetes.io/aws-ebs", handle: "vol-0a1b2c"},
		{in: "kubernetes.io/aws-ebs/vol-a8f1ae0c", driver: "kubernetes.io/aws-ebs", handle: "vol-a8f1ae0c"},
		{in: "kubernetes.io/cinder/718bfbdc-3f14", driver: "kubernetes.io/cinder", handle: "718bfbdc-3f14"},
		{in: "kubernetes.io/azure-disk//subscriptions/s/disks/d1", driver: "kubernetes.io/azure-disk", handle: "/subscriptions/s/disks/d1"},
		{in: "kubernetes.io/qcloud-cbs/disk-3xvpivsy", driver: "kubernetes.io/qcloud-cbs", handle: "disk-3xvpivsy"},
		{in: "kubernetes.io/vsphere-volume/[vsanDatastore] kubevols/x.vmdk", driver: "kubernetes.io/vsphere-volume", handle: "[vsanDatastore] kubevols/x.vmdk"},
	} {
		d, h, ok := ParseUniqueName(tc.in)
		if !ok || d != tc.driver || h != tc.handle {
			t.Errorf("ParseUniqueName(%q) = %q, %q, %v; want %q, %q", tc.in, d, h, ok, tc.driver, tc.handle)
		}
	}
	if _, _, ok := ParseUniqueName("pvc-1"); ok {
		t.Error("a PV name parsed as a UniqueName")
	}
}

// The seed incident: one volume, both nodes, A uncertain while B attached.
func TestSeedOverlap(t *testing.T) {
	v := one(t, Build([]parser.Result{seedKCM()}, Options{}))
	if !slices.Equal(v.Nodes(), []string{nodeA, nodeB}) || v.Multi {
		t.Fatalf("nodes %v multi %v", v.Nodes(), v.Multi)
	}
	var unc, att *Interval
	for i := range v.Intervals {
		in := &v.Intervals[i]
		switch {
		case in.Node == nodeA && in.State == Uncertain:
			unc = in
		case in.Node == nodeB && in.State == Attached:
			att = in
		}
	}
	if unc == nil || att == nil {
		t.Fatalf("intervals %+v", v.Intervals)
	}
	// the retry at 2 s keeps A uncertain from the first failure to the detach
	if !unc.Start().Equal(at(1)) || !unc.End().Equal(at(260)) || !att.Start().Equal(at(255)) || !att.End().IsZero() {
		t.Errorf("uncertain %v–%v attached %v–%v", unc.Start(), unc.End(), att.Start(), att.End())
	}
	found := false
	for _, o := range v.Overlaps() {
		if o.States[nodeA] == Uncertain && o.States[nodeB] == Attached && o.Start.Equal(at(255)) && o.End.Equal(at(260)) {
			found = true
		}
	}
	if !found {
		t.Errorf("no uncertain/attached overlap in %+v", v.Overlaps())
	}
	s := v.Stats()
	if s.AttachFailures != 2 || s.Attaches != 1 || s.Detaches != 1 {
		t.Errorf("stats %+v", s)
	}
}

func TestMergeOrderReversed(t *testing.T) {
	kcm := seedKCM()
	rev := slices.Clone(kcm.Events)
	slices.Reverse(rev) // journalctl -r
	for i := range rev {
		rev[i].Source.Line = parser.Int32(i + 1)
	}
	kcm.Events = rev
	k := parser.ComponentKubelet
	kl := result("kubelet.log", k.String(),
		ev(256, parser.MountDeviceSucceeded, k, nodeB),
		ev(255.5, parser.VerifyAttachedSucceeded, k, nodeB), // out of order in the file
	)
	tl := Build([]parser.Result{kcm, kl}, Options{})
	v := one(t, tl)
	for i := 1; i < len(v.Events); i++ {
		if v.Events[i].Time.Before(v.Events[i-1].Time) {
			t.Fatalf("event %d out of order: %v after %v", i, v.Events[i].Time, v.Events[i-1].Time)
		}
	}
	if !tl.Start.Equal(at(0)) || !tl.End.Equal(at(267)) {
		t.Errorf("span %v → %v", tl.Start, tl.End)
	}
	if len(v.Overlaps()) == 0 {
		t.Error("reversed input lost the overlap")
	}
	// same time: input order decides
	a := result("a.log", parser.ComponentKCM.String(), ev(5, parser.AttachStarted, parser.ComponentKCM, nodeA))
	b := result("b.log", parser.ComponentKCM.String(), ev(5, parser.DetachStarted, parser.ComponentKCM, nodeB))
	v = one(t, Build([]parser.Result{a, b}, Options{}))
	if v.Events[0].Source.Path() != "a.log" {
		t.Errorf("tie broken by %s, want input order", v.Events[0].Source.Path())
	}
}

func TestDuplicateInputs(t *testing.T) {
	kcm := seedKCM()
	again := seedKCM()
	again.Input.Path = "kcm.log.1"
	tl := Build([]parser.Result{kcm, again}, Options{})
	v := one(t, tl)
	if tl.Dupes != len(kcm.Events) || len(v.Events) != len(kcm.Events) {
		t.Errorf("dupes %d events %d, want %d and %d", tl.Dupes, len(v.Events), len(kcm.Events), len(kcm.Events))
	}
	if v.Stats().AttachFailures != 2 {
		t.Errorf("failures counted twice: %+v", v.Stats())
	}
}

func TestRestarts(t *testing.T) {
	k := parser.ComponentKCM
	retry := func(sec, mono float64) parser.Event {
		e := ev(sec, parser.AttachFailed, k, nodeA)
		e.SetRepeat(parser.Repeat{Retry: &parser.Retry{Backoff: 500 * time.Millisecond, Mono: mono}})
		e.PID = 1
		return e
	}
	// restarts less than restartBurst apart count once: space them out
	started := ev(300, parser.ControllerStarted, k, "")
	started.SetVolume("", "", nil)
	d := started.Draft()
	d.Detail = "successfully acquired lease kube-system/kube-controller-manager"
	started = d.Event()
	pid := ev(500, parser.AttachStarted, k, nodeA)
	pid.PID = 7
	tl := Build([]parser.Result{result("kcm.log", k.String(),
		retry(10, 5000.5),
		retry(20, 5010.5), // same process
		retry(100, 3.5),   // m=+ went down
		started,
		pid,
	)}, Options{})
	var reasons []string
	for _, r := range tl.Restarts {
		reasons = append(reasons, r.Reason)
	}
	want := []string{"leader-elected", "monotonic-clock-reset", "pid-changed"}
	slices.Sort(reasons)
	if !slices.Equal(reasons, want) {
		t.Errorf("restarts %v, want %v", reasons, want)
	}
	if len(tl.Other) != 1 || tl.Other[0].Kind != parser.ControllerStarted {
		t.Errorf("controller-started not in Other: %+v", tl.Other)
	}
}

func TestSkewEstimate(t *testing.T) {
	const behind = 3 * time.Second // the kubelet's clock runs 3 s slow
	k := parser.ComponentKubelet
	kev := func(trueSec float64, kind parser.Kind) parser.Event {
		e := ev(trueSec, kind, k, "") // node from the input (inferred)
		e.Time = e.Time.Add(-behind)
		return e
	}
	kcm := seedKCM()
	kl := result("kubelet.log", k.String(),
		kev(249, parser.VerifyAttachedStarted),
		kev(255.2, parser.VerifyAttachedSucceeded), // 0.2 s after the controller, truly
		kev(255.3, parser.WaitForAttachSucceeded),
		kev(257, parser.MountDeviceSucceeded),
	)
	tl := Build([]parser.Result{kcm, kl}, Options{})
	if len(tl.Skews) != 1 {
		t.Fatalf("skews %+v", tl.Skews)
	}
	s := tl.Skews[0]
	if s.From != "estimated" || s.Offset < behind-200*time.Millisecond || s.Offset > behind || s.Pairs == 0 {
		t.Errorf("skew %+v, want about %v", s, behind)
	}
	v := one(t, tl)
	if !slices.Contains(v.Nodes(), nodeB) {
		t.Errorf("kubelet node not inferred: %v", v.Nodes())
	}
	for _, in := range v.Kubelet() {
		if in.Node == nodeB && in.State == Mounted && in.Start().Before(at(255)) {
			t.Errorf("mounted before the attach after correction: %v", in.Start())
		}
	}
	tl = Build([]parser.Result{kcm, kl}, Options{Skew: map[string]time.Duration{"kubelet.log": 5 * time.Second}})
	if s := tl.Skews[0]; s.From != "flag" || s.Offset != 5*time.Second {
		t.Errorf("flag skew %+v", s)
	}
}

func TestJoinNames(t *testing.T) {
	k := parser.ComponentKCM
	vaOnly := parser.Draft{Time: parser.StampOf(at(300)), Kind: parser.CSIDetaching, Component: parser.ComponentCSI,
		Attachment: "csi-9239c0a1144a95d8ff66f89edfb9703662060c0039e7a66100b722c89c3e693a", Text: parser.TextOf("Detaching")}.Event()
	pvOnly := parser.Draft{Time: parser.StampOf(at(301)), Kind: parser.AttachFailed, Component: parser.ComponentEvents, Origin: parser.OriginDescribe,
		PV: vPV, Pod: "default/mysql-0", Text: parser.TextOf("describe row")}.Event()
	handleOnly := parser.Draft{Time: parser.StampOf(at(302)), Kind: parser.CSIError, Component: parser.ComponentCSI, Handle: "disk-7x9qk2mz", Text: parser.TextOf("GRPC error")}.Event()
	stray := parser.Draft{Time: parser.StampOf(at(303)), Kind: parser.AttachFailed, PV: "grafana", Node: "n9", Component: k, Text: parser.TextOf("old")}.Event()
	secret := ev(304, parser.SetupSucceeded, parser.ComponentKubelet, nodeB)
	secret.SetVolume("kubernetes.io/secret/8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e-default-token", "default-token", nil)
	vs := parser.Draft{Time: parser.StampOf(at(305)), Kind: parser.MultiAttach, Component: k, Node: "node3",
		Volume: "kubernetes.io/vsphere-volume/[vsanDatastore] kubevols/kubernetes-dynamic-pvc-2f53fe7e-846c-11e7-addd-0050569ccb52.vmdk",
		PV:     "pvc-2f53fe7e-846c-11e7-addd-0050569ccb52", Text: parser.TextOf("vsphere")}.Event()
	vsEcho := parser.Draft{Time: parser.StampOf(at(306)), Kind: parser.MultiAttach, Component: parser.ComponentEvents, Origin: parser.OriginEvent,
		PV: "pvc-2f53fe7e-846c-11e7-addd-0050569ccb52", Text: parser.TextOf("vsphere echo")}.Event()
	r := seedKCM()
	r.Events = append(r.Events, vaOnly, pvOnly, handleOnly, stray, secret, vs, vsEcho)
	tl := Build([]parser.Result{r}, Options{})
	if len(tl.Volumes) != 3 {
		t.Fatalf("volumes %d, want cbs, grafana, vsphere", len(tl.Volumes))
	}
	cbs := tl.Volumes[0]
	if cbs.Key() != vU || cbs.Driver() != "com.tencent.cloud.csi.cbs" || cbs.Handle != "disk-7x9qk2mz" || cbs.PV != vPV {
		t.Errorf("cbs volume %+v", cbs)
	}
	if len(cbs.Events) != len(seedKCM().Events)+3 {
		t.Errorf("cbs has %d events, want the VA, PV and handle lines joined", len(cbs.Events))
	}
	if !slices.Contains(cbs.Attachments(), "csi-47e2661afacd684dd8a1d3236d7dbbf5e16e99f6dc5b879275532fc8b059c239") {
		t.Errorf("VA of node B not computed: %v", cbs.Attachments())
	}
	if tl.Volumes[1].Key() != "grafana" {
		t.Errorf("stray volume %q", tl.Volumes[1].Key())
	}
	vsv := tl.Volumes[2]
	if vsv.Handle != "[vsanDatastore] kubevols/kubernetes-dynamic-pvc-2f53fe7e-846c-11e7-addd-0050569ccb52.vmdk" || len(vsv.Events) != 2 {
		t.Errorf("vsphere volume %+v", vsv)
	}
	if tl.Ignored != 1 || len(tl.Other) != 1 {
		t.Errorf("ignored %d other %d", tl.Ignored, len(tl.Other))
	}
}

func TestMulti(t *testing.T) {
	k := parser.ComponentKCM
	// 1: the nestedpendingoperations key carries a node
	f := ev(1, parser.AttachFailed, k, nodeA)
	f.Text = parser.TextOf(`Operation for "{volumeName:` + vU + ` podName: nodeName:10.0.3.15}" failed. No retries permitted until …`)
	f.SetRepeat(parser.Repeat{RWXKey: parser.HasRWXKey(f.Text.String())}) // as the parser sets it
	v := one(t, Build([]parser.Result{result("kcm.log", k.String(), ev(0, parser.AttachStarted, k, nodeA), f)}, Options{}))
	if !v.Multi {
		t.Error("nodeName key not taken as RWX evidence")
	}
	// 2: two confirmed attachments, both mounted
	kl := parser.ComponentKubelet
	rwx := []parser.Result{
		result("kcm.log", k.String(), ev(0, parser.AttachStarted, k, nodeA), ev(1, parser.AttachSucceeded, k, nodeA),
			ev(10, parser.AttachStarted, k, nodeB), ev(11, parser.AttachSucceeded, k, nodeB)),
		result("a.log", kl.String(), ev(2, parser.MountDeviceSucceeded, kl, nodeA)),
		result("b.log", kl.String(), ev(12, parser.MountDeviceSucceeded, kl, nodeB)),
	}
	v = one(t, Build(rwx, Options{}))
	if !v.Multi || len(v.Overlaps()) == 0 {
		t.Errorf("RWX volume: multi %v overlaps %d", v.Multi, len(v.Overlaps()))
	}
	// the seed (uncertain A) is not RWX
	if one(t, Build([]parser.Result{seedKCM()}, Options{})).Multi {
		t.Error("seed flagged multi")
	}
	// a Multi-Attach error rules it out
	rwx[0].Events = append(rwx[0].Events, ev(9, parser.MultiAttach, k, nodeB))
	if one(t, Build(rwx, Options{})).Multi {
		t.Error("multi despite a Multi-Attach error")
	}
}

func TestFind(t *testing.T) {
	k := parser.ComponentKCM
	other := parser.Draft{Time: parser.StampOf(at(5)), Kind: parser.AttachStarted, Component: k, Node: "worker-7", Pod: "web/nginx-0",
		Volume: "kubernetes.io/aws-ebs/aws://eu-west-1a/vol-0abc", PV: "pvc-11111111-2222-3333-4444-555555555555", Text: parser.TextOf("x")}.Event()
	r := seedKCM()
	r.Events[4].SetPod("default/mysql-0", nil)
	r.Events = append(r.Events, other)
	tl := Build([]parser.Result{r}, Options{})
	for _, q := range []string{"disk-7x9qk2mz", "7x9q", "DISK-7X9QK2MZ", "csi-9239c0a1", vPV} {
		m, _ := tl.Find(q)
		if len(m) != 1 || m[0].Key() != vU {
			t.Errorf("Find(%q) = %d volumes", q, len(m))
		}
	}
	if m, _ := tl.Find("dk7x9"); len(m) != 1 || m[0].Key() != vU { // fuzzy subsequence
		t.Errorf("fuzzy Find: %d", len(m))
	}
	m, sug := tl.Find("disk-7x9qk2mx") // typo
	if len(m) != 0 || len(sug) == 0 || sug[0] != "disk-7x9qk2mz" {
		t.Errorf("typo: matches %d suggestions %v", len(m), sug)
	}
	if m, _ := tl.FilterNode("worker-7"); len(m) != 1 || m[0].Driver() != "kubernetes.io/aws-ebs" {
		t.Errorf("FilterNode: %d", len(m))
	}
	if _, sug := tl.FilterNode("worker-8x"); !slices.Contains(sug, "worker-7") {
		t.Errorf("FilterNode suggestions %v", sug)
	}
	if m, _ := tl.FilterPod("mysql-0"); len(m) != 1 || m[0].Key() != vU {
		t.Errorf("FilterPod: %d", len(m))
	}
}

// isDynamicPV, and isUID on what follows "pvc-", say what their regexps say.
func TestIsDynamicPVMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^pvc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	uid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	good := "pvc-0123abcd-4567-89ef-abcd-0123456789ab"
	cases := []string{"", "pvc-", good, good + "\n", good + "0", good[:len(good)-1], "x" + good[1:], strings.ToUpper(good), "pv-static", "pvc-0123abcd-4567-89ef-abcd-0123456789ag", "pvc-0123abcd_4567-89ef-abcd-0123456789ab"}
	for i := range good {
		for _, c := range []byte{'-', 'g', '0', 'A', '\n', 0xc3} {
			b := []byte(good)
			b[i] = c
			cases = append(cases, string(b))
		}
	}
	for _, c := range cases {
		if got, want := isDynamicPV(c), re.MatchString(c); got != want {
			t.Errorf("isDynamicPV(%q) = %v, regexp says %v", c, got, want)
		}
		if len(c) >= 4 {
			if got, want := isUID(c[4:]), uid.MatchString(c[4:]); got != want {
				t.Errorf("isUID(%q) = %v, regexp says %v", c[4:], got, want)
			}
		}
	}
}
