package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestTableNamesWhole: at any width, `grep NAME` finds each volume's row in
// the volumes table and the events text; --no-headers drops the header,
// NoRule the line under it; Wide shows the PV column.
func TestTableNamesWhole(t *testing.T) {
	here, _ := filepath.Abs(".")
	a, evs := analyzeFiles(t, filepath.Join(here, "../testdata/real-logs"), 2019, "005-azure-vmss-multiattach-then-detach.log")
	for _, width := range []int{60, 80, 200} {
		var b bytes.Buffer
		if err := VolumesTable(&b, a.Timeline.Volumes, Options{Width: width}); err != nil {
			t.Fatal(err)
		}
		for _, v := range a.Timeline.Volumes {
			if n := volumeLabel(v); !strings.Contains(b.String(), v.Handle[strings.LastIndexByte(v.Handle, '/')+1:]) {
				t.Errorf("width %d: volume %s cut:\n%s", width, n, b.String())
			}
		}
		b.Reset()
		if err := EventsText(&b, evs, Options{Width: width}); err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.PV != "" && !strings.Contains(b.String(), e.PV) {
				t.Errorf("width %d: events text cuts %s", width, e.PV)
			}
		}
	}
	var b bytes.Buffer
	if err := VolumesTable(&b, a.Timeline.Volumes, Options{NoHeaders: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "VOLUME") || strings.Contains(b.String(), "───") {
		t.Errorf("NoHeaders kept the header:\n%s", b.String())
	}
	b.Reset()
	if err := VolumesTable(&b, a.Timeline.Volumes, Options{NoRule: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "VOLUME") || strings.Contains(b.String(), "───") {
		t.Errorf("NoRule: want the header without its rule:\n%s", b.String())
	}
	b.Reset()
	if err := VolumesTable(&b, a.Timeline.Volumes, Options{Wide: true, Width: 60}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "PV") || !strings.Contains(b.String(), "ATTACH✗") {
		t.Errorf("Wide: want every column:\n%s", b.String())
	}
}
