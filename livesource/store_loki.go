package livesource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// lokiStore queries Loki's /loki/api/v1/query_range (streams result).
// Paging: windows as in paging.go (at most 1 h: Loki splits by the hour
// itself and refuses spans over max_query_length); each window is read
// with direction=forward and limit ≤ 5000 (max_entries_limit_per_query's
// default). A full page continues from start = its newest nanosecond
// (start is inclusive), dropping the entries already read at exactly that
// nanosecond, so lines sharing one are neither lost nor repeated. Entries
// are sorted by time whatever order the server used.
//
// The file written is one query_range response document holding every
// page's streams, oldest first.
type lokiStore struct{ opt Options }

func (s *lokiStore) query(sel string, pushdown, fallback bool) string {
	switch {
	case !pushdown:
		return sel
	case fallback:
		return sel + " " + LogQLRegexpFilter(s.opt.Contains)
	}
	return sel + " " + LogQLFilter(s.opt.Contains)
}

// lokiResponse is the part of a query_range answer read here.
type lokiResponse struct {
	Status string `json:"status"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Stream map[string]string   `json:"stream"`
			Values [][]json.RawMessage `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// lokiEntry is one value of a stream.
type lokiEntry struct {
	stream string // the stream's labels as JSON (the output key)
	ts     int64
	line   string
	raw    []json.RawMessage
}

func (s *lokiStore) send(ctx context.Context, rf *roleFetch, q string, start, end int64, limit int, dir string) ([]lokiEntry, error) {
	v := url.Values{
		"query": {q}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)},
		"limit": {strconv.Itoa(limit)}, "direction": {dir},
	}
	body, err := rf.c.do(ctx, request{method: http.MethodGet, path: "/loki/api/v1/query_range", query: v})
	if err != nil {
		return nil, err
	}
	var r lokiResponse
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, &permanentError{fmt.Errorf("not a query_range response: %v", err)}
	}
	if r.Status != "success" {
		return nil, &permanentError{fmt.Errorf("query_range status %q", r.Status)}
	}
	if r.Data.ResultType != "streams" {
		return nil, &permanentError{fmt.Errorf("query_range result type %q, want streams (a log query, not a metric query)", r.Data.ResultType)}
	}
	var out []lokiEntry
	for _, st := range r.Data.Result {
		key, _ := json.Marshal(st.Stream) // map keys sorted: a stable key
		for _, val := range st.Values {
			var tsText, line string
			if len(val) < 2 || json.Unmarshal(val[0], &tsText) != nil || json.Unmarshal(val[1], &line) != nil {
				return nil, &permanentError{errors.New("query_range value is not [\"<ns>\", \"<line>\", …]")}
			}
			ts, err := strconv.ParseInt(tsText, 10, 64)
			if err != nil {
				return nil, &permanentError{fmt.Errorf("query_range timestamp %q is not nanoseconds", tsText)}
			}
			out = append(out, lokiEntry{stream: string(key), ts: ts, line: line, raw: val})
		}
	}
	slices.SortStableFunc(out, func(a, b lokiEntry) int {
		if a.ts != b.ts {
			return cmpInt(a.ts, b.ts)
		}
		return strings.Compare(a.stream, b.stream)
	})
	return out, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *lokiStore) probe(ctx context.Context, rf *roleFetch) (bool, error) {
	es, err := s.send(ctx, rf, rf.sel, rf.opt.Since.UnixNano(), rf.opt.Until.UnixNano(), 1, "backward")
	return len(es) > 0, err
}

func (s *lokiStore) fetch(ctx context.Context, rf *roleFetch) error {
	out := lokiWriter{rf: rf}
	out.begin()
	defer out.end()
	return fetchWindows(ctx, s, rf, out.page)
}

// request sends one data request, falling back once (for every window) to
// the |~ filter when Loki rejects "or".
func (s *lokiStore) request(ctx context.Context, rf *roleFetch, start, end int64, limit int) ([]lokiEntry, error) {
	useRegexp := rf.fellBack() != ""
	page, err := s.send(ctx, rf, s.query(rf.sel, rf.pushdown, useRegexp), start, end, limit, "forward")
	var he *httpError
	if err != nil && rf.pushdown && !useRegexp && errors.As(err, &he) && he.status == http.StatusBadRequest {
		if why := `Loki rejected "|= … or …" (before 2.9): used the |~ regexp filter`; rf.fallBack(why) {
			rf.c.logf("%s: %s", rf.c.src, why)
		}
		page, err = s.send(ctx, rf, s.query(rf.sel, true, true), start, end, limit, "forward")
	}
	return page, err
}

