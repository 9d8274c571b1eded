package classifier

import (
	"path/filepath"
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
		parseStructured(rest)
		classifyCode(rest)
	})
}
