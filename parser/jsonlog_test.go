package parser

import (
	"testing"
	"time"
)

func TestDecodeJSONLog(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		msg   string
		file  string
		level byte
		kv    []kv
	}{
		{
			name: "info with objects",
			line: `{"ts":1723432460318.201,"logger":"persistentvolume-attach-detach-controller","caller":"reconciler/reconciler.go:264","msg":"attacherDetacher.DetachVolume started","v":0,"node":{"name":"10.0.3.15"},"volumeName":"v"}`,
			msg:  "attacherDetacher.DetachVolume started", file: "reconciler.go", level: 'I',
			kv: []kv{{"logger", "persistentvolume-attach-detach-controller"}, {"v", "0"}, {"node", `{"name":"10.0.3.15"}`}, {"volumeName", "v"}},
		},
		{
			name: "error has no v",
			line: `{"ts":1723433024121.915,"caller":"kubelet/kubelet.go:2049","msg":"Unable to attach\n","pod":{"name":"mysql-0","namespace":"default"},"err":"timed out"}`,
			msg:  "Unable to attach", file: "kubelet.go", level: 'E',
			kv: []kv{{"pod", `{"name":"mysql-0","namespace":"default"}`}, {"err", "timed out"}},
		},
		{
			name: "duplicate keys kept",
			line: `{"ts":1,"msg":"m","v":2,"duration":"1h0m0s","duration":"1m0s"}`,
			msg:  "m", level: 'I',
			kv: []kv{{"v", "2"}, {"duration", "1h0m0s"}, {"duration", "1m0s"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec record
			if err := decodeJSONLog([]byte(tt.line), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Msg != tt.msg || rec.File != tt.file || rec.Level != tt.level || len(rec.KV) != len(tt.kv) {
				t.Fatalf("got %+v", rec)
			}
			for i := range tt.kv {
				if rec.KV[i] != tt.kv[i] {
					t.Errorf("kv %d = %+v, want %+v", i, rec.KV[i], tt.kv[i])
				}
			}
		})
	}
	var rec record
	if err := decodeJSONLog([]byte(`{"ts":1,"msg":`), &rec); err == nil {
		t.Error("truncated JSON decoded without error")
	}
}

func TestJSONTS(t *testing.T) {
	tests := []struct {
		line string
		want string
		ok   bool
	}{
		{line: `{"ts":1723432200612.388,"msg":"x"}`, want: "2024-08-12T03:10:00.612388Z", ok: true},
		{line: `{"ts":1648546681782,"msg":"x"}`, want: "2022-03-29T09:38:01.782Z", ok: true},
		{line: `{"ts":1.6485466817829036e12,"msg":"x"}`, want: "2022-03-29T09:38:01.782903671Z", ok: true},
		{line: `{"ts":"soon","msg":"x"}`},
		{line: `{"ts":-5,"msg":"x"}`},
	}
	for _, tt := range tests {
		got, ok := jsonTS([]byte(tt.line))
		if ok != tt.ok || (ok && got.Format(time.RFC3339Nano) != tt.want) {
			t.Errorf("jsonTS(%s) = %s %v, want %s %v", tt.line, got.Format(time.RFC3339Nano), ok, tt.want, tt.ok)
		}
	}
}
