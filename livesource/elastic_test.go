package livesource

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// esFake replays the _search contract with a point in time: hits sorted by
// [@timestamp, tiebreak], pages of "size", search_after the last sort
// values, errors in Elasticsearch's JSON shape. Of the query it applies
// only what esMatches reads (the selector not at all).
type esFake struct {
	t          *testing.T
	docs       []esDoc
	opensearch bool
	rejectWild bool // 400 on the wildcard pushdown (allow_leading_wildcard=false)

	mu     sync.Mutex
	bodies []map[string]any
	paths  []string
}

type esDoc struct {
	id  string
	ms  int64
	msg string
	pod string // kubernetes.pod_name when set
}

// esMatches applies the parts of a search body the fake understands: the
// time range, the wildcard pushdown (as the prefilter) and match_phrase
// on kubernetes.pod_name and kubernetes.container_name.
func esMatches(body map[string]any, d esDoc) bool {
	q, _ := body["query"].(map[string]any)
	b, _ := q["bool"].(map[string]any)
	filter, _ := b["filter"].([]any)
	for _, c := range filter {
		c, _ := c.(map[string]any)
		rng, _ := c["range"].(map[string]any)
		if r, ok := rng["@timestamp"].(map[string]any); ok {
			gte, _ := time.Parse(time.RFC3339Nano, r["gte"].(string))
			lt, _ := time.Parse(time.RFC3339Nano, r["lt"].(string))
			if d.ms < gte.UnixMilli() || d.ms >= lt.UnixMilli() {
				return false
			}
		}
		if qs, ok := c["query_string"].(map[string]any); ok && qs["allow_leading_wildcard"] == true && !keptByPrefilter(d.msg) {
			return false
		}
		mp, _ := c["match_phrase"].(map[string]any)
		for f, v := range mp {
			if f == "kubernetes.pod_name" && v != d.pod || f == "kubernetes.container_name" && v != "kube-controller-manager" ||
				f != "kubernetes.pod_name" && f != "kubernetes.container_name" {
				return false
			}
		}
	}
	return true
}

func (f *esFake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paths = append(f.paths, r.Method+" "+r.URL.Path)
	if len(f.paths) > 200 {
		f.t.Errorf("more than 200 requests: the client loops")
		w.WriteHeader(http.StatusTeapot)
		return
	}
	if r.Header.Get("Authorization") != "ApiKey a3-key==" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"type":"security_exception","reason":"unable to authenticate with provided credentials [%s]"},"status":401}`, r.Header.Get("Authorization"))
		return
	}
	pitPath, closePath := "/logs-k8s-*/_pit", "/_pit"
	if f.opensearch {
		pitPath, closePath = "/logs-k8s-*/_search/point_in_time", "/_search/point_in_time"
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == pitPath:
		if r.URL.Query().Get("keep_alive") != "2m" {
			f.t.Errorf("keep_alive %q", r.URL.Query().Get("keep_alive"))
		}
		if f.opensearch {
			fmt.Fprint(w, `{"pit_id":"os-pit-1","_shards":{"total":1,"successful":1},"creation_time":1}`)
		} else {
			fmt.Fprint(w, `{"id":"es-pit-1"}`)
		}
		return
	case r.Method == http.MethodDelete && r.URL.Path == closePath:
		fmt.Fprint(w, `{"succeeded":true,"num_freed":1}`)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/_search"):
	default:
		http.NotFound(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		f.t.Errorf("search body: %v", err)
	}
	f.bodies = append(f.bodies, body)
	if f.rejectWild && strings.Contains(string(b), "allow_leading_wildcard") {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":{"root_cause":[{"type":"query_shard_exception","reason":"Failed to parse query [*olume*]"}],"type":"search_phase_execution_exception","reason":"all shards failed"},"status":400}`)
		return
	}
	size := int(body["size"].(float64))
	var after int64 = -1
	afterTie := -1
	if sa, ok := body["search_after"].([]any); ok {
		after = int64(sa[0].(float64))
		afterTie = int(sa[1].(float64))
	}
	var hits []any
	for i, d := range f.docs {
		if d.ms < after || d.ms == after && i <= afterTie || !esMatches(body, d) {
			continue
		}
		if size == 1 || len(hits) < size {
			k8s := map[string]any{"container_name": "kube-controller-manager"}
			if d.pod != "" {
				k8s["pod_name"] = d.pod
			}
			hits = append(hits, map[string]any{
				"_index": "logs-k8s-2024.08.12", "_id": d.id, "_score": nil,
				"_source": map[string]any{"@timestamp": time.UnixMilli(d.ms).UTC().Format(time.RFC3339Nano), "message": d.msg,
					"kubernetes": k8s},
				"sort": []any{d.ms, i},
			})
		}
		if len(hits) == size {
			break
		}
	}
	resp := map[string]any{"took": 3, "timed_out": false, "hits": map[string]any{"hits": hits}}
	if body["pit"] != nil {
		resp["pit_id"] = body["pit"].(map[string]any)["id"]
	}
	json.NewEncoder(w).Encode(resp)
}

func esSeed(t *testing.T) []esDoc {
	var out []esDoc
	for i, r := range loadSeed(t) {
		if r.Role == "kcm" && keptByPrefilter(r.Msg) && len(out) < 30 && !r.Time.Before(seedSince) {
			out = append(out, esDoc{id: fmt.Sprint("d", i), ms: r.Time.UnixMilli(), msg: r.Msg})
		}
	}
	slices.SortStableFunc(out, func(a, b esDoc) int { return cmpInt(a.ms, b.ms) })
	out[7].id = out[8].id // a duplicate across the first two pages
	return out
}

