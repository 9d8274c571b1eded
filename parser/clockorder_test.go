package parser

import (
	"strings"
	"testing"
	"time"
)

// The repeated hour of a DST fall-back, and a leap second, are read in the
// order of the file (issue 21 item 14), and the input says it had to.
func TestWallClockAmbiguityFollowsFileOrder(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	started := `I1103 01:59:30.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-a41c" (UniqueName: "kubernetes.io/csi/cbs^disk-4k8m2p1q") from node "10.0.3.41"` + "\n"
	succeeded := `I1103 01:00:10.000000       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "pvc-a41c" (UniqueName: "kubernetes.io/csi/cbs^disk-4k8m2p1q") from node "10.0.3.41"` + "\n"
	later := `I1103 01:20:00.000000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-b" (UniqueName: "kubernetes.io/csi/cbs^disk-b") from node "10.0.3.42"` + "\n"
	r := ParseReader(strings.NewReader(started+succeeded+later), "kcm.log", Options{Location: ny, Year: 2024})
	if len(r.Events) != 3 {
		t.Fatalf("%d events, want 3", len(r.Events))
	}
	edt := time.Date(2024, 11, 3, 5, 59, 30, 0, time.UTC) // 01:59:30 EDT
	want := []time.Time{edt, edt.Add(40 * time.Second), edt.Add(20*time.Minute + 30*time.Second)}
	for i, ev := range r.Events {
		if !ev.Time.UTC().Equal(want[i]) {
			t.Errorf("event %d at %v, want %v", i, ev.Time, want[i])
		}
	}
	if !hasProblem(r, "repeated hour") {
		t.Errorf("the input does not say the repeated hour was read from file order: %v", r.Input.Problems)
	}

	leap := `I1231 23:59:59.900000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-a41c" (UniqueName: "kubernetes.io/csi/cbs^disk-4k8m2p1q") from node "10.0.3.41"` + "\n" +
		`I1231 23:59:60.500000       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "pvc-a41c" (UniqueName: "kubernetes.io/csi/cbs^disk-4k8m2p1q") from node "10.0.3.41"` + "\n" +
		`I0101 00:00:00.200000       1 reconciler.go:304] attacherDetacher.AttachVolume started for volume "pvc-b" (UniqueName: "kubernetes.io/csi/cbs^disk-b") from node "10.0.3.42"` + "\n"
	r = ParseReader(strings.NewReader(leap), "kcm.log", Options{Location: time.UTC, Year: 2016})
	for i := 1; i < len(r.Events); i++ {
		if r.Events[i].Time.Before(r.Events[i-1].Time) {
			t.Errorf("event %d (%v) sorts before event %d (%v)", i, r.Events[i].Time, i-1, r.Events[i-1].Time)
		}
	}
	if !hasProblem(r, "leap second") {
		t.Errorf("the input does not say a leap second was read: %v", r.Input.Problems)
	}
}

func hasProblem(r Result, sub string) bool {
	for _, p := range r.Input.Problems {
		if strings.Contains(p.Message, sub) {
			return true
		}
	}
	return false
}
