package livesource

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lokiFake replays Loki's query_range contract over a fixed set of
// entries: start inclusive, end exclusive (ns), limit, direction; the
// result grouped by stream with each stream's values newest first (the
// shape of the documented response), whatever direction was asked. It
// applies the kcmtrace pushdown itself when the query carries it, so what
// it returns is what Loki would.
type lokiFake struct {
	t       *testing.T
	entries []lokiFakeEntry
	// wantQuery is the exact query text every data request must carry.
	wantQuery string
	// old rejects "|= … or …" with a 400 like Loki before 2.9.
	old bool
	// fail lists statuses to answer the first requests with.
	fail []int
	// selectors maps a probe selector to the labels it matches.
	selectors map[string]string

	mu   sync.Mutex
	reqs []*http.Request
}

// lokiLabelFilter is one LogQL label filter | k="v" as kcmtrace writes it.
var lokiLabelFilter = regexp.MustCompile(`\s*\| (\w+)=("(?:[^"\\]|\\.)*")`)

// hasLabels reports whether labels hold every label of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

type lokiFakeEntry struct {
	labels map[string]string
	ts     int64
	line   string
}

func (f *lokiFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.reqs = append(f.reqs, r)
	n := len(f.reqs)
	f.mu.Unlock()
	if n > 500 {
		f.t.Errorf("more than 500 requests: the client loops")
		http.Error(w, "too many", http.StatusTeapot)
		return
	}
	if n <= len(f.fail) {
		w.Header().Set("Retry-After", "0")
		http.Error(w, "too many outstanding requests", f.fail[n-1])
		return
	}
	if r.Header.Get("Authorization") != "Bearer s3cret-token" || r.Header.Get("X-Scope-OrgID") != "tenant-a" {
		http.Error(w, "no org id or bad token: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
		return
	}
	if r.URL.Path != "/loki/api/v1/query_range" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	query := q.Get("query")
	limit, _ := strconv.Atoi(q.Get("limit"))
	start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
	end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
	if f.old && strings.Contains(query, `" or "`) {
		http.Error(w, `parse error at line 1, col 40: syntax error: unexpected or`, http.StatusBadRequest)
		return
	}
	cut := strings.Index(query, "}") + 1
	sel, filter := query[:cut], strings.TrimSpace(query[cut:])
	// Label filters alone (| k="v" …, the continuation re-fetch) select
	// by label and keep every line.
	var labelFilter map[string]string
	if strings.HasPrefix(filter, "| ") {
		labelFilter = map[string]string{}
		for _, m := range lokiLabelFilter.FindAllStringSubmatch(filter, -1) {
			labelFilter[m[1]], _ = strconv.Unquote(m[2])
		}
		if lokiLabelFilter.ReplaceAllString(filter, "") != "" {
			f.t.Errorf("query %q: not only label filters", query)
		}
		filter = ""
	}
	if filter != "" && query != f.wantQuery {
		f.t.Errorf("query %q, want %q", query, f.wantQuery)
	}
	if limit < 1 || limit > 5000 {
		f.t.Errorf("limit %d outside Loki's 1..5000", limit)
	}
	match := f.selectors[sel]
	var sel2 []lokiFakeEntry
	for _, e := range f.entries {
		if e.ts >= start && e.ts < end && (match == "" || e.labels["container"]+e.labels["unit"] == match) &&
			(filter == "" || keptByPrefilter(e.line)) && hasLabels(e.labels, labelFilter) {
			sel2 = append(sel2, e)
		}
	}
	if f.selectors != nil && match == "" {
		sel2 = nil
	}
	if q.Get("direction") == "forward" {
		slices.SortStableFunc(sel2, func(a, b lokiFakeEntry) int { return cmpInt(a.ts, b.ts) })
	} else {
		slices.SortStableFunc(sel2, func(a, b lokiFakeEntry) int { return cmpInt(b.ts, a.ts) })
	}
	if len(sel2) > limit {
		sel2 = sel2[:limit]
	}
	type stream struct {
		Stream map[string]string `json:"stream"`
		Values [][]string        `json:"values"`
	}
	by := map[string]*stream{}
	var order []string
	for _, e := range sel2 {
		k := fmt.Sprint(e.labels)
		if by[k] == nil {
			by[k] = &stream{Stream: e.labels}
			order = append(order, k)
		}
		by[k].Values = append(by[k].Values, []string{strconv.FormatInt(e.ts, 10), e.line})
	}
	var result []*stream
	for _, k := range order {
		s := by[k]
		slices.SortStableFunc(s.Values, func(a, b []string) int { // newest first
			x, _ := strconv.ParseInt(a[0], 10, 64)
			y, _ := strconv.ParseInt(b[0], 10, 64)
			return cmpInt(y, x)
		})
		result = append(result, s)
	}
	json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
		"resultType": "streams", "result": result, "stats": map[string]any{"summary": map[string]any{}},
	}})
}

