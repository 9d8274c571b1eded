package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
)

// TestFetchCounter: the fetch progress sums the latest report of every
// source and role (records and windows done), says the reporting role's
// share of its window, and off a terminal counts without drawing.
func TestFetchCounter(t *testing.T) {
	var stderr bytes.Buffer
	p := newFetchProgress(env{stderr: &stderr}, false)
	if p.bar != nil {
		t.Fatal("a bar on a non-terminal")
	}
	day := 24 * time.Hour
	steps := []struct {
		src  string
		p    livesource.Progress
		want string
	}{
		{"vlogs+http://a", livesource.Progress{Role: "kcm", Records: 10, Windows: 1, Covered: time.Hour, Span: day}, "fetching: 10 records, 1 windows done (kcm 4%)"},
		{"vlogs+http://a", livesource.Progress{Role: "kcm", Records: 250, Windows: 6, Covered: 12 * time.Hour, Span: day}, "fetching: 250 records, 6 windows done (kcm 50%)"},
		{"vlogs+http://a", livesource.Progress{Role: "kubelet", Records: 7, Windows: 2, Covered: 6 * time.Hour, Span: day}, "fetching: 257 records, 8 windows done (kubelet 25%)"},
		{"loki+http://b", livesource.Progress{Role: "kcm", Records: 3, Windows: 24, Covered: day, Span: day}, "fetching: 260 records, 32 windows done (kcm 100%)"},
	}
	for i, s := range steps {
		p.report(s.src)(s.p)
		if got := p.counter.update(s.src, s.p); got != s.want {
			t.Errorf("step %d: %q, want %q", i, got, s.want)
		}
	}
	p.finish()
	if stderr.Len() != 0 {
		t.Errorf("drew on a non-terminal: %q", stderr.String())
	}
}
