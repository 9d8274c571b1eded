package parser

import "testing"

func TestUnwrap(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		kind    wrapKind
		grep    bool
		payload string
		ts      string
		proc    string
		partial bool
		broken  bool
	}{
		{name: "bare klog", line: "I0812 03:10:00.612388       1 reconciler.go:288] x", kind: wrapNone, payload: "I0812 03:10:00.612388       1 reconciler.go:288] x"},
		{name: "journald", line: "Jun  7 05:19:34 node5 kubelet[1988]: E0607 05:19:34.279923    1988 x.go:1] m", kind: wrapJournald, payload: "E0607 05:19:34.279923    1988 x.go:1] m", ts: "Jun  7 05:19:34", proc: "kubelet"},
		{name: "journald two-digit day", line: "Dec 19 10:25:38 VM_128_5_centos kube-controller-manager[20402]: I1219 10:25:38.861740   20402 r.go:1] m", kind: wrapJournald, payload: "I1219 10:25:38.861740   20402 r.go:1] m", ts: "Dec 19 10:25:38", proc: "kube-controller-manager"},
		{name: "journald short-iso", line: "2024-08-12T03:14:11+0000 vm-3-27 kubelet[2783]: I0812 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0812 03:14:11.301223    2783 r.go:1] m", ts: "2024-08-12T03:14:11+0000", proc: "kubelet"},
		{name: "cri full", line: "2023-10-04T15:52:18.594244326Z stderr F I1004 15:52:18.593603       1 x.go:1] m", kind: wrapCRI, payload: "I1004 15:52:18.593603       1 x.go:1] m", ts: "2023-10-04T15:52:18.594244326Z"},
		{name: "cri partial", line: "2023-10-04T15:52:18.594244326Z stdout P I1004 15:52", kind: wrapCRI, payload: "I1004 15:52", ts: "2023-10-04T15:52:18.594244326Z", partial: true},
		{name: "kubectl timestamps with offset", line: "2025-07-23T03:20:43.248292357-04:00 I0723 07:20:43.246861       1 csi_handler.go:292] \"Detaching\"", kind: wrapKubectlTS, payload: "I0723 07:20:43.246861       1 csi_handler.go:292] \"Detaching\"", ts: "2025-07-23T03:20:43.248292357-04:00"},
		{name: "grep prefix and timestamps", line: "logs/ns/pod/csi-attacher.log:2025-07-23T03:20:43.248292357-04:00 I0723 07:20:43.246861       1 a.go:1] m", kind: wrapKubectlTS, grep: true, payload: "I0723 07:20:43.246861       1 a.go:1] m", ts: "2025-07-23T03:20:43.248292357-04:00"},
		{name: "grep -n prefix bare klog", line: "kcm.log:12:I0812 03:10:00.612388       1 r.go:1] m", kind: wrapNone, grep: true, payload: "I0812 03:10:00.612388       1 r.go:1] m"},
		{name: "docker json", line: `{"log":"I0107 08:38:57.002578       1 a.go:384] on node \"n1\"\n","stream":"stderr","time":"2018-01-07T08:38:57.002723622Z"}`, kind: wrapDocker, payload: `I0107 08:38:57.002578       1 a.go:384] on node "n1"`, ts: "2018-01-07T08:38:57.002723622Z"},
		{name: "docker json partial", line: `{"log":"I0107 08:38:57.002578 part","stream":"stderr","time":"2018-01-07T08:38:57Z"}`, kind: wrapDocker, payload: "I0107 08:38:57.002578 part", ts: "2018-01-07T08:38:57Z", partial: true},
		{name: "docker json unicode escape", line: `{"log":"a\u00e9b\n","stream":"stderr","time":"2018-01-07T08:38:57Z"}`, kind: wrapDocker, payload: "aéb", ts: "2018-01-07T08:38:57Z"},
		{name: "docker json broken", line: `{"log":"I0107 08:38:57.002578 never closed`, kind: wrapDocker, broken: true},
		{name: "docker fragment", line: `2017-08-18T23:27:07.048273963Z"}`, kind: wrapNone, payload: `2017-08-18T23:27:07.048273963Z"}`},
		{name: "rancher ui", line: "7/29/2016 7:38:17 PME0729 17:38:17.644916    7458 goroutinemap.go:155] m", kind: wrapUI, payload: "E0729 17:38:17.644916    7458 goroutinemap.go:155] m", ts: "7/29/2016 7:38:17 PM"},
		{name: "stray backtick", line: "`I1222 03:49:17.229946       1 openstack_instances.go:46] Claiming", kind: wrapNone, payload: "I1222 03:49:17.229946       1 openstack_instances.go:46] Claiming"},
		{name: "journald short-precise", line: "Aug 12 03:14:11.301223 vm-3-27 kubelet[2783]: I0812 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0812 03:14:11.301223    2783 r.go:1] m", ts: "Aug 12 03:14:11.301223", proc: "kubelet"},
		{name: "journald short-full with-unit", line: "Mon 2024-08-12 03:14:11 UTC vm-3-27 kubelet.service[2783]: I0812 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0812 03:14:11.301223    2783 r.go:1] m", ts: "Mon 2024-08-12 03:14:11 UTC", proc: "kubelet"},
		{name: "journald short-unix", line: "1723432451.301223 vm-3-27 kubelet[2783]: I0812 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0812 03:14:11.301223    2783 r.go:1] m", ts: "1723432451.301223", proc: "kubelet"},
		{name: "journald cjk month", line: "6月 10 03:14:11 vm-3-27 kubelet[2783]: I0610 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0610 03:14:11.301223    2783 r.go:1] m", ts: "6月 10 03:14:11", proc: "kubelet"},
		{name: "journald german month", line: "Dez 10 03:14:11 vm-3-27 kubelet[2783]: I1210 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I1210 03:14:11.301223    2783 r.go:1] m", ts: "Dez 10 03:14:11", proc: "kubelet"},
		{name: "journald node prefix", line: "worker-1.example.com Aug 12 03:14:11.301223 worker-1 kubenswrapper[2783]: I0812 03:14:11.301223    2783 r.go:1] m", kind: wrapJournald, payload: "I0812 03:14:11.301223    2783 r.go:1] m", ts: "Aug 12 03:14:11.301223", proc: "kubenswrapper"},
		{name: "kubetail", line: "[kube-controller-manager-m1] I0812 03:10:00.612388       1 r.go:1] m", kind: wrapPodPrefix, payload: "I0812 03:10:00.612388       1 r.go:1] m", proc: "kube-controller-manager-m1"},
		{name: "kubectl logs --prefix", line: "[pod/kube-controller-manager-m1/kube-controller-manager] I0812 03:10:00.612388       1 r.go:1] m", kind: wrapPodPrefix, payload: "I0812 03:10:00.612388       1 r.go:1] m", proc: "kube-controller-manager"},
		{name: "stern", line: "kube-controller-manager-m1 kube-controller-manager I0812 03:10:00.612388       1 r.go:1] m", kind: wrapPodPrefix, payload: "I0812 03:10:00.612388       1 r.go:1] m", proc: "kube-controller-manager"},
		{name: "stern prose is no prefix", line: "failed to mount the volume", kind: wrapNone, payload: "failed to mount the volume"},
		{name: "k9s", line: "│   Warning  FailedMount  22m  kubelet  MountVolume.SetUp failed   │", kind: wrapK9s, payload: "  Warning  FailedMount  22m  kubelet  MountVolume.SetUp failed"},
		{name: "aws logs tail detailed is no kubectl line", line: "2024-08-12T03:10:00.612000+00:00 kube-controller-manager-1234567890abcdef01234567890abcde I0812 11:10:00.612388       1 r.go:1] m", kind: wrapNone, payload: "2024-08-12T03:10:00.612000+00:00 kube-controller-manager-1234567890abcdef01234567890abcde I0812 11:10:00.612388       1 r.go:1] m"},
		{name: "logcli default is no kubectl line", line: `2024-08-12T03:10:00Z {container="kube-controller-manager"} I0812 11:10:00.612388       1 r.go:1] m`, kind: wrapNone, payload: `2024-08-12T03:10:00Z {container="kube-controller-manager"} I0812 11:10:00.612388       1 r.go:1] m`},
		{name: "kubectl timestamps with JSON payload", line: `2024-08-12T03:10:00.1Z {"ts":1,"msg":"x"}`, kind: wrapKubectlTS, payload: `{"ts":1,"msg":"x"}`, ts: "2024-08-12T03:10:00.1Z"},
		{name: "prose with colon", line: "note: this is not a wrapper", kind: wrapNone, payload: "note: this is not a wrapper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u unwrapper
			got := u.unwrap([]byte(tt.line))
			if got.broken != tt.broken {
				t.Fatalf("broken = %v, want %v", got.broken, tt.broken)
			}
			if tt.broken {
				return
			}
			if got.kind != tt.kind || got.grep != tt.grep || string(got.payload) != tt.payload || string(got.ts) != tt.ts || string(got.proc) != tt.proc || got.partial != tt.partial {
				t.Errorf("unwrap(%q)\n got kind=%s grep=%v payload=%q ts=%q proc=%q partial=%v\nwant kind=%s grep=%v payload=%q ts=%q proc=%q partial=%v",
					tt.line, wrapNames[got.kind], got.grep, got.payload, got.ts, got.proc, got.partial,
					wrapNames[tt.kind], tt.grep, tt.payload, tt.ts, tt.proc, tt.partial)
			}
		})
	}
}