// lokiSeed is the seed KCM lines in one stream plus a second KCM pod's
// stream, with 12 entries in one nanosecond across the two.
func lokiSeed(t *testing.T) []lokiFakeEntry {
	var out []lokiFakeEntry
	a := map[string]string{"container": "kube-controller-manager", "namespace": "kube-system", "pod": "kcm-a"}
	b := map[string]string{"container": "kube-controller-manager", "namespace": "kube-system", "pod": "kcm-b"}
	for _, r := range loadSeed(t) {
		if r.Role == "kcm" && r.Time.Before(seedUntil) && !r.Time.Before(seedSince) && len(out) < 400 {
			out = append(out, lokiFakeEntry{labels: a, ts: r.Time.UnixNano(), line: r.Msg})
		}
	}
	tie := time.Date(2024, 8, 12, 3, 45, 0, 0, time.UTC).UnixNano() + 7
	for i := range 12 {
		lb := a
		if i%2 == 1 {
			lb = b
		}
		out = append(out, lokiFakeEntry{labels: lb, ts: tie, line: fmt.Sprintf("I0812 11:45:00.000000 1 reconciler.go:1] AttachVolume tie %d", i%5)})
	}
	return out
}

// lokiFetched decodes a fetched query_range document into "ts line" rows
// and checks every stream's values are oldest first.
func lokiFetched(t *testing.T, s Stream) []string {
	t.Helper()
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	var r lokiResponse
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("fetched file is not a query_range document: %v", err)
	}
	var out []string
	for _, st := range r.Data.Result {
		for _, v := range st.Values {
			var ts, line string
			json.Unmarshal(v[0], &ts)
			json.Unmarshal(v[1], &line)
			out = append(out, ts+" "+st.Stream["pod"]+" "+line)
		}
	}
	return out
}

func lokiWant(entries []lokiFakeEntry, keep func(string) bool) []string {
	var out []string
	for _, e := range entries {
		if keep(e.line) {
			out = append(out, strconv.FormatInt(e.ts, 10)+" "+e.labels["pod"]+" "+e.line)
		}
	}
	slices.Sort(out) // ns timestamps of one width sort as numbers
	return out
}

func lokiOptions(t *testing.T) Options {
	return Options{
		Dir: t.TempDir(), Since: seedSince, Until: seedUntil, PageSize: 5, Backoff: time.Millisecond,
		Selectors:   map[string]string{"kcm": `{container="kube-controller-manager"}`},
		Credentials: Credentials{BearerToken: "s3cret-token", OrgID: "tenant-a"},
	}
}