// window reads [a, b) forward from a cursor (see lokiStore).
func (s *lokiStore) window(ctx context.Context, rf *roleFetch, a, b int64, onePage bool) ([]record, bool, error) {
	limit := min(rf.opt.PageSize, lokiMaxPage)
	var out []record
	cursor := a
	seen := map[string]int{} // stream+line already read at exactly cursor
	for {
		page, err := s.request(ctx, rf, cursor, b, limit)
		if err != nil {
			return out, false, err
		}
		avail := maps.Clone(seen)
		var fresh []lokiEntry
		for _, e := range page {
			if e.ts < cursor || e.ts >= b {
				return out, false, fmt.Errorf("server returned an entry at %d ns outside [%d, %d)", e.ts, cursor, b)
			}
			if e.ts == cursor {
				if k := e.key(); avail[k] > 0 {
					avail[k]--
					continue
				}
			}
			fresh = append(fresh, e)
		}
		out = appendLoki(out, fresh)
		if len(page) < limit || onePage {
			return out, len(page) >= limit, nil
		}
		newest := page[len(page)-1].ts
		if len(fresh) == 0 {
			// A full page of entries already read, all at cursor: more
			// than limit entries share this nanosecond. Read it alone
			// with Loki's largest limit, then go on after it.
			rest, err := s.oneNanosecond(ctx, rf, cursor, seen)
			out = appendLoki(out, rest)
			if err != nil {
				return out, false, err
			}
			cursor, seen = cursor+1, map[string]int{}
			continue
		}
		if newest != cursor {
			cursor, seen = newest, map[string]int{}
		}
		for _, e := range fresh {
			if e.ts == cursor {
				seen[e.key()]++
			}
		}
	}
}

// appendLoki appends entries as records.
func appendLoki(out []record, es []lokiEntry) []record {
	for _, e := range es {
		raw, _ := json.Marshal(e.raw)
		out = append(out, record{ts: e.ts, raw: raw, stream: e.stream, id: e.stream + "\x00" + strconv.FormatInt(e.ts, 10) + "\x00" + e.line})
	}
	return out
}

// oneNanosecond returns the entries at ts not yet in seen, asking for up
// to lokiMaxPage of them; more than that is truncation, reported.
func (s *lokiStore) oneNanosecond(ctx context.Context, rf *roleFetch, ts int64, seen map[string]int) ([]lokiEntry, error) {
	page, err := s.request(ctx, rf, ts, ts+1, lokiMaxPage)
	if err != nil {
		return nil, err
	}
	var fresh []lokiEntry
	for _, e := range page {
		if k := e.key(); seen[k] > 0 {
			seen[k]--
			continue
		}
		fresh = append(fresh, e)
	}
	if len(page) >= lokiMaxPage {
		rf.truncate(fmt.Sprintf("more than %d entries at %s (Loki cannot page within one nanosecond): the rest were skipped",
			lokiMaxPage, time.Unix(0, ts).UTC().Format(time.RFC3339Nano)))
	}
	return fresh, nil
}

// key identifies an entry within one nanosecond.
func (e lokiEntry) key() string { return e.stream + "\x00" + e.line }

// lokiWriter writes one query_range document holding every page's
// streams, each record starting its own physical line and the framing
// sharing the first and last record's lines, so that the parser's line
// count of the file is the number of records fetched (an empty fetch is
// one framing line).
type lokiWriter struct {
	rf     *roleFetch
	stream string // the stream of the run being written; "" before any
}

func (w *lokiWriter) begin() {
	w.rf.w.WriteString(`{"status":"success","data":{"resultType":"streams","result":[`)
}

// page writes records (sorted by time) in time order: one result element
// per run of records from one stream.
func (w *lokiWriter) page(es []record) {
	for _, e := range es {
		switch {
		case w.stream == "":
			w.rf.w.WriteString("{\"stream\":" + e.stream + ",\"values\":[")
		case e.stream != w.stream:
			w.rf.w.WriteString("]},\n{\"stream\":" + e.stream + ",\"values\":[")
		default:
			w.rf.w.WriteString(",\n")
		}
		w.stream = e.stream
		w.rf.w.Write(e.raw)
		w.rf.records++
	}
}

func (w *lokiWriter) end() {
	if w.stream != "" {
		w.rf.w.WriteString("]}")
	}
	w.rf.w.WriteString("]}}\n")
}

// following reads the records of r's stream in [r.ts, r.ts+continuationWindow),
// forward, without the line filter: the selector narrowed to r's labels
// by label filters (which match stream labels and structured metadata
// alike), and only entries of exactly r's label set kept.
func (s *lokiStore) following(ctx context.Context, rf *roleFetch, r record) ([]record, error) {
	var labels map[string]string
	if json.Unmarshal([]byte(r.stream), &labels) != nil {
		return nil, nil
	}
	q := rf.sel
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if !isLabelName(k) {
			return nil, nil // not a name LogQL can filter on: nothing to join safely
		}
		q += " | " + k + "=" + strconv.Quote(labels[k])
	}
	es, err := s.send(ctx, rf, q, r.ts, r.ts+int64(continuationWindow), continuationMax+1, "forward")
	if err != nil {
		return nil, err
	}
	var same []lokiEntry
	for _, e := range es {
		if e.stream == r.stream {
			same = append(same, e)
		}
	}
	return appendLoki(nil, same), nil
}

// isLabelName reports whether k is a Prometheus label name.
func isLabelName(k string) bool {
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return k != ""
}

func (s *lokiStore) text(r record) []byte {
	var v []json.RawMessage
	var line string
	if json.Unmarshal(r.raw, &v) != nil || len(v) < 2 || json.Unmarshal(v[1], &line) != nil {
		return nil
	}
	return []byte(line)
}

func (s *lokiStore) withText(r record, text []byte) record {
	var v []json.RawMessage
	if json.Unmarshal(r.raw, &v) != nil || len(v) < 2 {
		return r
	}
	v[1], _ = json.Marshal(string(text))
	r.raw, _ = json.Marshal(v)
	return r
}
