package parser

import (
	"strings"
	"testing"
	"time"
)

func TestParseAgeField(t *testing.T) {
	tests := []struct {
		in    string
		age   time.Duration
		count int
		over  time.Duration
		ok    bool
	}{
		{in: "28s", age: 28 * time.Second, ok: true},
		{in: "4m12s", age: 4*time.Minute + 12*time.Second, ok: true},
		{in: "22m (x35 over 77m)", age: 22 * time.Minute, count: 35, over: 77 * time.Minute, ok: true},
		{in: "2d3h", age: 51 * time.Hour, ok: true},
		{in: "3y12d", age: (3*365 + 12) * 24 * time.Hour, ok: true},
		{in: "<unknown>"},
		{in: "abc"},
		{in: "5"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			age, count, over, ok, _ := parseAgeField(tt.in)
			if ok != tt.ok || age != tt.age || count != tt.count || over != tt.over {
				t.Errorf("got %v %d %v %v", age, count, over, ok)
			}
		})
	}
}

func TestTables(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		rows    int // events expected (all rows here are volume related)
		reason  string
		from    string
		node    string
		count   int
		span    time.Duration
		age     time.Duration
		message string // prefix of the first row's message
	}{
		{
			name: "describe >=1.20",
			in: "Events:\n  Type     Reason       Age                 From     Message\n  ----     ------       ----                ----     -------\n" +
				"  Warning  FailedMount  22m (x35 over 77m)  kubelet  MountVolume.MountDevice failed for volume \"pvc-X\" : rpc error: code = Internal desc = can not find diskId disk-rhts\n",
			rows: 1, reason: "FailedMount", from: "kubelet", count: 35, span: 55 * time.Minute, age: 22 * time.Minute,
			message: "MountVolume.MountDevice failed for volume \"pvc-X\"",
		},
		{
			name: "describe <=1.19 from with node",
			in:   "  Warning  FailedMount  2m1s (x4 over 8m10s)  kubelet, 10.0.3.27  MountVolume.MountDevice failed for volume \"pvc-5\" : x\n",
			rows: 1, reason: "FailedMount", from: "kubelet, 10.0.3.27", node: "10.0.3.27", count: 4, span: 6*time.Minute + 9*time.Second, age: 2*time.Minute + time.Second,
			message: "MountVolume.MountDevice failed",
		},
		{
			name: "unindented row (seed)",
			in:   "Warning  FailedMount  22m (x35 over 77m)    kubelet  MountVolume.MountDevice failed for volume \"pvc-XXX\" : rpc error\n",
			rows: 1, reason: "FailedMount", from: "kubelet", count: 35, span: 55 * time.Minute, age: 22 * time.Minute,
			message: "MountVolume.MountDevice failed",
		},
		{
			name: "hard-wrapped token",
			in: "  Type     Reason       Age   From  Message\n" +
				"  Warning  FailedMount  2m8s  kubelet, ip-1  Unable to mount volumes for pod \"app_default(1)\": timeout expired waiting for volumes to attach or mount for pod \"default\"/\"app\". list of unmounted volumes=[s]. list of unattached volumes=[s def\nault-token-qz8h2]\n",
			rows: 1, reason: "FailedMount", from: "kubelet, ip-1", node: "ip-1", age: 2*time.Minute + 8*time.Second,
			message: "Unable to mount volumes",
		},
		{
			name: "collapsed rows",
			in:   "  Warning  FailedAttachVolume     1m    attachdetach-controller  AttachVolume.Attach failed for volume \"pvc-c\" : a  Warning  FailedAttachVolume     1m    attachdetach-controller  AttachVolume.Attach failed for volume \"pvc-c\" : b  Normal  SuccessfulAttachVolume  30s  attachdetach-controller  AttachVolume.Attach succeeded for volume \"pvc-c\"\n",
			rows: 3, reason: "FailedAttachVolume", from: "attachdetach-controller", age: time.Minute,
			message: "AttachVolume.Attach failed for volume \"pvc-c\" : a",
		},
		{
			name: "old tab layout",
			in: "  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubobjectPath\tType\t\tReason\t\tMessage\n  ---------\t--------\t-----\t----\t\t\t-------------\t--------\t------\t\t-------\n" +
				"  4m\t\t3m\t\t8\t{controller-manager }\t\t\tWarning\t\tFailedMount\tFailed to attach volume \"grafana\" on node \"ip-1\" with: VolumeInUse\n\t\tstatus code: 400, request id: \n" +
				"  2m\t\t2m\t1\t{kubelet ip-10-1}\t\t\t\t\tWarning\tFailedMount\tUnable to mount volumes for pod \"g\": timeout expired waiting for volumes to attach/mount\n",
			rows: 2, reason: "FailedMount", from: "controller-manager", count: 8, span: time.Minute, age: 3 * time.Minute,
			message: "Failed to attach volume \"grafana\" on node \"ip-1\" with: VolumeInUse\n\t\tstatus code: 400, request id:",
		},
		{
			name: "get events",
			in: "LAST SEEN  TYPE     REASON       OBJECT       MESSAGE\n" +
				"2m1s       Warning  FailedMount  pod/mysql-0  MountVolume.MountDevice failed for volume \"pvc-5\" : x\n",
			rows: 1, reason: "FailedMount", age: 2*time.Minute + time.Second,
			message: "MountVolume.MountDevice failed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rows []tableRow
			var metas []tableRowParse
			restore := classifyFn
			defer func() { classifyFn = restore }()
			classifyFn = func(rec record) (Draft, bool) {
				if rec.Table == nil {
					return Draft{}, false
				}
				rows = append(rows, *rec.Table)
				return Draft{Kind: Unknown}, true
			}
			res := ParseReader(strings.NewReader(tt.in), "d.txt", Options{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
			if len(rows) != tt.rows || len(res.Events) != tt.rows {
				t.Fatalf("%d rows, %d events, want %d; input %+v", len(rows), len(res.Events), tt.rows, res.Input)
			}
			_ = metas
			r, ev := rows[0], res.Events[0]
			if r.Reason != tt.reason || r.From != tt.from || ev.Node != tt.node || int(ev.Count) != tt.count || ev.Span != tt.span || ev.Age != tt.age || !strings.HasPrefix(r.Message, tt.message) {
				t.Errorf("row %+v\nevent node=%q count=%d span=%v age=%v", r, ev.Node, ev.Count, ev.Span, ev.Age)
			}
			if !ev.Relative || !ev.Time.IsZero() {
				t.Errorf("a lone describe input must stay relative: %v %v", ev.Relative, ev.Time)
			}
			if u := res.Input.Unaccounted(); u != 0 {
				t.Errorf("unaccounted lines: %d (%+v)", u, res.Input)
			}
		})
	}
}