// TestLokiPaging: forward pages of 5 from start = the last nanosecond,
// across 12 entries sharing one nanosecond in two streams, after a 429 and
// a 503: every matching entry exactly once, in time order; the exact
// LogQL pushdown, window, limit, direction and auth headers are sent.
func TestLokiPaging(t *testing.T) {
	entries := lokiSeed(t)
	fake := &lokiFake{t: t, entries: entries, fail: []int{429, 503},
		wantQuery: `{container="kube-controller-manager"} |= "olume" or "ttach" or "etach" or "Mount" or "mount" or "No retries" or "acquired lease" or "Started \"" or "serial" or "diskId" or "ZoneNotMatch" or "evice" or "GRPC error"`}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	src, err := Parse("loki+" + srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	streams, err := Fetch(context.Background(), src, lokiOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	s := streams[0]
	got := lokiFetched(t, s)
	if !slices.IsSortedFunc(got, func(a, b string) int { return strings.Compare(a[:19], b[:19]) }) {
		t.Error("fetched entries not in time order")
	}
	slices.Sort(got)
	diffLines(t, "loki", got, lokiWant(entries, keptByPrefilter))
	if s.Records != len(got) || s.Truncated != "" || s.Query != fake.wantQuery || s.Envelope != "loki" {
		t.Errorf("stream %+v", s)
	}
	// Every data request is forward, limit 5 (5000 for the one
	// nanosecond holding more than a page), within one hour window.
	oneNs := 0
	for i, r := range fake.reqs[2:] {
		q := r.URL.Query()
		start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
		end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
		limit := "5"
		if end-start == 1 {
			limit = "5000"
			oneNs++
		}
		if q.Get("direction") != "forward" || q.Get("limit") != limit || end-start > int64(time.Hour) || end <= start ||
			start < seedSince.UnixNano() || end > seedUntil.UnixNano() {
			t.Errorf("request %d: %s", i+3, r.URL.RawQuery)
		}
	}
	if oneNs != 1 {
		t.Errorf("%d one-nanosecond requests, want 1 (for the 12 entries sharing one)", oneNs)
	}
	first := int64(1<<63 - 1) // windows run concurrently: the earliest start, not the first request's
	for _, r := range fake.reqs[2:] {
		start, _ := strconv.ParseInt(r.URL.Query().Get("start"), 10, 64)
		first = min(first, start)
	}
	if first != seedSince.UnixNano() {
		t.Errorf("first window starts at %d", first)
	}
	if s.Requests != len(fake.reqs) {
		t.Errorf("Requests %d, server saw %d", s.Requests, len(fake.reqs))
	}
}

// TestLokiRegexpFallback: a Loki that rejects "or" in line filters gets the
// |~ regexp, which selects the same lines.
func TestLokiRegexpFallback(t *testing.T) {
	entries := lokiSeed(t)
	fake := &lokiFake{t: t, entries: entries, old: true,
		wantQuery: `{container="kube-controller-manager"} |~ "olume|ttach|etach|Mount|mount|No retries|acquired lease|Started \"|serial|diskId|ZoneNotMatch|evice|GRPC error"`}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	src, _ := Parse("loki+" + srv.URL)
	streams, err := Fetch(context.Background(), src, lokiOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	got := lokiFetched(t, streams[0])
	slices.Sort(got)
	diffLines(t, "loki fallback", got, lokiWant(entries, keptByPrefilter))
	if streams[0].Fallback == "" || streams[0].Query != fake.wantQuery {
		t.Errorf("stream %+v", streams[0])
	}
}

// TestLokiDefaultSelectors: without --selector the defaults are probed in
// order (limit 1, no line filter); a role none matches is an error naming
// what was tried, and the other role is still fetched.
func TestLokiDefaultSelectors(t *testing.T) {
	entries := lokiSeed(t)
	fake := &lokiFake{t: t, entries: entries,
		selectors: map[string]string{`{container="kube-controller-manager"}`: "kube-controller-manager"},
		wantQuery: `{container="kube-controller-manager"} ` + LogQLFilter(nil)}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	src, _ := Parse("loki+" + srv.URL)
	opt := lokiOptions(t)
	opt.Selectors = nil
	streams, err := Fetch(context.Background(), src, opt)
	if err == nil || !strings.Contains(err.Error(), "kubelet: no default selector matched") ||
		!strings.Contains(err.Error(), `{unit="kubelet.service"}, {systemd_unit="kubelet.service"}`) {
		t.Fatalf("error %v", err)
	}
	if len(streams) != 1 || streams[0].Role != "kcm" || !streams[0].DefaultSelector || streams[0].Records == 0 {
		t.Fatalf("streams %+v", streams)
	}
	var probes []string
	for _, r := range fake.reqs {
		if r.URL.Query().Get("limit") == "1" {
			probes = append(probes, r.URL.Query().Get("query"))
		}
	}
	want := append([]string{DefaultSelectors[Loki]["kcm"][0]}, DefaultSelectors[Loki]["kubelet"]...)
	if !slices.Equal(probes, want) {
		t.Errorf("probes %q, want %q", probes, want)
	}
}
