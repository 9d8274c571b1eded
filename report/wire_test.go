package report

import (
	"testing"

	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestVolumesByNameIndexesFindingsVolumes: only the volumes the findings
// name are indexed, by key or UniqueName, and a name two volumes answer
// to goes to the later one (as indexing every volume in order did).
func TestVolumesByNameIndexesFindingsVolumes(t *testing.T) {
	a := &timeline.Volume{UniqueName: "kubernetes.io/csi/d^a", Handle: "a"}
	a.SetKey("kubernetes.io/csi/d^a")
	b := &timeline.Volume{Handle: "b"}
	b.SetKey("pv-b")
	b2 := &timeline.Volume{Handle: "b2"}
	b2.SetKey("pv-b")
	c := &timeline.Volume{Handle: "c"}
	c.SetKey("pv-c")
	tl := &timeline.Timeline{Volumes: []*timeline.Volume{a, b, c, b2}}
	fs := []rules.Finding{{Volume: "kubernetes.io/csi/d^a"}, {Volume: "pv-b"}, {Volume: "gone"}}
	m := volumesByName(tl, fs)
	if m["kubernetes.io/csi/d^a"] != a || m["pv-b"] != b2 || m["gone"] != nil {
		t.Errorf("volumesByName = %v", m)
	}
	if _, ok := m["pv-c"]; ok {
		t.Errorf("pv-c indexed, but no finding names it")
	}
	if m := volumesByName(tl, nil); len(m) != 0 {
		t.Errorf("no findings: %v", m)
	}
}
