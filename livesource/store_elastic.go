package livesource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// elasticStore queries Elasticsearch or OpenSearch _search. Paging: a
// point in time (ES: POST INDEX/_pit; OpenSearch: POST
// INDEX/_search/point_in_time) with sort [time asc, _shard_doc asc] and
// search_after the last hit's sort values — never from/size, which stops
// at index.max_result_window (10 000). Without a PIT (refused, or an old
// release) it sorts [time asc, _doc asc] on the index. Hits are
// de-duplicated on _index/_id.
//
// The pushdown is a query_string of lower-case wildcard terms over the
// message fields (ESQueryString); when the cluster rejects it (leading
// wildcards disabled, too many clauses) the fetch falls back to the time
// range and the selector, and the parser filters locally.
//
// A point in time is one consistent snapshot paged in sort order, so it is
// read by one request series, not by the concurrent time windows of the
// other stores (paging.go).
//
// The file written is one _search response holding every page's hits.
type elasticStore struct {
	src Source
	opt Options
}

const pitKeepAlive = "2m"

// clauses are the filter clauses: time range, selector, pushdown.
func (s *elasticStore) clauses(sel string, pushdown bool, since, until time.Time) []any {
	out := []any{map[string]any{"range": map[string]any{s.opt.ESTimeField: map[string]any{
		"gte": since.UTC().Format(time.RFC3339Nano), "lt": until.UTC().Format(time.RFC3339Nano),
		"format": "strict_date_optional_time_nanos",
	}}}}
	if sel != "" {
		if strings.HasPrefix(strings.TrimSpace(sel), "{") {
			out = append(out, json.RawMessage(sel))
		} else {
			out = append(out, map[string]any{"query_string": map[string]any{"query": sel}})
		}
	}
	if pushdown {
		out = append(out, map[string]any{"query_string": map[string]any{
			"query": ESQueryString(s.opt.Contains), "fields": s.opt.ESMessageFields,
			"allow_leading_wildcard": true, "analyze_wildcard": false,
		}})
	}
	return out
}

func (s *elasticStore) queryBody(sel string, pushdown bool) map[string]any {
	return map[string]any{"bool": map[string]any{"filter": s.clauses(sel, pushdown, s.opt.Since, s.opt.Until)}}
}

func (s *elasticStore) query(sel string, pushdown, fallback bool) string {
	b, _ := json.Marshal(s.queryBody(sel, pushdown && !fallback))
	return string(b)
}

// esHit is the part of a hit read here.
type esHit struct {
	Index string            `json:"_index"`
	ID    string            `json:"_id"`
	Sort  []json.RawMessage `json:"sort"`
}

type esResponse struct {
	PitID string `json:"pit_id"`
	Hits  struct {
		Hits []json.RawMessage `json:"hits"`
	} `json:"hits"`
}

func (s *elasticStore) search(ctx context.Context, rf *roleFetch, path string, body map[string]any) (*esResponse, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	resp, err := rf.c.do(ctx, request{method: http.MethodPost, path: path, body: b, ctype: "application/json"})
	if err != nil {
		return nil, err
	}
	var r esResponse
	if err := json.Unmarshal(resp, &r); err != nil {
		return nil, &permanentError{fmt.Errorf("not a _search response: %v", err)}
	}
	return &r, nil
}

func (s *elasticStore) indexPath(suffix string) string {
	return "/" + url.PathEscape(s.src.Index) + suffix
}

func (s *elasticStore) probe(ctx context.Context, rf *roleFetch) (bool, error) {
	r, err := s.search(ctx, rf, s.indexPath("/_search"), map[string]any{
		"size": 1, "track_total_hits": false, "_source": false, "query": s.queryBody(rf.sel, false),
	})
	if err != nil {
		return false, err
	}
	return len(r.Hits.Hits) > 0, nil
}

