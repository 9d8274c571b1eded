package classifier

import (
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzClassify checks that classify and the structured decoder never panic
// and always give Unknown events a reason. Seeds: every record of the catalog
// examples and the real logs.
func FuzzClassify(f *testing.F) {
	files := []string{filepath.Join("..", "..", "testdata", "catalog", "examples.log")}
	real, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "real-logs", "*.log"))
	files = append(files, real...)
	for _, p := range files {
		for _, r := range testRecords(f, testReadFile(f, p)) {
			s := r.rec.Rest
			if s == "" {
				s = r.rec.Msg
			}
			f.Add(r.rec.File, s)
		}
	}
	// a retry line whose error klog printf quoted (unquoted into the arena)
	f.Add("nestedpendingoperations.go", `Operation for "{volumeName:kubernetes.io/csi/x^disk-1 podName: nodeName:}" failed. No retries permitted until 2024-08-12 08:24:02.134946584 +0000 UTC m=+30242.446946584 (durationBeforeRetry 500ms). Error: "AttachVolume.Attach failed for volume \"pvc-1\" (UniqueName: \"kubernetes.io/csi/x^disk-1\") from node \"10.0.0.1\" : rpc error: code = Internal desc = [TencentCloudSDKError] Code=RequestLimitExceeded, Message=m, RequestId=r"`)
	f.Fuzz(func(t *testing.T, file, rest string) {
		for _, rec := range []*record{
			{File: file, Rest: rest},
			{File: file, Msg: rest, KV: []kv{{"volume", rest}, {"node", rest}, {"pods", rest}, {"object", rest}}},
			{Table: &tableRow{Reason: file, Message: rest, From: rest, Object: rest}},
		} {
			ev, ok := Classify(rec)
			if ok && ev.Kind == 0 {
				t.Fatalf("ok with empty kind for %q", rest)
			}
			if ok && ev.Kind == Unknown && ev.Reason == "" {
				t.Fatalf("unknown without reason for %q", rest)
			}
		}
		// with an arena (Record.Arena) the same event, its unquoted
		// strings in the arena, after what it held already
		want, wok := Classify(&record{File: file, Rest: rest})
		arena := []byte("held")
		if got, ok := Classify(&record{File: file, Rest: rest, Arena: &arena}); ok != wok || !reflect.DeepEqual(got, want) || string(arena[:4]) != "held" {
			t.Fatalf("Classify(%q) with an arena = %+v, %v; without %+v, %v", rest, got, ok, want, wok)
		}
		parseStructured(rest)
		classifyCode(rest)
	})
}
