package livesource

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
	"github.com/kcmtrace/kcmtrace/parser"
)

// multiLineEntry is a structured KCM entry with a "key=<" block whose
// lines a collector shipped as separate records, a millisecond apart; the
// block's second line holds a prefilter token ("olume"), the others none.
var multiLineEntry = []string{
	`I0812 14:05:00.000000       1 reconciler.go:304] "attacherDetacher.AttachVolume started" volumeName="kubernetes.io/csi/disk.csi.azure.com^disk-ml" nodeName="node-ml" scheduledPods=<`,
	"\tdefault/pod-a",
	"\tdefault/volume-b",
	" >",
	`I0812 14:05:00.400000       1 garbagecollector.go:501] "Processing item" item="uid-ml"`,
	`I0812 14:05:00.500000       1 operation_generator.go:370] AttachVolume.Attach succeeded for volume "disk-ml" node="node-ml"`,
}

var multiLineRuns atomic.Int64

// TestVictoriaLogsJoinsContinuationLines: against the real server, a
// multi-line entry stored as one record a line comes back under the line
// filter as one record holding the whole entry (the filter alone keeps
// the header and the one block line with a token); the block's lines are
// not written again on their own, and the lines after the block are left
// alone.
func TestVictoriaLogsJoinsContinuationLines(t *testing.T) {
	base := needVictoriaLogs(t)
	at := time.Date(2024, 8, 12, 6, 5, 0, 0, time.UTC)
	var recs []vlogstest.Record
	for i, m := range multiLineEntry {
		recs = append(recs, vlogstest.Record{Role: "kcm", Time: at.Add(time.Duration(i) * time.Millisecond * 100), Msg: m})
	}
	// A container of its own on each run: the server outlives -count runs.
	container := fmt.Sprintf("kcm-multiline-%d", multiLineRuns.Add(1))
	body := strings.ReplaceAll(string(vlogstest.JSONLines(recs)), `"kube-controller-manager"`, `"`+container+`"`)
	if err := vlServer.Ingest("container,namespace,pod", []byte(body)); err != nil {
		t.Fatal(err)
	}
	src, _ := Parse("vlogs+" + base)
	var notes []string
	streams, err := Fetch(context.Background(), src, Options{
		Dir: t.TempDir(), Since: at.Add(-time.Minute), Until: at.Add(time.Minute),
		Selectors: map[string]string{"kcm": `container:="` + container + `"`},
		Logf:      func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fetchedMessages(t, streams[0])
	want := []string{strings.Join(multiLineEntry[:4], "\n"), multiLineEntry[5]}
	diffLines(t, "joined", got, want)
	if s := streams[0]; s.Joined != 3 || s.Records != 2 {
		t.Errorf("joined %d lines into %d records, want 3 into 2", s.Joined, s.Records)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "continuation lines") {
		t.Errorf("notes %q", notes)
	}
	parsesJoined(t, streams[0])
}

// parsesJoined checks the parser reads the joined block through the
// stream's envelope: the attach's pods are the block's lines, not the "<"
// the header record alone would give, and the file is 2 lines.
func parsesJoined(t *testing.T, s Stream) {
	t.Helper()
	rc, err := s.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	res := parser.ParseReader(rc, s.Path, parser.Options{Format: s.Envelope})
	if len(res.Events) != 2 || !strings.HasPrefix(res.Events[0].Pod, "default/pod-a") || res.Input.Lines != 2 {
		pod := ""
		if len(res.Events) > 0 {
			pod = res.Events[0].Pod
		}
		t.Errorf("%s: parsed %d events (first's pod %q), %d lines; want the attach with the block's pods, and 2 lines", s.Envelope, len(res.Events), pod, res.Input.Lines)
	}
}

// TestLokiJoinsContinuationLines: through the Loki fake (query_range
// streams, newest first), the header entry the line filter keeps is
// joined with its block's entries, re-fetched forward over 2 s without the
// line filter and narrowed to its own labels; an entry of another KCM
// pod's stream inside those 2 s that looks like a block line is not
// joined, and the block line the filter also kept is not written twice.
func TestLokiJoinsContinuationLines(t *testing.T) {
	at := time.Date(2024, 8, 12, 6, 5, 0, 0, time.UTC)
	a := map[string]string{"container": "kube-controller-manager", "namespace": "kube-system", "pod": "kcm-a"}
	b := map[string]string{"container": "kube-controller-manager", "namespace": "kube-system", "pod": "kcm-b"}
	var entries []lokiFakeEntry
	for i, m := range multiLineEntry {
		entries = append(entries, lokiFakeEntry{labels: a, ts: at.Add(time.Duration(i) * 100 * time.Millisecond).UnixNano(), line: m})
	}
	entries = append(entries, lokiFakeEntry{labels: b, ts: at.Add(50 * time.Millisecond).UnixNano(), line: "\tother/pod-z"})
	fake := &lokiFake{t: t, entries: entries, wantQuery: `{container="kube-controller-manager"} ` + LogQLFilter(nil)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	src, _ := Parse("loki+" + srv.URL)
	opt := lokiOptions(t)
	opt.Since, opt.Until = at.Add(-time.Minute), at.Add(time.Minute)
	streams, err := Fetch(context.Background(), src, opt)
	if err != nil {
		t.Fatal(err)
	}
	s := streams[0]
	want := []string{
		fmt.Sprint(at.UnixNano()) + " kcm-a " + strings.Join(multiLineEntry[:4], "\n"),
		fmt.Sprint(at.Add(500*time.Millisecond).UnixNano()) + " kcm-a " + multiLineEntry[5],
	}
	diffLines(t, "joined", lokiFetched(t, s), want)
	if s.Joined != 3 || s.Records != 2 {
		t.Errorf("joined %d lines into %d records, want 3 into 2", s.Joined, s.Records)
	}
	refetch := 0
	for _, r := range fake.reqs {
		q := r.URL.Query()
		if strings.Contains(q.Get("query"), "|=") {
			continue
		}
		refetch++
		start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
		end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
		if q.Get("query") != `{container="kube-controller-manager"} | container="kube-controller-manager" | namespace="kube-system" | pod="kcm-a"` ||
			start != at.UnixNano() || end-start != int64(continuationWindow) || q.Get("direction") != "forward" {
			t.Errorf("re-fetch %s", r.URL.RawQuery)
		}
	}
	if refetch != 1 {
		t.Errorf("%d re-fetches, want 1", refetch)
	}
	parsesJoined(t, s)
}

// TestElasticsearchJoinsContinuationLines: through the Elasticsearch and
// OpenSearch fakes (a point in time paged by search_after, pages of 1 and
// 2 so the block line the pushdown also kept comes on a later page or the
// same one), the header hit is joined with its block's hits, searched on
// the index over 2 s without the pushdown and narrowed by match_phrase to
// the hit's pod and container; another pod's hit inside those 2 s that
// looks like a block line is not joined, and no hit is written twice.
func TestElasticsearchJoinsContinuationLines(t *testing.T) {
	at := time.Date(2024, 8, 12, 6, 5, 0, 0, time.UTC)
	var docs []esDoc
	for i, m := range multiLineEntry {
		docs = append(docs, esDoc{id: fmt.Sprint("m", i), ms: at.Add(time.Duration(i) * 100 * time.Millisecond).UnixMilli(), msg: m, pod: "kcm-a"})
	}
	docs = slices.Insert(docs, 1, esDoc{id: "other", ms: at.Add(50 * time.Millisecond).UnixMilli(), msg: "\tother/pod-z", pod: "kcm-b"})
	for _, tc := range []struct {
		scheme string
		page   int
	}{{"es+", 1}, {"opensearch+", 2}} {
		fake := &esFake{t: t, docs: docs, opensearch: tc.scheme == "opensearch+"}
		srv := httptest.NewServer(fake)
		src, _ := Parse(tc.scheme + srv.URL + "/logs-k8s-*")
		opt := esOptions(t)
		opt.Since, opt.Until, opt.PageSize = at.Add(-time.Minute), at.Add(time.Minute), tc.page
		streams, err := Fetch(context.Background(), src, opt)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		s := streams[0]
		diffLines(t, tc.scheme, esFetched(t, s), []string{"m0 " + strings.Join(multiLineEntry[:4], "\n"), "m5 " + multiLineEntry[5]})
		if s.Joined != 3 || s.Records != 2 {
			t.Errorf("%s joined %d lines into %d records, want 3 into 2", tc.scheme, s.Joined, s.Records)
		}
		refetch := 0
		for _, b := range fake.bodies {
			f, _ := json.Marshal(b["query"].(map[string]any)["bool"].(map[string]any)["filter"])
			if strings.Contains(string(f), "allow_leading_wildcard") {
				continue
			}
			refetch++
			want := `[{"range":{"@timestamp":{"format":"strict_date_optional_time_nanos","gte":"2024-08-12T06:05:00Z","lt":"2024-08-12T06:05:02Z"}}},` +
				`{"query_string":{"query":"kubernetes.container_name:\"kube-controller-manager\""}},` +
				`{"match_phrase":{"kubernetes.pod_name":"kcm-a"}},{"match_phrase":{"kubernetes.container_name":"kube-controller-manager"}}]`
			if string(f) != want || b["pit"] != nil {
				t.Errorf("%s re-fetch filter (pit %v):\n got  %s\n want %s", tc.scheme, b["pit"], f, want)
			}
		}
		if refetch != 1 {
			t.Errorf("%s: %d re-fetches, want 1", tc.scheme, refetch)
		}
		parsesJoined(t, s)
	}
}

// TestMayOpenBlock: the pre-test before decoding a record's message
// passes a block opening however the JSON writes "<", and nothing else.
func TestMayOpenBlock(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"_msg":"x scheduledPods=<"}`:      true,
		`["1","x scheduledPods=\u003c"]`:    true,
		`{"_msg":"x scheduledPods=\"<\""}`:  false,
		`{"_msg":"AttachVolume succeeded"}`: false,
	} {
		if got := mayOpenBlock([]byte(raw)); got != want {
			t.Errorf("mayOpenBlock(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestElasticsearchHitTime: a block's search starts at the header's time:
// the time field of its _source (nested or dotted), else its first sort
// value (nanosecond string or epoch milliseconds).
func TestElasticsearchHitTime(t *testing.T) {
	s := &elasticStore{opt: Options{ESTimeField: "@timestamp"}}
	want := time.Date(2024, 8, 12, 6, 5, 0, 123000000, time.UTC)
	for _, raw := range []string{
		`{"_source":{"@timestamp":"2024-08-12T06:05:00.123Z"},"sort":[1]}`,
		`{"_source":{"@timestamp":"2024-08-12 06:05:00,123"},"sort":["2024-08-12T06:05:00.123000000Z",4]}`,
		`{"_source":{},"sort":[1723442700123,4]}`,
	} {
		h, ok := parseHit([]byte(raw))
		got, ok2 := s.hitTime(h)
		if !ok || !ok2 || !got.Equal(want) {
			t.Errorf("hitTime(%s) = %v %v, want %v", raw, got, ok2, want)
		}
	}
}
