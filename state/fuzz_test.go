package state

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzAdd feeds the fixtures, whole and cut, to Detect and Add: neither may
// panic, every problem names the input, and the objects Add reports exist.
func FuzzAdd(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*/*")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || filepath.Ext(p) == ".py" {
			continue
		}
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Detect(data)
		s := &Snapshot{}
		file := s.Add("in", data)
		if file.Objects != s.count() {
			t.Fatalf("Objects %d, count %d", file.Objects, s.count())
		}
		for _, p := range s.Problems {
			if p.Path != "in" || p.Message == "" {
				t.Fatalf("bad problem %+v", p)
			}
		}
		for _, pv := range s.PersistentVolumes {
			s.VolumeZone(pv.Name)
			s.VolumePresence(pv.Name)
			s.Class(pv.Name)
		}
		for _, n := range s.Nodes {
			s.LoadOnNode(n.Name, "")
		}
		for _, va := range s.VolumeAttachments {
			s.AttachmentEvidence(va)
		}
	})
}
