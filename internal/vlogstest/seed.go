package vlogstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Record is one record put into the store: its stream (role), time and text.
type Record struct {
	Role string
	Time time.Time
	Msg  string
}

// SeedDir is the seed incident under the repository root.
const SeedDir = "testdata/incidents/seed-legacy"

// Seed reads root/SeedDir as the store would hold it (the KCM clock is
// +08:00, the kubelet's journal UTC) and adds noise: other controllers'
// lines in the KCM stream, lines sharing one nanosecond (more than a page
// of them), and volume lines in other streams that the selectors must
// leave out. The seed's lines lie in 2024-08-12 [06:00, 07:00) UTC.
func Seed(root string) ([]Record, error) {
	dir := filepath.Join(root, SeedDir)
	cst := time.FixedZone("CST", 8*3600)
	var out []Record
	for _, f := range []struct{ file, role string }{{"kcm.log", "kcm"}, {"kubelet.log", "kubelet"}} {
		b, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			loc := cst
			if f.role == "kubelet" {
				_, line, _ = strings.Cut(line, "kubelet[2783]: ") // the journal's message
				loc = time.UTC
			}
			ts, err := klogTime(line, loc)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", f.file, err)
			}
			out = append(out, Record{Role: f.role, Time: ts, Msg: line})
		}
	}
	day := time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		ts := day.Add(time.Duration(i) * 17 * time.Second).Add(time.Duration(i*7919) * time.Microsecond)
		msg := fmt.Sprintf("I%s       1 endpointslice_controller.go:312] \"Error syncing endpoint slices for service, retrying\" key=\"default/svc-%d\"",
			ts.In(cst).Format("0102 15:04:05.000000"), i%97)
		if i%10 == 0 {
			msg = fmt.Sprintf("I%s       1 reconciler.go:%d] attacherDetacher.AttachVolume started for volume \"pvc-noise-%d\" from node \"10.0.9.%d\" ",
				ts.In(cst).Format("0102 15:04:05.000000"), 300+i%7, i, i%250)
		}
		out = append(out, Record{Role: "kcm", Time: ts, Msg: msg})
	}
	tie := day.Add(5*time.Hour + 123456789) // 23 lines in one nanosecond, 16 of them volume lines
	for i := range 23 {
		msg := fmt.Sprintf("I0812 13:00:00.123456       1 garbagecollector.go:501] \"Processing item\" item=\"uid-%02d\"", i)
		if i%3 != 0 {
			msg = fmt.Sprintf("I0812 13:00:00.123456       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume \"pvc-tie-%02d\" ", i)
		}
		out = append(out, Record{Role: "kcm", Time: tie, Msg: msg})
	}
	for i := range 50 { // a scheduler that talks about volumes: not the KCM
		out = append(out, Record{Role: "scheduler", Time: day.Add(time.Duration(i) * time.Minute),
			Msg: fmt.Sprintf("I0812 00:%02d:00.000000       1 volume_binding.go:333] \"FindPodVolumes\" pod=\"default/p-%d\"", i, i)})
	}
	out = append(out, Record{Role: "kcm", Time: day.Add(-time.Second), // outside the window
		Msg: "I0811 07:59:59.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume \"pvc-yesterday\" "})
	return out, nil
}

// klogTime reads the time of a klog header (Lmmdd hh:mm:ss.uuuuuu) in
// year 2024 and zone loc.
func klogTime(line string, loc *time.Location) (time.Time, error) {
	if len(line) < 21 {
		return time.Time{}, fmt.Errorf("no klog header in %q", line)
	}
	ts, err := time.ParseInLocation("0102 15:04:05.000000", line[1:21], loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("klog time of %q: %v", line, err)
	}
	return ts.AddDate(2024, 0, 0), nil
}

// JSONLines renders records as VictoriaLogs JSON lines with the labels
// the collectors give: Promtail-style container/namespace/pod for pods,
// journald fields for the kubelet.
func JSONLines(recs []Record) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		m := map[string]string{"_time": r.Time.Format(time.RFC3339Nano), "_msg": r.Msg}
		switch r.Role {
		case "kcm":
			m["container"], m["namespace"], m["pod"] = "kube-controller-manager", "kube-system", "kube-controller-manager-master-1"
		case "scheduler":
			m["container"], m["namespace"], m["pod"] = "kube-scheduler", "kube-system", "kube-scheduler-master-1"
		case "kubelet":
			m["_SYSTEMD_UNIT"], m["_HOSTNAME"], m["SYSLOG_IDENTIFIER"] = "kubelet.service", "vm-3-27-centos", "kubelet"
		}
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Load ingests recs as the collectors would ship them: the pods' lines
// with the container/namespace/pod stream, the kubelet's with the
// journal's unit and host.
func (s *Server) Load(recs []Record) error {
	var pods, kubelet []Record
	for _, r := range recs {
		if r.Role == "kubelet" {
			kubelet = append(kubelet, r)
		} else {
			pods = append(pods, r)
		}
	}
	if err := s.Ingest("container,namespace,pod", JSONLines(pods)); err != nil {
		return err
	}
	return s.Ingest("_SYSTEMD_UNIT,_HOSTNAME", JSONLines(kubelet))
}
