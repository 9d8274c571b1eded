package livesource

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// seedRecord is one record put into the store: its stream, time and text.
type seedRecord = vlogstest.Record

// keptByPrefilter is the parser's local prefilter: any prefilter token as a
// substring (what parser.mayMatter computes, per its tests).
func keptByPrefilter(line string) bool {
	for _, tok := range classifier.PrefilterTokens() {
		if bytes.Contains([]byte(line), tok) {
			return true
		}
	}
	return false
}

// loadSeed is the seed incident plus noise (vlogstest.Seed).
func loadSeed(t *testing.T) []seedRecord {
	t.Helper()
	recs, err := vlogstest.Seed("..")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

var vlLoadOnce sync.Once

// vlLoaded ingests the seed once into the shared server.
func vlLoaded(t *testing.T) (string, []seedRecord) {
	t.Helper()
	base := needVictoriaLogs(t)
	recs := loadSeed(t)
	vlLoadOnce.Do(func() {
		t0 := time.Now()
		if err := vlServer.Load(recs); err != nil {
			t.Fatal(err)
		}
		t.Logf("VictoriaLogs: ready in %s, %d records ingested and flushed in %s", vlServer.Started, len(recs), time.Since(t0))
	})
	return base, recs
}

// expected lists, in time order, the messages of role in the window that
// keep(msg) accepts (ties in message order, as the server sorts them).
func expected(recs []seedRecord, role string, since, until time.Time, keep func(string) bool) []string {
	var sel []seedRecord
	for _, r := range recs {
		if r.Role == role && !r.Time.Before(since) && r.Time.Before(until) && keep(r.Msg) {
			sel = append(sel, r)
		}
	}
	slices.SortStableFunc(sel, func(a, b seedRecord) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Msg, b.Msg)
	})
	out := make([]string, len(sel))
	for i, r := range sel {
		out[i] = r.Msg
	}
	return out
}

