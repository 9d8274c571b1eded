package shapes

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// ManyInputs is a must-gather of n inputs (n/2 nodes): per node a KCM log
// attaching one volume to it and the node's kubelet log confirming the
// attach on a clock 1 s behind, so that every kubelet input gets a skew.
func ManyInputs(n int) []parser.Result {
	var out []parser.Result
	for i := range n / 2 {
		node, vol := fmt.Sprintf("node-%05d", i), fmt.Sprintf("kubernetes.io/csi/ebs.csi.aws.com^vol-%05d", i)
		kcm, kubelet := node+"/kcm.log", node+"/kubelet.log"
		out = append(out,
			parser.Result{Input: parser.Input{Path: kcm, Component: parser.ComponentKCM.String(), Events: 1}, Events: []parser.Event{parser.Draft{
				Time: parser.StampOf(Start), Kind: parser.AttachSucceeded, Volume: vol, Node: node, Component: parser.ComponentKCM,
				Text: parser.TextOf("AttachVolume.Attach succeeded " + vol + " " + node), Source: parser.Source{File: parser.InternPath(kcm), Line: 1},
			}.Event()}},
			parser.Result{Input: parser.Input{Path: kubelet, Component: parser.ComponentKubelet.String(), Events: 1}, Events: []parser.Event{parser.Draft{
				Time: parser.StampOf(Start.Add(-time.Second)), Kind: parser.VerifyAttachedSucceeded, Volume: vol, Node: node, Component: parser.ComponentKubelet,
				Text: parser.TextOf("Controller attach succeeded " + vol + " " + node), Source: parser.Source{File: parser.InternPath(kubelet), Line: 1},
			}.Event()}})
	}
	return out
}

// WriteManyInputs writes ManyInputs' logs under dir as the files a
// must-gather holds: NODE/kcm.log (klog) and NODE/kubelet.log (journald,
// host NODE).
func WriteManyInputs(dir string, n int) error {
	for i := range n / 2 {
		node := fmt.Sprintf("node-%05d", i)
		d := filepath.Join(dir, node)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		kcm := fmt.Sprintf(`I0812 03:10:00.519387       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "pvc-%05d" (UniqueName: "kubernetes.io/csi/ebs.csi.aws.com^vol-%05d") from node %q`+"\n", i, i, node)
		kubelet := fmt.Sprintf(`Aug 12 03:09:59 %s kubelet[2783]: I0812 03:09:59.519387    2783 operation_generator.go:1348] Controller attach succeeded for volume "pvc-%05d" (UniqueName: "kubernetes.io/csi/ebs.csi.aws.com^vol-%05d") pod "p-%05d" (UID: "8e1d2c3b-4a5f-4b6c-9d7e-0f1a2b3c4d5e") device path: ""`+"\n", node, i, i, i)
		if err := os.WriteFile(filepath.Join(d, "kcm.log"), []byte(kcm), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "kubelet.log"), []byte(kubelet), 0o644); err != nil {
			return err
		}
	}
	return nil
}
