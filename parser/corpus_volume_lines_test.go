package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// volumeLinesLeft are the lines of the real corpus (testdata/real-logs)
// that mention a volume (hold a prefilter token) and are neither part of
// an event nor an unknown, keyed "NNN:line", with why. A listed line that
// becomes an event fails the test, so the list cannot go stale.
var volumeLinesLeft = map[string]string{
	"005:1":  "a '#' annotation of the excerpt, not log text",
	"021:2":  "kubelet 'Cleaned up orphaned pod volumes dir': housekeeping of a pod directory, no volume operation (classifier)",
	"031:10": "continuation of a describe row whose head the paste lost (after the excerpt's gap marker): 'Mounting arguments: …'",
	"031:12": "continuation of a describe row whose head the paste lost (after the excerpt's gap marker): 'mount: … wrong fs type'",
	"043:2":  "csi-attacher 'GRPC response: {}': no volume named, no result",
	"043:4":  "csi-attacher 'Saving attach error to \"csi-…\"': bookkeeping of the VolumeAttachment; the error itself is the line before (classifier)",
	"043:5":  "csi-attacher 'GRPC response: {}': no volume named, no result",
	"044:3":  "csi-attacher 'Found NodeID se04 in CSINode se04': names no volume",
	"044:4":  "longhorn-manager HTTP access log (GET /v1/volumes/pvc-…): an API read, no operation",
	"044:5":  "Longhorn driver debug 'Polling pvc-… state for attached': a poll, no result (classifier)",
	"044:6":  "csi-attacher 'VA finalizer is already set on \"csi-…\"': VolumeAttachment bookkeeping (classifier)",
	"056:6":  "kubectl describe volumeattachment output (YAML-like fields), a format the parser does not read",
	"056:12": "kubectl describe volumeattachment output: a finalizer name",
	"056:14": "kubectl describe volumeattachment output: the Self Link",
	"056:17": "kubectl describe volumeattachment output: the Attacher field",
	"056:20": "kubectl describe volumeattachment output: the Persistent Volume Name field",
	"056:22": "kubectl describe volumeattachment output: 'Attached: true'",
	"056:23": "kubectl describe volumeattachment output: the 'Detach Error:' heading",
	"056:24": "kubectl describe volumeattachment output: the detach error's Message field (the only failure in the file; needs a VolumeAttachment describe reader)",
	"057:2":  "csi-attacher 'Starting detach operation for \"csi-…\"': names a VolumeAttachment, not yet read (classifier)",
	"057:6":  "csi-attacher '\"csi-…\" is already attached': VolumeAttachment status, not yet read (classifier)",
	"058:1":  "dmesg SELinux avc denial of a mount: names no volume",
	"058:2":  "dmesg avc continuation (comm=\"mount\"): names no volume",
	"059:2":  "QingCloud driver 'Find volume vol-…': a lookup, no result (classifier)",
	"059:6":  "QingCloud driver '=== exit ControllerPublishVolume … ===' trace banner: no result",
	"060:2":  "Cinder node plugin 'Trying to get device path from metadata service': a step, names no volume",
	"060:3":  "Cinder node plugin 'Could not retrieve device metadata for volumeID': a fallback step failing, after the failure line 1 (classifier)",
	"062:4":  "GCE PD node plugin 'For disk pvc-…, device path …, found serial number …': the detail of the failure on line 1, a separate paste (classifier)",
	"066:1":  "mount output continuation lines at the top of the paste, whose klog head was not copied",
	"066:2":  "mount output continuation lines at the top of the paste, whose klog head was not copied",
	"068:7":  "aws-node ipamd 'AttachmentLimitExceeded' for an ENI (network interface): names no volume",
}

// TestCorpusVolumeLines: every line of every real excerpt that mentions a
// volume is part of an event or of an unknown (which says why it was not
// understood), or is listed in volumeLinesLeft with its reason.
func TestCorpusVolumeLines(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "real-logs", "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		res, errs := ParseAll([]string{f}, Options{})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		covered := map[int]bool{}
		for _, e := range res[0].Events {
			if e.Kind == Unknown && e.Reason == "" {
				t.Errorf("%s:%d: unknown without a reason", filepath.Base(f), e.Source.Line)
			}
			for l := int(e.Source.Line); l <= int(e.Source.Line)+strings.Count(e.Text.String(), "\n"); l++ {
				covered[l] = true
			}
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if !mayMatterSlow([]byte(line)) {
				continue
			}
			key := fmt.Sprintf("%s:%d", filepath.Base(f)[:3], i+1)
			why, listed := volumeLinesLeft[key]
			seen[key] = true
			switch {
			case covered[i+1] && listed:
				t.Errorf("%s is read now: remove it from volumeLinesLeft (%s)", key, why)
			case !covered[i+1] && !listed:
				t.Errorf("%s mentions a volume but is neither an event nor an unknown: %.120s", key, line)
			}
		}
	}
	for key := range volumeLinesLeft {
		if !seen[key] {
			t.Errorf("volumeLinesLeft names %s, which is no volume line of the corpus", key)
		}
	}
}