func TestParseWrapTime(t *testing.T) {
	tests := []struct {
		name string
		kind wrapKind
		ts   string
		abs  string
		w    wall
		year int
	}{
		{name: "cri utc", kind: wrapCRI, ts: "2023-10-04T15:52:18.594244326Z", abs: "2023-10-04T15:52:18.594244326Z"},
		{name: "kubectl offset", kind: wrapKubectlTS, ts: "2025-07-23T03:20:43.248292357-04:00", abs: "2025-07-23T07:20:43.248292357Z"},
		{name: "journald", kind: wrapJournald, ts: "Jun  7 05:19:34", w: wall{mon: 6, day: 7, hour: 5, min: 19, sec: 34}},
		{name: "journald iso", kind: wrapJournald, ts: "2024-08-12T03:14:11+0800", abs: "2024-08-11T19:14:11Z"},
		{name: "journald precise", kind: wrapJournald, ts: "Aug 12 03:14:11.301223", w: wall{mon: 8, day: 12, hour: 3, min: 14, sec: 11, nsec: 301223000}},
		{name: "journald unix", kind: wrapJournald, ts: "1723432451.301223", abs: "2024-08-12T03:14:11.301223Z"},
		{name: "journald full utc", kind: wrapJournald, ts: "Mon 2024-08-12 03:14:11 UTC", abs: "2024-08-12T03:14:11Z"},
		{name: "journald full cest", kind: wrapJournald, ts: "Mon 2024-08-12 03:14:11 CEST", abs: "2024-08-12T01:14:11Z"},
		{name: "journald full offset", kind: wrapJournald, ts: "Mon 2024-08-12 03:14:11 +0530", abs: "2024-08-11T21:44:11Z"},
		{name: "journald full ambiguous zone", kind: wrapJournald, ts: "Mon 2024-08-12 03:14:11 CST", w: wall{mon: 8, day: 12, hour: 3, min: 14, sec: 11}, year: 2024},
		{name: "journald cjk", kind: wrapJournald, ts: "6月 10 03:14:11", w: wall{mon: 6, day: 10, hour: 3, min: 14, sec: 11}},
		{name: "journald russian", kind: wrapJournald, ts: "дек 10 03:14:11", w: wall{mon: 12, day: 10, hour: 3, min: 14, sec: 11}},
		{name: "ui", kind: wrapUI, ts: "7/29/2016 7:38:17 PM", w: wall{mon: 7, day: 29, hour: 19, min: 38, sec: 17}, year: 2016},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseWrapTime(tt.kind, []byte(tt.ts))
			if !ok {
				t.Fatal("not parsed")
			}
			if tt.abs != "" && got.abs.UTC().Format("2006-01-02T15:04:05.999999999Z07:00") != tt.abs {
				t.Errorf("abs = %s, want %s", got.abs.UTC(), tt.abs)
			}
			if tt.abs == "" && (got.w != tt.w || got.year != tt.year) {
				t.Errorf("wall = %+v year %d, want %+v year %d", got.w, got.year, tt.w, tt.year)
			}
		})
	}
}