// openPIT opens a point in time, or returns "" when the cluster has none.
func (s *elasticStore) openPIT(ctx context.Context, rf *roleFetch) (string, error) {
	path := s.indexPath("/_pit")
	if s.src.Store == OpenSearch {
		path = s.indexPath("/_search/point_in_time")
	}
	body, err := rf.c.do(ctx, request{method: http.MethodPost, path: path, query: url.Values{"keep_alive": {pitKeepAlive}}})
	var he *httpError
	if errors.As(err, &he) && he.status != http.StatusUnauthorized && he.status != http.StatusForbidden && he.status/100 == 4 {
		rf.c.logf("%s: no point in time (%v): paging on the index, sorted by time and _doc", s.src, err)
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var r struct {
		ID    string `json:"id"`
		PitID string `json:"pit_id"`
	}
	if json.Unmarshal(body, &r) != nil || r.ID+r.PitID == "" {
		return "", nil
	}
	return r.ID + r.PitID, nil
}

// closePIT releases a point in time (best effort: it expires anyway).
func (s *elasticStore) closePIT(rf *roleFetch, id string) {
	ctx, cancel := context.WithTimeout(context.Background(), rf.opt.Timeout)
	defer cancel()
	path, body := "/_pit", map[string]any{"id": id}
	if s.src.Store == OpenSearch {
		path, body = "/_search/point_in_time", map[string]any{"pit_id": []string{id}}
	}
	b, _ := json.Marshal(body)
	retries := rf.c.opt.Retries
	rf.c.opt.Retries = 0 // one try: a PIT left open expires after pitKeepAlive
	rf.c.do(ctx, request{method: http.MethodDelete, path: path, body: b, ctype: "application/json"})
	rf.c.opt.Retries = retries
}

func (s *elasticStore) fetch(ctx context.Context, rf *roleFetch) error {
	size := min(rf.opt.PageSize, 10000)
	pit, err := s.openPIT(ctx, rf)
	if err != nil {
		return err
	}
	if pit != "" {
		defer func() { s.closePIT(rf, pit) }()
	}
	tie := "_shard_doc"
	if pit == "" || s.src.Store == OpenSearch {
		tie = "_doc"
	}
	rf.w.WriteString(`{"hits":{"hits":[`)
	defer rf.w.WriteString("]}}\n")
	seen := map[string]bool{}
	sp := newSplicer(s, rf)
	defer sp.done()
	var after []json.RawMessage
	pushdown := rf.pushdown
	pages := 0
	for {
		if rf.full() {
			return nil
		}
		body := map[string]any{
			"size": size, "track_total_hits": false,
			"sort":  []any{map[string]any{s.opt.ESTimeField: map[string]any{"order": "asc", "format": "strict_date_optional_time_nanos"}}, map[string]any{tie: "asc"}},
			"query": s.queryBody(rf.sel, pushdown),
		}
		path := s.indexPath("/_search")
		if pit != "" {
			body["pit"] = map[string]any{"id": pit, "keep_alive": pitKeepAlive}
			path = "/_search"
		}
		if after != nil {
			body["search_after"] = after
		}
		r, err := s.search(ctx, rf, path, body)
		var he *httpError
		if err != nil && pushdown && after == nil && errors.As(err, &he) && he.status == http.StatusBadRequest {
			why := "the cluster rejected the wildcard pushdown (" + clip(he.body, 120) + "): fetched by time and selector only"
			rf.fallBack(why)
			rf.c.logf("%s: %s", s.src, why)
			pushdown = false
			continue
		}
		if err != nil {
			return err
		}
		if r.PitID != "" && pit != "" {
			pit = r.PitID
		}
		var recs []record
		for _, raw := range r.Hits.Hits {
			var h esHit
			if err := json.Unmarshal(raw, &h); err != nil {
				return &permanentError{fmt.Errorf("hit: %v", err)}
			}
			if len(h.Sort) == 0 {
				return &permanentError{errors.New("hit without sort values: cannot page with search_after")}
			}
			after = h.Sort
			id := h.Index + "/" + h.ID
			if h.ID != "" && seen[id] {
				continue
			}
			seen[id] = true
			if h.ID == "" {
				id = ""
			}
			recs = append(recs, record{id: id, raw: raw})
		}
		if err := sp.splice(ctx, recs); err != nil {
			return err
		}
		for _, rec := range sp.unabsorbed(recs) {
			if rf.records > 0 {
				rf.w.WriteString(",\n") // one hit a line: the parser's line count is the records'
			}
			rf.w.Write(rec.raw)
			rf.records++
		}
		pages++
		if rf.opt.Progress != nil { // one point in time: a page is its window
			rf.opt.Progress(Progress{Role: rf.role, Records: rf.records, Windows: pages, Span: rf.opt.Until.Sub(rf.opt.Since)})
		}
		if len(r.Hits.Hits) < size {
			return nil
		}
	}
}
