package parser

import "testing"

func TestUnterminatedAndBlockLine(t *testing.T) {
	hdr := `I0812 14:05:00.000000       1 reconciler.go:300] "AttachVolume started" volume="pvc-1" spec=<`
	for _, tc := range []struct {
		text string
		want bool
	}{
		{hdr, true},
		{hdr + "  ", true},
		{hdr + "\n\tkind: PersistentVolume\n >", false},
		{hdr + "\n\tkind: PersistentVolume", true},
		{`I0812 14:05:00.000000       1 reconciler.go:300] "AttachVolume started" volume="pvc-1"`, false},
		{"\tkind: x=<", false}, // no klog header: not an entry
		{`I0812 14:05:00.000000       1 a.go:1] "m" a=<` + "\n\tx\n >\n" + `b=<`, true},
	} {
		if got := Unterminated([]byte(tc.text)); got != tc.want {
			t.Errorf("Unterminated(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct {
		line         string
		part, closes bool
	}{
		{"\tkind: PersistentVolume", true, false},
		{" >", true, true},
		{`I0812 14:05:01.000000       1 reconciler.go:300] next`, false, false},
	} {
		if p, c := BlockLine([]byte(tc.line)); p != tc.part || c != tc.closes {
			t.Errorf("BlockLine(%q) = %v, %v; want %v, %v", tc.line, p, c, tc.part, tc.closes)
		}
	}
}