func TestSniffWrapper(t *testing.T) {
	tests := []struct {
		name string
		head string
		want wrapKind
	}{
		{name: "journald majority", head: "[root@h ~]# journalctl\nDec 19 10:25:38 h kcm[1]: I1219 10:25:38.861740 1 r.go:1] m\nDec 19 10:25:38 h kcm[1]: I1219 10:25:38.861740 1 r.go:1] m\nI1219 10:25:38.861740 1 r.go:1] m\n", want: wrapJournald},
		{name: "bare klog", head: "I1219 10:25:38.861740 1 r.go:1] m\nI1219 10:25:38.861740 1 r.go:1] m\n", want: wrapNone},
		{name: "cri", head: "2023-10-04T15:52:18.594244326Z stderr F I1004 15:52:18.593603 1 x.go:1] m\n", want: wrapCRI},
		{name: "docker", head: `{"log":"x\n","stream":"stderr","time":"2018-01-07T08:38:57Z"}` + "\n", want: wrapDocker},
		{name: "grep and timestamps", head: "a/b.log:2025-07-23T03:20:43.248292357-04:00 I0723 07:20:43.246861 1 a.go:1] m\n", want: wrapKubectlTS},
		{name: "short-precise", head: "Aug 12 03:14:11.301223 h kubelet[1]: I0812 03:14:11.301223 1 r.go:1] m\n", want: wrapJournald},
		{name: "stern", head: "kcm-m1 kube-controller-manager I0812 03:14:11.301223 1 r.go:1] m\n", want: wrapPodPrefix},
		{name: "empty", head: "", want: wrapNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sniffWrapper([]byte(tt.head)); got != tt.want {
				t.Errorf("sniffWrapper = %s, want %s", wrapNames[got], wrapNames[tt.want])
			}
		})
	}
}