// fetchedMessages reads the _msg of every JSON line of a fetched file.
func fetchedMessages(t *testing.T, s Stream) []string {
	t.Helper()
	rc, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var out []string
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct {
			Msg string `json:"_msg"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		out = append(out, r.Msg)
	}
	return out
}

func diffLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	t.Errorf("%s: got %d lines, want %d", what, len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("first difference at line %d:\n got  %q\n want %q", i+1, g, w)
			return
		}
	}
}

var (
	seedSince = time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	seedUntil = time.Date(2024, 8, 13, 0, 0, 0, 0, time.UTC)
)

// TestVictoriaLogsPushdownEqualsPrefilter: against the real server, with
// the default selectors probed and pages of 7 records (so paging crosses
// the 23 records that share one nanosecond), each role's fetched lines are
// exactly the lines the local prefilter keeps, in time order; the
// scheduler's volume lines and the record outside the window stay out.
func TestVictoriaLogsPushdownEqualsPrefilter(t *testing.T) {
	base, recs := vlLoaded(t)
	src, err := Parse("vlogs+" + base)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	t0 := time.Now()
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, PageSize: 7,
		Logf: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) },
	})
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(streams) != 2 {
		t.Fatalf("got %d streams, want kcm and kubelet", len(streams))
	}
	total := 0
	for _, s := range streams {
		want := expected(recs, s.Role, seedSince, seedUntil, keptByPrefilter)
		got := fetchedMessages(t, s)
		diffLines(t, s.Role, got, want)
		if s.Records != len(got) || s.Truncated != "" || !s.DefaultSelector || s.Envelope != "victorialogs" {
			t.Errorf("%s: stream %+v", s.Role, s)
		}
		all := expected(recs, s.Role, seedSince, seedUntil, func(string) bool { return true })
		t.Logf("%s: %d of %d lines in the stream fetched (selector %s, %d requests)", s.Role, len(got), len(all), s.Selector, s.Requests)
		total += len(got)
	}
	if streams[0].Selector != `container:="kube-controller-manager"` || streams[1].Selector != `_SYSTEMD_UNIT:="kubelet.service"` {
		t.Errorf("selectors %q, %q", streams[0].Selector, streams[1].Selector)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "using default selector") {
		t.Errorf("no note on the default selector: %q", notes)
	}
	t.Logf("fetched %d lines in %s", total, took)
}

// TestVictoriaLogsPushdownOffAndContains: --pushdown off returns the whole
// selected stream; Contains narrows to one volume's lines (AND).
func TestVictoriaLogsPushdownOffAndContains(t *testing.T) {
	base, recs := vlLoaded(t)
	src, _ := Parse("vlogs+" + base)
	sel := map[string]string{"kcm": `{container="kube-controller-manager"}`}
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, Selectors: sel, Pushdown: PushdownOff, PageSize: 500,
	})
	if err != nil {
		t.Fatal(err)
	}
	diffLines(t, "pushdown off", fetchedMessages(t, streams[0]),
		expected(recs, "kcm", seedSince, seedUntil, func(string) bool { return true }))
	if streams[0].Query != sel["kcm"] {
		t.Errorf("query %q, want the selector alone", streams[0].Query)
	}

	streams, err = Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, Selectors: sel, Contains: []string{"disk-4k8m2p1q"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := expected(recs, "kcm", seedSince, seedUntil, func(m string) bool {
		return keptByPrefilter(m) && strings.Contains(m, "disk-4k8m2p1q")
	})
	if len(want) == 0 {
		t.Fatal("seed has no disk-4k8m2p1q line")
	}
	diffLines(t, "contains", fetchedMessages(t, streams[0]), want)
}

// TestVictoriaLogsQueryError: a selector the server cannot parse is one
// line naming the source and role, and the other role is still fetched.
func TestVictoriaLogsQueryError(t *testing.T) {
	base, _ := vlLoaded(t)
	src, _ := Parse("vlogs+" + base)
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, Retries: -1,
		Selectors: map[string]string{"kcm": `{container="kube-controller-manager"`, "kubelet": `_SYSTEMD_UNIT:="kubelet.service"`},
	})
	if err == nil || !strings.HasPrefix(err.Error(), "vlogs+"+base+": kcm: query rejected (HTTP 400") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q", err)
	}
	var kubelet *Stream
	for i := range streams {
		if streams[i].Role == "kubelet" {
			kubelet = &streams[i]
		}
	}
	if kubelet == nil || kubelet.Records != 118 {
		t.Fatalf("kubelet stream %+v", kubelet)
	}
}

// TestVictoriaLogsConcurrentWindows: against the real server, the whole
// KCM stream (pushdown off: 3000 noise lines over the day, 23 in one
// nanosecond) fetched in pages of 9, four windows at a time, is every line
// exactly once in time order, and progress reached the whole day.
func TestVictoriaLogsConcurrentWindows(t *testing.T) {
	base, recs := vlLoaded(t)
	src, _ := Parse("vlogs+" + base)
	var mu sync.Mutex
	var last Progress
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, Pushdown: PushdownOff, PageSize: 9, Concurrency: 4,
		Selectors: map[string]string{"kcm": `container:="kube-controller-manager"`},
		Progress:  func(p Progress) { mu.Lock(); last = p; mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := expected(recs, "kcm", seedSince, seedUntil, func(string) bool { return true })
	diffLines(t, "concurrent windows", fetchedMessages(t, streams[0]), want)
	if last.Records != len(want) || last.Covered != 24*time.Hour {
		t.Errorf("last progress %+v, want %d records over the day", last, len(want))
	}
	if pages := len(want)/9 + 1; streams[0].Requests > 3*pages {
		t.Errorf("%d requests for %d records in pages of 9", streams[0].Requests, len(want))
	}
	t.Logf("%d records, %d requests, %d windows", streams[0].Records, streams[0].Requests, last.Windows)
}