func TestDescribeAnchoredToOtherInput(t *testing.T) {
	kcm := writeTemp(t, "kcm.log", kcmRetry2021)
	desc := writeTemp(t, "describe.txt", "  Warning  FailedAttachVolume  1m (x3 over 2m)  attachdetach-controller  AttachVolume.Attach failed for volume \"pvc-1\" : boom\n")
	res, errs := ParseAll([]string{kcm, desc}, Options{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	ev := res[1].Events[0]
	// newest KCM time is 2021-01-13T08:27:19.123Z
	if ev.Relative || ev.Time.Format(time.RFC3339Nano) != "2021-01-13T08:26:19.123Z" {
		t.Errorf("time %s relative %v", ev.Time.Format(time.RFC3339Nano), ev.Relative)
	}
	if ev.Component != ComponentEvents || ev.Origin != OriginDescribe {
		t.Errorf("component %q origin %q", ev.Component, ev.Origin)
	}
}

// TestDescribeHeaderNamesPodAndNode: describe rows carry no pod and no node;
// the `kubectl describe pod` header above the Events table does.
func TestDescribeHeaderNamesPodAndNode(t *testing.T) {
	in := "Name:         redis-master-0\n" +
		"Namespace:    db\n" +
		"Node:         172.28.1.72/172.28.1.72\n" +
		"Events:\n" +
		"  Type     Reason       Age                 From     Message\n" +
		"  ----     ------       ----                ----     -------\n" +
		"  Warning  FailedMount  22m (x35 over 77m)  kubelet  MountVolume.MountDevice failed for volume \"pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36\" : rpc error: code = Internal desc = can not find diskId disk-rhtsqync by serial\n" +
		"Name:         pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36\n" +
		"Events:\n" +
		"  Type     Reason              Age  From                     Message\n" +
		"  ----     ------              ---- ----                     -------\n" +
		"  Warning  FailedAttachVolume  5m   attachdetach-controller  AttachVolume.Attach failed for volume \"pvc-2708bf81-6678-4999-9ca2-9a8d2eae3c36\" : rpc error: code = Internal desc = Code=ResourceUnavailable.ZoneNotMatch\n"
	res := ParseReader(strings.NewReader(in), "describe.txt", Options{})
	if len(res.Events) != 2 {
		t.Fatalf("%d events, want 2: %+v", len(res.Events), res.Input)
	}
	if ev := res.Events[0]; ev.Pod != "db/redis-master-0" || ev.Node != "172.28.1.72" {
		t.Errorf("row under the pod's header: pod %q node %q, want db/redis-master-0 on 172.28.1.72", ev.Pod, ev.Node)
	}
	// A PV's describe has no Node: line, so its rows name no pod or node.
	if ev := res.Events[1]; ev.Pod != "" || ev.Node != "" {
		t.Errorf("row under a PV's header: pod %q node %q, want neither", ev.Pod, ev.Node)
	}
}
