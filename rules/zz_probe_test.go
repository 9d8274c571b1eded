package rules

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestProbeReal(t *testing.T) {
	files, _ := filepath.Glob("../testdata/real-logs/*.log")
	for _, f := range files {
		res, tl := analyze(t, f)
		fmt.Printf("===== %s  vols=%d other=%d restarts=%d\n", filepath.Base(f), len(tl.Volumes), len(tl.Other), len(tl.Restarts))
		for _, v := range tl.Volumes {
			fmt.Printf("  vol %s pv=%s multi=%v nodes=%v\n", v.Key, v.PV, v.Multi, v.Nodes)
			for _, e := range v.Events {
				fmt.Printf("     %s %s node=%s pod=%s code=%s origin=%s count=%d span=%v detail=%q\n", e.Time.Format("15:04:05.000"), e.Kind, e.Node, e.Pod, e.Code, e.Origin, e.Count, e.Span, e.Detail)
			}
		}
		for _, e := range tl.Other {
			fmt.Printf("  other %s %s pod=%s origin=%s\n", e.Time.Format("15:04:05"), e.Kind, e.Pod, e.Origin)
		}
		fmt.Print(dump(res))
	}
}
