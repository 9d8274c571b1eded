package timeline

import (
	"fmt"
	"testing"

	"github.com/kcmtrace/kcmtrace/parser"
)

// BenchmarkBuild: 20 000 volumes × 10 events, two nodes each.
func BenchmarkBuild(b *testing.B) {
	k := parser.ComponentKCM
	var evs []parser.Event
	for i := range 20000 {
		u := fmt.Sprintf("kubernetes.io/csi/ebs.csi.aws.com^vol-%08d", i)
		for j, kind := range []parser.Kind{parser.AttachStarted, parser.AttachFailed, parser.AttachStarted, parser.AttachSucceeded,
			parser.DetachStarted, parser.DetachSucceeded, parser.AttachStarted, parser.AttachSucceeded, parser.DetachStarted, parser.DetachSucceeded} {
			node := fmt.Sprintf("node-%d", (i+j/4)%50)
			e := parser.Draft{Time: parser.StampOf(at(float64(j*60) + float64(i)/1000)), Kind: kind, Volume: u, Node: node, Component: k}.Event()
			e.Text = parser.TextOf(fmt.Sprint(kind, u, node, j))
			evs = append(evs, e)
		}
	}
	res := []parser.Result{result("kcm.log", k.String(), evs...)}
	b.ReportAllocs()
	for b.Loop() {
		tl := Build(res, Options{})
		if len(tl.Volumes) != 20000 {
			b.Fatal(len(tl.Volumes))
		}
	}
	b.ReportMetric(float64(len(evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