func esOptions(t *testing.T) Options {
	return Options{Dir: t.TempDir(), Since: seedSince, Until: seedUntil, PageSize: 4, Backoff: time.Millisecond,
		Selectors:   map[string]string{"kcm": `kubernetes.container_name:"kube-controller-manager"`},
		Credentials: Credentials{APIKey: "a3-key=="}}
}

func esFetched(t *testing.T, s Stream) []string {
	t.Helper()
	b, err := os.ReadFile(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Hits struct {
			Hits []struct {
				ID     string `json:"_id"`
				Source struct {
					Message string `json:"message"`
				} `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("fetched file is not a _search response: %v", err)
	}
	var out []string
	for _, h := range r.Hits.Hits {
		out = append(out, h.ID+" "+h.Source.Message)
	}
	return out
}

func esWant(docs []esDoc) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range docs {
		if !seen[d.id] {
			seen[d.id] = true
			out = append(out, d.id+" "+d.msg)
		}
	}
	return out
}

// TestElasticsearchPITPaging: a PIT is opened, pages of 4 follow
// search_after the last sort values (never "from"), the exact filter is
// sent (time range, selector, lower-case wildcard pushdown on message and
// log), duplicates are dropped by _id, the PIT is closed.
func TestElasticsearchPITPaging(t *testing.T) {
	for _, isOS := range []bool{false, true} {
		docs := esSeed(t)
		fake := &esFake{t: t, docs: docs, opensearch: isOS}
		srv := httptest.NewServer(fake)
		scheme := "es+"
		if isOS {
			scheme = "opensearch+"
		}
		src, err := Parse(scheme + srv.URL + "/logs-k8s-*")
		if err != nil {
			t.Fatal(err)
		}
		streams, err := Fetch(context.Background(), src, esOptions(t))
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		diffLines(t, scheme, esFetched(t, streams[0]), esWant(docs))
		pit := "es-pit-1"
		tie := "_shard_doc"
		if isOS {
			pit, tie = "os-pit-1", "_doc"
		}
		wantFilter := `[{"range":{"@timestamp":{"format":"strict_date_optional_time_nanos","gte":"2024-08-12T00:00:00Z","lt":"2024-08-13T00:00:00Z"}}},` +
			`{"query_string":{"query":"kubernetes.container_name:\"kube-controller-manager\""}},` +
			`{"query_string":{"allow_leading_wildcard":true,"analyze_wildcard":false,"fields":["message","log"],` +
			`"query":"(*olume* OR *ttach* OR *etach* OR *mount* OR (*no AND retries*) OR (*acquired AND lease*) OR *started OR *serial* OR *diskid* OR *zonenotmatch* OR *evice* OR (*grpc AND error*))"}}]`
		for i, b := range fake.bodies {
			f, _ := json.Marshal(b["query"].(map[string]any)["bool"].(map[string]any)["filter"])
			if string(f) != wantFilter {
				t.Errorf("%s request %d filter:\n got  %s\n want %s", scheme, i, f, wantFilter)
			}
			if _, ok := b["from"]; ok {
				t.Errorf("request %d pages with from", i)
			}
			s, _ := json.Marshal(b["sort"])
			if want := `[{"@timestamp":{"format":"strict_date_optional_time_nanos","order":"asc"}},{"` + tie + `":"asc"}]`; string(s) != want {
				t.Errorf("sort %s, want %s", s, want)
			}
			if p, _ := json.Marshal(b["pit"]); string(p) != `{"id":"`+pit+`","keep_alive":"2m"}` {
				t.Errorf("pit %s", p)
			}
			if (i == 0) != (b["search_after"] == nil) {
				t.Errorf("request %d search_after %v", i, b["search_after"])
			}
		}
		if n := len(fake.bodies); n != len(docs)/4+1 {
			t.Errorf("%d searches for %d docs in pages of 4", n, len(docs))
		}
		if last := fake.paths[len(fake.paths)-1]; !strings.HasPrefix(last, "DELETE ") {
			t.Errorf("PIT not closed: last request %s", last)
		}
		if streams[0].Envelope != "elasticsearch" || streams[0].Records != len(docs)-1 {
			t.Errorf("stream %+v", streams[0])
		}
	}
}

// TestElasticsearchWildcardFallback: a cluster that rejects the wildcard
// query gets the time range and selector only; the fallback is said.
func TestElasticsearchWildcardFallback(t *testing.T) {
	docs := esSeed(t)
	fake := &esFake{t: t, docs: docs, rejectWild: true}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	src, _ := Parse("es+" + srv.URL + "/logs-k8s-*")
	var notes []string
	opt := esOptions(t)
	opt.Logf = func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) }
	streams, err := Fetch(context.Background(), src, opt)
	if err != nil {
		t.Fatal(err)
	}
	diffLines(t, "fallback", esFetched(t, streams[0]), esWant(docs))
	if !strings.Contains(streams[0].Fallback, "Failed to parse query") || strings.Contains(streams[0].Query, "wildcard") || len(notes) != 1 {
		t.Errorf("fallback %q, query %s, notes %q", streams[0].Fallback, streams[0].Query, notes)
	}
}
