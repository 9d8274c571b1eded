package classifier

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// BenchmarkClassify classifies every record of the catalog examples once per
// iteration (bytes = the records' text).
func BenchmarkClassify(b *testing.B) {
	recs := testRecords(b, testReadFile(b, filepath.Join("..", "..", "testdata", "catalog", "examples.log")))
	n := 0
	for _, r := range recs {
		n += len(r.rec.Rest) + len(r.rec.Msg)
		if r.rec.Table != nil {
			n += len(r.rec.Table.Message)
		}
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range recs {
			Classify(r.rec)
		}
	}
}

// BenchmarkClassifyGenerated classifies the candidate lines (those with a
// prefilter token) of a generated 4 MiB KCM log of each era and traffic
// shape, one sub-benchmark per class of line: Kubernetes events it ignores
// (ExternalProvisioning …) or understands (SuccessfulAttachVolume …), and
// other lines it understands or ignores (informer plumbing). An iteration
// classifies one line (the class's lines in turn), so ns/op is per line and
// bytes are the line's text.
func BenchmarkClassifyGenerated(b *testing.B) {
	for _, era := range loggen.Eras {
		for _, shape := range []loggen.Shape{loggen.ShapeDefault, loggen.ShapeChurn, loggen.ShapeStorm} {
			var buf bytes.Buffer
			if _, err := loggen.Generate(&buf, loggen.Config{Size: 4 << 20, Era: era, Shape: shape, Seed: 1}); err != nil {
				b.Fatal(err)
			}
			var cand []byte
			for line := range bytes.Lines(buf.Bytes()) {
				if hasPrefilterToken(line) {
					cand = append(cand, line...)
				}
			}
			classes := map[string][]testRec{}
			for _, r := range testRecords(b, cand) {
				msg, _ := recordMessage(r.rec, nil)
				_, ok := Classify(r.rec)
				name := map[[2]bool]string{{true, true}: "event-understood", {true, false}: "event-ignored",
					{false, true}: "other-understood", {false, false}: "other-ignored"}[[2]bool{isEventLine(msg), ok}]
				classes[name] = append(classes[name], r)
			}
			for _, name := range []string{"event-ignored", "event-understood", "other-understood", "other-ignored"} {
				recs := classes[name]
				if len(recs) == 0 {
					continue
				}
				n := 0
				for _, r := range recs {
					n += len(r.rec.Rest) + len(r.rec.Msg)
					for _, p := range r.rec.KV {
						n += len(p.Key) + len(p.Value)
					}
				}
				b.Run(fmt.Sprintf("%s/%s/%s", era, shape, name), func(b *testing.B) {
					b.SetBytes(int64(n / len(recs)))
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						Classify(recs[i].rec)
						if i++; i == len(recs) {
							i = 0
						}
					}
				})
			}
		}
	}
}

// BenchmarkClassifyCode classifies error texts of a cloud SDK, as an
// outage of its API logs them once an attempt (the storm shape's), and a
// kubelet's mount error: bytes are the text's.
func BenchmarkClassifyCode(b *testing.B) {
	for name, s := range map[string]string{
		"sdk-throttled":  `AttachVolume.Attach failed for volume "pvc-9d9baae0-0f81-4b29-89fd-3427ec0c9cf2" (UniqueName: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-l50pet0v") from node "10.0.4.103" : rpc error: code = Internal desc = [TencentCloudSDKError] Code=RequestLimitExceeded, Message=Your current request times exceeds the frequency limit., RequestId=e6ad8eed-2c9a-4bc9-bb38-ac63cac2c610`,
		"mount-wrong-fs": `MountVolume.MountDevice failed for volume "pvc-1" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t xfs -o defaults /dev/nvme1n1 /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/vol-0 Output: mount: /var/lib/kubelet/plugins/kubernetes.io/aws-ebs/mounts/vol-0: wrong fs type, bad option, bad superblock on /dev/nvme1n1, missing codepage or helper program, or other error.`,
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				classifyCode(s)
			}
		})
	}
}
