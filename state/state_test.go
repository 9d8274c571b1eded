package state

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const (
	nodeA = "10.0.3.15"
	nodeB = "10.0.3.27"
	pv1   = "pvc-5d6c3d9e-8b1a-4c0e-9f2e-3a7b8c9d0e1f"
	pv2   = "pvc-a41c7f20-3e5b-4d9a-8c71-6b2e9f0d1a53"
	cbs   = "com.tencent.cloud.csi.cbs"
	u1    = "kubernetes.io/csi/" + cbs + "^disk-7x9qk2mz"
	vaA   = "csi-9239c0a1144a95d8ff66f89edfb9703662060c0039e7a66100b722c89c3e693a"
	vaB   = "csi-47e2661afacd684dd8a1d3236d7dbbf5e16e99f6dc5b879275532fc8b059c239"
)

func load(t *testing.T, paths ...string) *Snapshot {
	t.Helper()
	s := &Snapshot{}
	for _, p := range paths {
		if err := s.ReadFile(filepath.Join("testdata", p)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func problems(s *Snapshot) []string {
	var out []string
	for _, p := range s.Problems {
		out = append(out, strings.TrimPrefix(p.String(), "testdata/"))
	}
	return out
}

// TestAttachmentName checks the formula against the VA names the seed
// kubelet log prints as device paths (catalog §3.7).
func TestAttachmentName(t *testing.T) {
	for _, tc := range []struct{ handle, node, want string }{
		{"disk-7x9qk2mz", nodeA, vaA},
		{"disk-7x9qk2mz", nodeB, vaB},
		{"disk-4k8m2p1q", nodeB, "csi-9bbfaf38eac6277873654068b3188888c1523bfb763e8183a66b3b7953ddd510"},
	} {
		if got := AttachmentName(tc.handle, cbs, tc.node); got != tc.want {
			t.Errorf("AttachmentName(%s, %s) = %s, want %s", tc.handle, tc.node, got, tc.want)
		}
	}
	log, err := os.ReadFile("../testdata/incidents/seed-legacy/kubelet.log")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `device path: "`+vaB+`"`) {
		t.Errorf("seed kubelet log does not name %s as the device path", vaB)
	}
}

// TestFormats reads the seed dump in every format and checks that each
// gives the same objects.
func TestFormats(t *testing.T) {
	jsonS, yamlS := load(t, "seed-legacy/state.json"), load(t, "seed-legacy/state.yaml")
	for _, s := range []*Snapshot{jsonS, yamlS} {
		if len(s.Problems) > 0 {
			t.Fatalf("problems: %v", problems(s))
		}
		got := map[string]int{"VolumeAttachment": len(s.VolumeAttachments), "PersistentVolume": len(s.PersistentVolumes),
			"PersistentVolumeClaim": len(s.PersistentVolumeClaims), "Node": len(s.Nodes), "CSINode": len(s.CSINodes),
			"CSIDriver": len(s.CSIDrivers), "StorageClass": len(s.StorageClasses), "Pod": len(s.Pods)}
		want := map[string]int{"VolumeAttachment": 2, "PersistentVolume": 2, "PersistentVolumeClaim": 2, "Node": 3,
			"CSINode": 3, "CSIDriver": 1, "StorageClass": 1, "Pod": 2}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: kinds %v, want %v", s.Files[0].Path, got, want)
		}
		if f := s.Files[0]; f.Role != RoleState || f.Objects != 16 || f.TakenFrom != "heartbeat" ||
			!f.Taken.Equal(time.Date(2024, 8, 12, 4, 10, 2, 0, time.UTC)) {
			t.Errorf("file %+v", f)
		}
	}
	// the same objects, source aside
	strip := func(s *Snapshot) *Snapshot {
		c := *s
		c.Files, c.idx = nil, nil
		for _, x := range c.PersistentVolumes {
			x.Source = Source{}
		}
		for _, x := range c.VolumeAttachments {
			x.Source = Source{}
		}
		for _, x := range c.Nodes {
			x.Source = Source{}
		}
		return &c
	}
	j, y := strip(jsonS), strip(yamlS)
	for i := range j.PersistentVolumes {
		if !reflect.DeepEqual(j.PersistentVolumes[i], y.PersistentVolumes[i]) {
			t.Errorf("PV %d: json %+v\nyaml %+v", i, j.PersistentVolumes[i], y.PersistentVolumes[i])
		}
	}
	for i := range j.VolumeAttachments {
		if !reflect.DeepEqual(j.VolumeAttachments[i], y.VolumeAttachments[i]) {
			t.Errorf("VA %d: json %+v\nyaml %+v", i, j.VolumeAttachments[i], y.VolumeAttachments[i])
		}
	}
	for i := range j.Nodes {
		if !reflect.DeepEqual(j.Nodes[i], y.Nodes[i]) {
			t.Errorf("Node %d: json %+v\nyaml %+v", i, j.Nodes[i], y.Nodes[i])
		}
	}
}

// TestSourceLines checks that objects keep the line they start on.
func TestSourceLines(t *testing.T) {
	for _, tc := range []struct {
		path string
		line func(*Snapshot) int
		want string
	}{
		{"seed-legacy/state.json", func(s *Snapshot) int { return s.VolumeAttachment(vaB).Source.Line }, `{`},
		{"seed-legacy/state.yaml", func(s *Snapshot) int { return s.VolumeAttachment(vaB).Source.Line }, `- apiVersion: storage.k8s.io/v1`},
		{"seed-legacy/state.json", func(s *Snapshot) int { return s.Node(nodeB).Source.Line }, `{`},
		{"seed-legacy/events.yaml", func(s *Snapshot) int { return s.Events[0].Source.Line }, `action: ''`},
		{"seed-legacy/describe-pvc.txt", func(s *Snapshot) int { return s.PVC("default/data-redis-0").Source.Line }, `Name:          data-redis-0`},
	} {
		s := load(t, tc.path)
		data, _ := os.ReadFile(filepath.Join("testdata", tc.path))
		lines := strings.Split(string(data), "\n")
		n := tc.line(s)
		if n < 1 || strings.TrimSpace(lines[n-1]) != tc.want {
			t.Errorf("%s: line %d is %q, want %q", tc.path, n, lines[max(n-1, 0)], tc.want)
		}
	}
	// the VA object in the JSON List names itself a few lines below its start
	s := load(t, "seed-legacy/state.json")
	data, _ := os.ReadFile("testdata/seed-legacy/state.json")
	lines := strings.Split(string(data), "\n")
	at := s.VolumeAttachment(vaB).Source.Line
	if !strings.Contains(strings.Join(lines[at-1:at+10], "\n"), vaB) {
		t.Errorf("line %d does not start the object of %s", at, vaB)
	}
}

func TestIdentity(t *testing.T) {
	s := load(t, "seed-legacy/state.json")
	for _, name := range []string{pv1, u1, "disk-7x9qk2mz", vaB} {
		if pv := s.PV(name); pv == nil || pv.Name != pv1 {
			t.Errorf("PV(%s) = %v, want %s", name, pv, pv1)
		}
	}
	if pv := s.PV("disk-nope"); pv != nil {
		t.Errorf("PV(disk-nope) = %s", pv.Name)
	}
	pv := s.PV(pv1)
	if got, want := pv.Names(nodeA, nodeB), []string{pv1, u1, "disk-7x9qk2mz", vaA, vaB}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	for _, va := range s.VolumeAttachments {
		if va.Name != va.ExpectedName(s.PV(va.PV).VolumeID) {
			t.Errorf("VA %s: expected name %s", va.Name, va.ExpectedName(s.PV(va.PV).VolumeID))
		}
	}
	for _, tc := range []struct{ driver, id, unique, handle string }{
		{pluginAWS, "aws://eu-west-1a/vol-0a1b2c", "kubernetes.io/aws-ebs/aws://eu-west-1a/vol-0a1b2c", "vol-0a1b2c"},
		{pluginAWS, "vol-a8f1ae0c", "kubernetes.io/aws-ebs/vol-a8f1ae0c", "vol-a8f1ae0c"},
		{pluginCinder, "718bfbdc-3f14", "kubernetes.io/cinder/718bfbdc-3f14", "718bfbdc-3f14"},
		{pluginAzure, "/subscriptions/s/disks/d1", "kubernetes.io/azure-disk//subscriptions/s/disks/d1", "/subscriptions/s/disks/d1"},
		{"ebs.csi.aws.com", "vol-1", "kubernetes.io/csi/ebs.csi.aws.com^vol-1", "vol-1"},
	} {
		p := &PersistentVolume{Driver: tc.driver, VolumeID: tc.id}
		if p.UniqueName() != tc.unique || p.Handle() != tc.handle {
			t.Errorf("%s %s: UniqueName %s Handle %s, want %s %s", tc.driver, tc.id, p.UniqueName(), p.Handle(), tc.unique, tc.handle)
		}
	}
}

func TestZone(t *testing.T) {
	s := load(t, "seed-legacy/state.json")
	c, ok := s.CheckZone(u1, nodeA)
	if !ok || c.Match {
		t.Fatalf("CheckZone(A) = %+v, %v; want a mismatch", c, ok)
	}
	want := []string{
		`seed-legacy/state.json:4: PersistentVolume ` + pv1 + ` spec.nodeAffinity topology.com.tencent.cloud.csi.cbs/zone in [ap-guangzhou-4]`,
		`seed-legacy/state.json:` + itoa(s.Node(nodeA).Source.Line) + `: Node 10.0.3.15 label topology.com.tencent.cloud.csi.cbs/zone=ap-guangzhou-3`,
	}
	for i, e := range c.Evidence() {
		if got := strings.TrimPrefix(e.String(), "testdata/"); got != want[i] {
			t.Errorf("evidence %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if c, ok := s.CheckZone(pv1, nodeB); !ok || !c.Match {
		t.Errorf("CheckZone(B) = %+v, %v; want a match", c, ok)
	}
	// the node label the PV term uses wins over the failure-domain label (100003)
	if z, _ := s.NodeZone(nodeA, ""); z.Zones[0] != "ap-guangzhou-3" || z.Key != LabelZone {
		t.Errorf("NodeZone = %+v", z)
	}
	// labels and in-tree ids
	s2 := &Snapshot{}
	s2.Add("pv.yaml", []byte(`apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-legacy
  labels:
    failure-domain.beta.kubernetes.io/zone: eu-west-1a__eu-west-1b
spec:
  awsElasticBlockStore: {volumeID: "aws://eu-west-1c/vol-1"}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-intree}
spec:
  awsElasticBlockStore: {volumeID: "aws://eu-west-1c/vol-2"}
`))
	if z, ok := s2.VolumeZone("pv-legacy"); !ok || !reflect.DeepEqual(z.Zones, []string{"eu-west-1a", "eu-west-1b"}) || z.Key != LabelZoneLegacy {
		t.Errorf("legacy label zone = %+v", z)
	}
	if z, ok := s2.VolumeZone("kubernetes.io/aws-ebs/aws://eu-west-1c/vol-2"); !ok || z.Zones[0] != "eu-west-1c" || z.Evidence.Source.Line != 10 {
		t.Errorf("in-tree zone = %+v", z)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestAttachments(t *testing.T) {
	s := load(t, "seed-legacy/state.json", "seed-legacy/describe-va.txt")
	vas := s.Attachments(u1)
	if len(vas) != 2 {
		t.Fatalf("Attachments = %d, want 2", len(vas))
	}
	b := s.AttachmentOn(pv1, nodeB)
	if b == nil || !b.Attached || b.StuckDetach() {
		t.Fatalf("VA on B = %+v", b)
	}
	if got, want := strings.TrimPrefix(s.AttachmentEvidence(b).String(), "testdata/"),
		"seed-legacy/state.json:"+itoa(b.Source.Line)+": VolumeAttachment "+vaB+" node=10.0.3.27 pv="+pv1+" status.attached=true"; got != want {
		t.Errorf("evidence\n got %s\nwant %s", got, want)
	}
	a := s.AttachmentOn("disk-7x9qk2mz", nodeA)
	if a == nil || a.Attached || !a.StuckDetach() || a.AttachError == nil {
		t.Fatalf("VA on A = %+v", a)
	}
	want := "seed-legacy/describe-va.txt:1: VolumeAttachment " + vaA + " node=10.0.3.15 pv=" + pv1 +
		` status.attached=false attachError="rpc error: code = Internal desc = [TencentCloudSDKError] Code=ResourceUnavailable.ZoneNotMatch, Message=DiskId: disk-7x9qk2mz, 可用区不匹配 (5e2b9c0d7a41)"@2024-08-12T03:43:06Z` +
		" deletionTimestamp=2024-08-12T03:45:18Z finalizers=[external-attacher/com-tencent-cloud-csi-cbs]"
	if got := strings.TrimPrefix(s.AttachmentEvidence(a).String(), "testdata/"); got != want {
		t.Errorf("evidence\n got %s\nwant %s", got, want)
	}
	if a.Name != a.ExpectedName("disk-7x9qk2mz") {
		t.Errorf("describe VA name %s is not the computed one", a.Name)
	}
}

func TestDriverAndLoad(t *testing.T) {
	s := load(t, "seed-legacy/state.json")
	d, ok := s.DriverOnNode(nodeB, cbs)
	if !ok || !d.Registered || d.Allocatable != 20 {
		t.Errorf("DriverOnNode = %+v, %v", d, ok)
	}
	if d, ok := s.DriverOnNode(nodeB, "ebs.csi.aws.com"); !ok || d.Registered || !strings.Contains(d.Evidence.Text, "(no ebs.csi.aws.com)") {
		t.Errorf("DriverOnNode(other) = %+v, %v", d, ok)
	}
	if _, ok := s.DriverOnNode("10.9.9.9", cbs); ok {
		t.Error("DriverOnNode of an unknown node answered")
	}
	l, ok := s.LoadOnNode(nodeB, cbs)
	if !ok || l.Count != 2 || l.Limit != 20 || l.Full || len(l.Attached) != 2 || len(l.InUse) != 2 || len(l.VAs) != 2 {
		t.Errorf("LoadOnNode = %+v, %v", l, ok)
	}
	if l, _ := s.LoadOnNode(nodeA, cbs); l.Count != 0 || l.Limit != 20 {
		t.Errorf("LoadOnNode(A) = %+v", l)
	}
}

func TestPresenceChainClass(t *testing.T) {
	s := load(t, "seed-legacy/state.json", "seed-legacy/describe-pvc.txt")
	p := s.VolumePresence(pv2)
	if p.PV == nil || p.PVC == nil || !p.Deleting || !p.Listed {
		t.Errorf("presence %+v", p)
	}
	if p := s.VolumePresence("pvc-00000000-0000-0000-0000-000000000000"); p.PV != nil || !p.Listed {
		t.Errorf("presence of a missing PV %+v", p)
	}
	c, ok := s.PodChain("default/mysql-0")
	if !ok || c.Node != nodeB || len(c.Claims) != 1 || c.Claims[0].PV == nil || c.Claims[0].PV.Name != pv1 {
		t.Fatalf("PodChain = %+v, %v", c, ok)
	}
	if got := c.Evidence[0].Text; got != "Pod mysql-0 spec.nodeName=10.0.3.27 volumes=[data→data-mysql-0]" {
		t.Errorf("chain evidence %q", got)
	}
	if pods := s.PodsUsing(u1); len(pods) != 1 || pods[0].Name != "mysql-0" {
		t.Errorf("PodsUsing = %v", pods)
	}
	sc, ev, ok := s.Class(pv1)
	if !ok || sc.BindingMode != "Immediate" || ev.Text != "StorageClass cbs provisioner="+cbs+" volumeBindingMode=Immediate" {
		t.Errorf("Class = %+v %q", sc, ev.Text)
	}
	if m, ev, ok := s.Access(pv1); !ok || !reflect.DeepEqual(m, []string{"RWO"}) || ev.Text != "PersistentVolume "+pv1+" spec.accessModes=[RWO]" {
		t.Errorf("Access = %v %q", m, ev.Text)
	}
}

func TestEvents(t *testing.T) {
	s := load(t, "seed-legacy/events.json", "seed-legacy/events.yaml")
	if len(s.Problems) > 0 {
		t.Fatal(problems(s))
	}
	for _, f := range s.Files {
		if f.Role != RoleEvents {
			t.Errorf("%s role %s", f.Path, f.Role)
		}
	}
	ts := func(v string) time.Time { x, _ := time.Parse(time.RFC3339Nano, v); return x }
	for _, tc := range []struct {
		i                   int
		reason, component   string
		first, last         string
		count               int
		involved, msgPrefix string
	}{
		{0, "FailedAttachVolume", "attachdetach-controller", "2024-08-12T03:10:01Z", "2024-08-12T03:43:06Z", 24, "default/mysql-0", "AttachVolume.Attach failed"},
		{1, "SuccessfulAttachVolume", "attachdetach-controller", "2024-08-12T03:45:13Z", "2024-08-12T03:45:13Z", 1, "default/mysql-0", "AttachVolume.Attach succeeded"},
		{2, "FailedMount", "kubelet", "2024-08-12T03:52:41Z", "2024-08-12T04:06:59.017187Z", 14, "default/mysql-0", "MountVolume.WaitForAttach failed"},
	} {
		e := s.Events[tc.i]
		if e.Reason != tc.reason || e.Component != tc.component || !e.First.Equal(ts(tc.first)) || !e.Last.Equal(ts(tc.last)) ||
			e.Count != tc.count || e.Involved.Key() != tc.involved || !strings.HasPrefix(e.Message, tc.msgPrefix) {
			t.Errorf("event %d = %+v", tc.i, e)
		}
	}
	if got := s.EventEvidence(s.Events[2]).Text; !strings.HasPrefix(got, "Event mysql-0.17eab4f0a1b2c3d4 Warning Pod/default/mysql-0 FailedMount first=2024-08-12T03:52:41Z last=2024-08-12T04:06:59Z count=14 from=kubelet ") {
		t.Errorf("event evidence %s", got)
	}
}

func TestDescribe(t *testing.T) {
	s := load(t, "seed-legacy/describe-pv.txt", "seed-legacy/describe-pvc.txt", "seed-legacy/describe-node.txt", "seed-legacy/describe-va.txt")
	if len(s.Problems) > 0 {
		t.Fatal(problems(s))
	}
	pv := s.PV(u1)
	want := &PersistentVolume{Meta: Meta{Kind: "PersistentVolume", Name: pv1,
		Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": cbs},
		Finalizers:  []string{"kubernetes.io/pv-protection", "external-attacher/com-tencent-cloud-csi-cbs"},
		Source:      Source{Path: "testdata/seed-legacy/describe-pv.txt", Line: 1, Format: "describe"}},
		AccessModes: []string{"RWO"}, Capacity: "20Gi", StorageClass: "cbs", ReclaimPolicy: "Delete", VolumeMode: "Filesystem",
		Claim: ObjectRef{Kind: "PersistentVolumeClaim", Namespace: "default", Name: "data-mysql-0"}, Phase: "Bound",
		Driver: cbs, VolumeID: "disk-7x9qk2mz", FSType: "ext4",
		Affinity: [][]Requirement{{{Key: "topology.com.tencent.cloud.csi.cbs/zone", Operator: "In", Values: []string{"ap-guangzhou-4"}}}}}
	if !reflect.DeepEqual(pv, want) {
		t.Errorf("describe PV\n got %+v\nwant %+v", pv, want)
	}
	c := s.PVC("default/data-mysql-0")
	if c == nil || c.Volume != pv1 || c.Annotations["volume.kubernetes.io/selected-node"] != nodeA || len(c.Annotations) != 3 || c.Deleting() {
		t.Errorf("describe PVC %+v", c)
	}
	if r := s.PVC("default/data-redis-0"); r == nil || !r.Deleting() || r.Phase != "Terminating" {
		t.Errorf("describe PVC redis %+v", r)
	}
	n := s.Node(nodeA)
	if n == nil || n.Labels["topology.kubernetes.io/zone"] != "ap-guangzhou-3" || len(n.Labels) != 5 || n.Ready != "True" ||
		!n.Heartbeat.Equal(time.Date(2024, 8, 12, 4, 8, 11, 0, time.UTC)) || n.Addresses["InternalIP"] != nodeA ||
		n.ProviderID != "qcloud:///100003/ins-1003015" || n.Allocatable["pods"] != "61" {
		t.Errorf("describe Node %+v", n)
	}
	if n != nil && n.Taints != nil {
		t.Errorf("describe Node Taints: <none> read as %+v", n.Taints)
	}
	if c, ok := s.CheckZone(pv1, nodeA); !ok || c.Match {
		t.Errorf("zone check from describe %+v %v", c, ok)
	}
	va := s.VolumeAttachment(vaA)
	if va == nil || va.Node != nodeA || va.PV != pv1 || va.Attacher != cbs || va.UID != "7f6e5d4c-3b2a-4190-8f7e-6d5c4b3a2918" {
		t.Errorf("describe VA %+v", va)
	}
	if f := s.File("testdata/seed-legacy/describe-node.txt"); f.TakenFrom != "heartbeat" || f.Format != "describe" {
		t.Errorf("file %+v", f)
	}
}

// TestDescribeNodeTaints: describe node's Taints: lines (the first on the
// key's line, the rest below it) become the Node's taints, with or
// without a value; the out-of-service taint is what NodeHealth reports,
// and a line of another shape is a problem, not a taint.
func TestDescribeNodeTaints(t *testing.T) {
	const node = "Name:               10.0.3.15\n" +
		"Roles:              <none>\n" +
		"CreationTimestamp:  Mon, 05 Aug 2024 02:11:09 +0000\n" +
		"Taints:             node.kubernetes.io/out-of-service=nodeshutdown:NoExecute\n" +
		"                    node.kubernetes.io/unreachable:NoSchedule\n" +
		"                    %s\n" +
		"Unschedulable:      true\n" +
		"Addresses:\n" +
		"  InternalIP:  10.0.3.15\n"
	s := &Snapshot{}
	s.Add("describe-node.txt", []byte(fmt.Sprintf(node, "node.kubernetes.io/unreachable:NoExecute")))
	if len(s.Problems) > 0 {
		t.Fatal(problems(s))
	}
	n := s.Node(nodeA)
	want := []Taint{
		{Key: OutOfServiceTaint, Value: "nodeshutdown", Effect: "NoExecute"},
		{Key: "node.kubernetes.io/unreachable", Effect: "NoSchedule"},
		{Key: "node.kubernetes.io/unreachable", Effect: "NoExecute"},
	}
	if n == nil || !reflect.DeepEqual(n.Taints, want) || !n.Unschedulable {
		t.Fatalf("describe Node taints\n got %+v\nwant %+v", n, want)
	}
	h, ok := s.NodeHealth(nodeA)
	if !ok || h.OutOfService == nil || h.OutOfService.Value != "nodeshutdown" ||
		!strings.Contains(h.Evidence.Text, "taints=[node.kubernetes.io/out-of-service=nodeshutdown:NoExecute") {
		t.Errorf("NodeHealth from describe %+v %v", h, ok)
	}

	bad := &Snapshot{}
	bad.Add("describe-node.txt", []byte(fmt.Sprintf(node, "not a taint")))
	if n := bad.Node(nodeA); n == nil || len(n.Taints) != 2 {
		t.Errorf("a malformed Taints line is kept out: %+v", n)
	}
	if got := strings.Join(problems(bad), "\n"); !strings.Contains(got, `Taints "not a taint" is not key=value:effect`) {
		t.Errorf("problems %q", got)
	}
}

func TestMultiDocument(t *testing.T) {
	s := &Snapshot{}
	f := s.Add("multi.yaml", []byte(`# kubectl get va,csinode -o yaml, pasted one by one
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: `+vaB+`
spec:
  attacher: `+cbs+`
  nodeName: 10.0.3.27
  source:
    persistentVolumeName: `+pv1+`
status:
  attached: true
...
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: 10.0.3.27
spec:
  drivers:
  - name: `+cbs+`
    nodeID: ins-1
---
`))
	if len(s.Problems) > 0 || f.Objects != 2 || s.VolumeAttachments[0].Source.Line != 3 || s.CSINodes[0].Source.Line != 16 {
		t.Errorf("multi-doc: %v %+v VA line %d CSINode line %d", problems(s), f, s.VolumeAttachments[0].Source.Line, s.CSINodes[0].Source.Line)
	}
	if d, _ := s.DriverOnNode(nodeB, cbs); d.Allocatable != -1 || !strings.HasSuffix(d.Evidence.Text, "allocatable.count=unset") {
		t.Errorf("driver without a limit %+v", d)
	}
	// concatenated JSON objects and a top-level array
	s = &Snapshot{}
	s.Add("cat.json", []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"a"}}
{"apiVersion":"v1","kind":"Node","metadata":{"name":"b"}}
[{"apiVersion":"v1","kind":"Node","metadata":{"name":"c"}},
 {"apiVersion":"v1","kind":"Node","metadata":{"name":"d"}}]`))
	var names []string
	for _, n := range s.Nodes {
		names = append(names, n.Name+":"+itoa(n.Source.Line))
	}
	if len(s.Problems) > 0 || strings.Join(names, " ") != "a:1 b:2 c:3 d:4" {
		t.Errorf("concatenated JSON: %v %v", names, problems(s))
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		path     string
		problems []string
		objects  int
	}{
		{"bad/truncated.json", []string{"bad/truncated.json:214: truncated JSON: the input ends inside a value"}, 4},
		{"bad/syntax.yaml", []string{"bad/syntax.yaml:12: YAML: did not find expected ',' or '}'; the document is not read"}, 2},
		{"bad/mixed.json", []string{
			"bad/mixed.json:9: VolumeAttachment without metadata.name (skipped)",
			"bad/mixed.json:20: Pod mysql-0: metadata.creationTimestamp \"yesterday\" is not an RFC 3339 time",
			"bad/mixed.json:26: PersistentVolume pvc-x: cannot unmarshal number into Go struct field .spec.capacity of type map[string]string (skipped)",
			"bad/mixed.json:4: kind Deployment is not read (2 objects skipped, the first here)",
		}, 2},
	} {
		s := load(t, tc.path)
		if got := problems(s); !reflect.DeepEqual(got, tc.problems) {
			t.Errorf("%s problems:\n got %q\nwant %q", tc.path, got, tc.problems)
		}
		if s.Files[0].Objects != tc.objects {
			t.Errorf("%s: %d objects, want %d", tc.path, s.Files[0].Objects, tc.objects)
		}
	}
	s := load(t, "bad/syntax.yaml")
	if sc := s.StorageClass("cbs"); sc == nil || sc.BindingMode != "WaitForFirstConsumer" || len(sc.AllowedTopologies) != 1 ||
		!reflect.DeepEqual(sc.AllowedTopologies[0][0].Values, []string{"ap-guangzhou-3", "ap-guangzhou-4"}) {
		t.Errorf("StorageClass after the bad document: %+v", sc)
	}
	s = &Snapshot{}
	s.Add("empty.json", []byte("  \n"))
	s.Add("text.json", []byte("{not json"))
	if got := problems(s); len(got) != 2 || got[0] != "empty.json: no Kubernetes objects found" || !strings.HasPrefix(got[1], "text.json:1: JSON syntax error") {
		t.Errorf("problems %q", got)
	}
	// kubectl get of a kind the cluster has none of prints an empty List:
	// a dump of nothing, not a problem.
	s = &Snapshot{}
	s.Add("csidrivers.json", []byte(`{"apiVersion": "v1", "items": [], "kind": "List", "metadata": {"resourceVersion": ""}}`))
	s.Add("csidrivers.yaml", []byte("apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"))
	s.Add("nothing.yaml", []byte("---\n"))
	if got := problems(s); len(got) != 1 || got[0] != "nothing.yaml: no Kubernetes objects found" {
		t.Errorf("empty Lists: problems %q", got)
	}
}

// TestGunzip: a gzipped dump reads as the dump; other data is left alone;
// a cut stream keeps what was read.
func TestGunzip(t *testing.T) {
	raw := []byte(`{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}`)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	for name, in := range map[string][]byte{"gzip": z.Bytes(), "plain": raw} {
		got, err := Gunzip(in)
		if err != nil || !bytes.Equal(got, raw) {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if got, err := Gunzip(z.Bytes()[:z.Len()-8]); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("cut: %q, %v", got, err)
	}
	s := &Snapshot{}
	dir := t.TempDir()
	path := filepath.Join(dir, "nodes.json.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadFile(path); err != nil || s.Node("n1") == nil {
		t.Errorf("ReadFile of a gzipped dump: %v, nodes %v", err, s.Nodes)
	}
}
