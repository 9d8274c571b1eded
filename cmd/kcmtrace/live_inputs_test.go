package main

import (
	"testing"
)

// TestFetchedInputsCountFetchedLines: for a stream fetched from each store
// (the real VictoriaLogs, the Loki and Elasticsearch fakes), inputs[]
// "lines" is the number of records fetched — every record one line of the
// file written, the envelope's framing on no line of its own — and the
// coverage identity lines == event_lines + irrelevant + sum(skipped) holds
// for them as for files.
func TestFetchedInputsCountFetchedLines(t *testing.T) {
	recs := seedRecords(t)
	window := []string{"--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z", "--page-size", "50"}
	for _, tc := range []struct {
		name, url string
		selectors []string
	}{
		{"victorialogs", startVictoriaLogs(t), []string{"--selector", `kcm=container:="kube-controller-manager"`, "--selector", `kubelet=_SYSTEMD_UNIT:="kubelet.service"`}},
		{"loki", "loki+" + lokiFake(t, recs, "").URL, []string{"--selector", `kcm={container="kube-controller-manager"}`, "--selector", `kubelet={unit="kubelet.service"}`}},
		{"elasticsearch", "es+" + esFake(t, recs, 0).URL + "/logs-*", []string{"--selector", `kcm=kubernetes.container_name:"kube-controller-manager"`, "--selector", `kubelet=systemd.unit:"kubelet.service"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, stderr := analyzeLive(t, exitOK, append(append([]string{tc.url}, tc.selectors...), window...)...)
			if len(got.inputs) != 2 {
				t.Fatalf("%d inputs\n%s", len(got.inputs), stderr)
			}
			for _, in := range got.inputs {
				fetched := in["fetch"].(map[string]any)["records"].(float64)
				lines := in["lines"].(float64)
				skipped := 0.0
				for _, n := range in["skipped"].(map[string]any) {
					skipped += n.(float64)
				}
				if fetched < 100 || lines != fetched {
					t.Errorf("%s: lines %v, records fetched %v: want the fetched lines counted", in["component"], lines, fetched)
				}
				if sum := in["event_lines"].(float64) + in["irrelevant"].(float64) + skipped; sum != lines {
					t.Errorf("%s: event_lines %v + irrelevant %v + skipped %v = %v, not lines %v", in["component"], in["event_lines"], in["irrelevant"], skipped, sum, lines)
				}
			}
		})
	}
}
