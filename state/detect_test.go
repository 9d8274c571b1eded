package state

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		role     string
		ok       bool
	}{
		{"json object", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}`, RoleState, true},
		{"json List of events", `{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Event", "involvedObject": {"kind": "Pod"}, "metadata": {}}], "kind": "List"}`, RoleEvents, true},
		{"json List mixed", `{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Event", "metadata": {}}, {"apiVersion": "v1", "kind": "Node", "metadata": {}}]}`, RoleState, true},
		{"json List cut", `{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Event", "metadata": {"na`, RoleEvents, true},
		{"json array", `[{"apiVersion": "v1", "kind": "Node", "metadata": {}}]`, RoleState, true},
		{"klog json", `{"ts":1723432200.1,"caller":"x.go:1","msg":"Event occurred","kind":"Pod","apiVersion":"v1","metadata":{}}`, "", false},
		{"docker json", `{"log":"I0812 11:05:03.114208 1 x.go:1] apiVersion: v1\n","stream":"stderr","time":"2024-08-12T03:05:03Z"}`, "", false},
		{"json without metadata", `{"apiVersion": "v1", "kind": "Status"}`, "", false},
		{"yaml object", "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: x\n", RoleState, true},
		{"yaml events", "apiVersion: v1\nitems:\n- apiVersion: v1\n  involvedObject:\n    kind: Pod\n  kind: Event\n", RoleEvents, true},
		{"yaml indented items", "apiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: Event\n  - apiVersion: v1\n    kind: Node\nkind: List\n", RoleState, true},
		{"yaml multi-doc", "# dump\n---\napiVersion: events.k8s.io/v1\nkind: Event\n", RoleEvents, true},
		{"yaml without apiVersion", "kind: Node\nmetadata: {}\n", "", false},
		{"yaml apiVersion indented only", "kind: Node\nspec:\n  apiVersion: v1\n", "", false},
		{"yaml apiVersion after a comment", "# no\napiVersion: v1\nkind: Node\n", RoleState, true},
		{"yaml apiVersion after another key", "kind: Node\napiVersion: v1\nmetadata: {}\n", RoleState, true},
		{"json log key after apiVersion", `{"apiVersion": "v1", "kind": "Node", "metadata": {}, "msg": "x"}`, "", false},
		{"describe pv", "Name:            pvc-1\nClaim:           default/c\nReclaim Policy:  Delete\nSource:\n    Type: CSI\n", RoleState, true},
		{"describe pod", "Name:         mysql-0\nNamespace:    default\nNode:         10.0.3.27/10.0.3.27\nContainers:\n  mysql:\nEvents:\n  Type  Reason  Age  From  Message\n", "", false},
		{"klog", "I0812 11:05:03.114208       1 event.go:291] \"Event occurred\" kind=\"Pod\" apiVersion=\"v1\"\n", "", false},
		{"empty", "\n\n", "", false},
	} {
		role, ok := Detect([]byte(tc.in))
		if role != tc.role || ok != tc.ok {
			t.Errorf("%s: Detect = %q, %v; want %q, %v", tc.name, role, ok, tc.role, tc.ok)
		}
	}
}

// TestDetectFixtures: every state fixture is claimed with its role.
func TestDetectFixtures(t *testing.T) {
	for path, want := range map[string]string{
		"seed-legacy/state.json": RoleState, "seed-legacy/state.yaml": RoleState,
		"seed-legacy/events.json": RoleEvents, "seed-legacy/events.yaml": RoleEvents,
		"seed-legacy/describe-pv.txt": RoleState, "seed-legacy/describe-pvc.txt": RoleState,
		"seed-legacy/describe-node.txt": RoleState, "seed-legacy/describe-va.txt": RoleState,
	} {
		data, err := os.ReadFile(filepath.Join("testdata", path))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{len(data), 4096, 400} { // whole file and cut samples
			if role, ok := Detect(data[:min(n, len(data))]); !ok || role != want {
				t.Errorf("%s[:%d]: Detect = %q, %v; want %q", path, n, role, ok, want)
			}
		}
	}
}

// describedState are the repository's logs that are kubectl describe of a
// kind the package reads: claimed as state (the CLI gives them to the log
// parser too, for their Events table).
var describedState = map[string]bool{
	"../testdata/real-logs/056-linstor-csi-describe-volumeattachment-detach-error-404.log": true,
}

// TestDetectNoLogs: no log of the repository is claimed, whole or sampled,
// but describe output of a state kind is.
func TestDetectNoLogs(t *testing.T) {
	var n int
	err := filepath.WalkDir("../testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") || strings.HasSuffix(path, ".py") || strings.HasSuffix(path, ".golden") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, size := range []int{len(data), 64 << 10, 4096} {
			role, ok := Detect(data[:min(size, len(data))])
			if describedState[path] {
				if !ok || role != RoleState {
					t.Errorf("%s[:%d]: Detect = %q, %v; want %q", path, size, role, ok, RoleState)
				}
			} else if ok {
				t.Errorf("%s[:%d] claimed as %s", path, size, role)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d logs found under ../testdata", n)
	}
}

// BenchmarkDetectLog: what telling a log from a state dump costs on the
// sample analyze reads of every input file (stateSample, 64 KiB), a
// generated KCM log of each era.
func BenchmarkDetectLog(b *testing.B) {
	for _, era := range loggen.Eras {
		b.Run(string(era), func(b *testing.B) {
			var buf bytes.Buffer
			if _, err := loggen.Generate(&buf, loggen.Config{Size: 64 << 10, Era: era, Seed: 1}); err != nil {
				b.Fatal(err)
			}
			sample := buf.Bytes()[:min(buf.Len(), 64<<10)]
			b.SetBytes(int64(len(sample)))
			for b.Loop() {
				if _, ok := Detect(sample); ok {
					b.Fatal("a log detected as state")
				}
			}
		})
	}
}
