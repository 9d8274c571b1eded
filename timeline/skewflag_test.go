package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// A kubelet clock more than skewWindow behind the controller's is out of
// reach of the estimate; it is flagged on the input (issue 21 item 15).
func TestSkewBeyondWindowIsFlagged(t *testing.T) {
	t0 := time.Date(2024, 8, 12, 3, 0, 0, 0, time.UTC)
	vol := "kubernetes.io/csi/cbs^disk-1"
	kcm := parser.Result{Input: parser.Input{Path: "kcm.log", Component: parser.ComponentKCM.String()}}
	kubelet := parser.Result{Input: parser.Input{Path: "kubelet.log", Component: parser.ComponentKubelet.String()}}
	for i := range 3 {
		at := t0.Add(time.Duration(i) * time.Hour)
		kcm.Events = append(kcm.Events, parser.Draft{Time: parser.StampOf(at), Kind: parser.AttachSucceeded, Volume: vol, Node: "n1", Component: parser.ComponentKCM, Source: parser.Source{File: parser.InternPath("kcm.log"), Line: parser.Int32(i + 1)}}.Event())
		// the kubelet confirms 25 minutes before the controller attached: its clock is behind
		kubelet.Events = append(kubelet.Events, parser.Draft{Time: parser.StampOf(at.Add(-25 * time.Minute)), Kind: parser.VerifyAttachedSucceeded, Volume: vol, Node: "n1", Component: parser.ComponentKubelet, Source: parser.Source{File: parser.InternPath("kubelet.log"), Line: parser.Int32(i + 1), Input: 1}}.Event())
	}
	tl := Build([]parser.Result{kcm, kubelet}, Options{})
	var found bool
	for _, in := range tl.Inputs {
		for _, p := range in.Problems {
			if in.Path == "kubelet.log" && strings.Contains(p.Message, "clock") && strings.Contains(p.Message, "25m") {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no problem flags the 25m kubelet clock skew: %+v", tl.Inputs)
	}
}
