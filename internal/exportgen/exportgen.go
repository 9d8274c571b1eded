// Package exportgen renders a klog log (such as cmd/kcmgen writes) as a
// log export, for the benchmarks that compare reading an export with
// reading the plain file: CloudWatchEvents writes the
// `aws logs filter-log-events` JSON document (one pretty-printed "events"
// array, the largest export per record), VictoriaLogs the JSON Lines of
// VictoriaLogs' /select/logsql/query; both stream, line by line.
package exportgen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// CloudWatchEvents reads klog lines from r, dated in year (UTC), and
// writes them to w as one filter-log-events document, laid out as the aws
// CLI prints it. A line without a klog clock is an error.
func CloudWatchEvents(w io.Writer, r io.Reader, year int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	bw.WriteString("{\n    \"events\": [\n")
	for i := 0; sc.Scan(); i++ {
		line := sc.Bytes()
		t, ok := klogTime(line, year)
		if !ok {
			return fmt.Errorf("line %d is not klog: %.80q", i+1, line)
		}
		msg, err := json.Marshal(string(line))
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",\n")
		}
		fmt.Fprintf(bw, "        {\n            \"logStreamName\": \"kube-controller-manager-0123456789abcdef0123456789abcdef\",\n            \"timestamp\": %d,\n            \"message\": %s,\n            \"ingestionTime\": %d,\n            \"eventId\": \"%056d\"\n        }",
			t.UnixMilli(), msg, t.UnixMilli()+900, i)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	bw.WriteString("\n    ]\n}\n")
	return bw.Flush()
}

// VictoriaLogsConfig shapes a VictoriaLogs export.
type VictoriaLogsConfig struct {
	Year int // the year of the klog clocks (UTC)
	// Pods is how many kube-controller-manager pods the records are spread
	// over, in runs of Run records, so the _stream changes along the
	// export; zero means one pod.
	Pods int
	Run  int // records per run; zero means 1000
}

// VictoriaLogs reads klog lines from r and writes them to w as the JSON
// Lines /select/logsql/query returns: _msg, _stream, _stream_id, _time and
// the stream's labels as fields, one record per line. A line without a
// klog clock (the continuation of a multi-line entry) is a record of its
// own, dated as the line before it; a first line without one is an error.
func VictoriaLogs(w io.Writer, r io.Reader, cfg VictoriaLogsConfig) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	pods, run := max(cfg.Pods, 1), cfg.Run
	if run <= 0 {
		run = 1000
	}
	var last time.Time
	for i := 0; sc.Scan(); i++ {
		line := sc.Bytes()
		t, ok := klogTime(line, cfg.Year)
		switch {
		case ok:
			last = t
		case i == 0:
			return fmt.Errorf("line 1 is not klog: %.80q", line)
		}
		msg, err := json.Marshal(string(line))
		if err != nil {
			return err
		}
		p := i / run % pods
		pod := fmt.Sprintf("kube-controller-manager-master-%d", p+1)
		stream, _ := json.Marshal(fmt.Sprintf("{container=%q,namespace=%q,pod=%q}", "kube-controller-manager", "kube-system", pod))
		fmt.Fprintf(bw, `{"_msg":%s,"_stream":%s,"_stream_id":"%048x","_time":"%s","container":"kube-controller-manager","namespace":"kube-system","pod":"%s"}`+"\n",
			msg, stream, uint64(0xf524447b1b8c8810)+uint64(p), last.Format(time.RFC3339Nano), pod)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

// klogTime reads the clock of a klog header "Lmmdd hh:mm:ss.uuuuuu".
func klogTime(l []byte, year int) (time.Time, bool) {
	if len(l) < 21 || l[5] != ' ' || l[8] != ':' || l[11] != ':' || l[14] != '.' {
		return time.Time{}, false
	}
	n := func(from, to int) (int, bool) {
		v := 0
		for _, c := range l[from:to] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	var f [6]int
	for k, p := range [...][2]int{{1, 3}, {3, 5}, {6, 8}, {9, 11}, {12, 14}, {15, 21}} {
		v, ok := n(p[0], p[1])
		if !ok {
			return time.Time{}, false
		}
		f[k] = v
	}
	return time.Date(year, time.Month(f[0]), f[1], f[2], f[3], f[4], f[5]*1000, time.UTC), true
}
