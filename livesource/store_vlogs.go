package livesource

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// vlogsStore queries VictoriaLogs' /select/logsql/query, which streams one
// JSON object per record. Paging: windows as in paging.go; a window is
// read in pages of PageSize records sorted by
// (_time, _stream_id, _msg) — a total order — from a cursor: _time at or
// after the last page's newest time, skipping (sort pipe offset) the
// records already read at exactly that nanosecond, so lines that share a
// timestamp are neither lost nor repeated.
type vlogsStore struct{ opt Options }

func (s *vlogsStore) query(sel string, pushdown, _ bool) string {
	if sel == "" {
		sel = "*"
	}
	if !pushdown {
		return sel
	}
	return sel + " " + LogsQLFilter(s.opt.Contains)
}

// vlogsTime formats a time for LogsQL and the start/end args.
func vlogsTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// send posts one LogsQL query (form-encoded: the server ignores a JSON
// body) and returns the JSON lines.
func (s *vlogsStore) send(ctx context.Context, rf *roleFetch, q string, start, end time.Time) ([][]byte, error) {
	form := url.Values{"query": {q}, "start": {vlogsTime(start)}, "end": {vlogsTime(end)}}
	body, err := rf.c.do(ctx, request{method: http.MethodPost, path: "/select/logsql/query",
		body: []byte(form.Encode()), ctype: "application/x-www-form-urlencoded"})
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	for _, l := range bytes.Split(body, []byte{'\n'}) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

func (s *vlogsStore) probe(ctx context.Context, rf *roleFetch) (bool, error) {
	lines, err := s.send(ctx, rf, s.query(rf.sel, false, false)+" | limit 1", rf.opt.Since, rf.opt.Until)
	return len(lines) > 0, err
}

func (s *vlogsStore) fetch(ctx context.Context, rf *roleFetch) error {
	return fetchWindows(ctx, s, rf, func(recs []record) {
		for _, r := range recs {
			rf.w.Write(r.raw)
			rf.w.WriteByte('\n')
		}
		rf.records += len(recs)
	})
}

// window reads [a, b) in pages sorted by (_time, _stream_id, _msg) from a
// cursor (see vlogsStore).
func (s *vlogsStore) window(ctx context.Context, rf *roleFetch, a, b int64, onePage bool) ([]record, bool, error) {
	base := s.query(rf.sel, rf.pushdown, false)
	page := rf.opt.PageSize
	end := time.Unix(0, b).UTC()
	cursor, skip := time.Unix(0, a).UTC(), 0
	var out []record
	for {
		q := fmt.Sprintf("%s _time:[%s, %s) | sort by (_time, _stream_id, _msg) offset %d limit %d",
			base, vlogsTime(cursor), vlogsTime(end), skip, page)
		lines, err := s.send(ctx, rf, q, cursor, end)
		if err != nil {
			return out, false, err
		}
		var last time.Time
		atLast := 0
		for _, l := range lines {
			ts, id, err := vlogsRecord(l)
			if err != nil {
				return out, false, fmt.Errorf("record %d of a page: %v", len(out)+1, err)
			}
			if ts.Before(cursor) || !ts.Before(end) {
				return out, false, fmt.Errorf("server returned a record at %s outside [%s, %s)", vlogsTime(ts), vlogsTime(cursor), vlogsTime(end))
			}
			if ts.Equal(last) {
				atLast++
			} else {
				last, atLast = ts, 1
			}
			out = append(out, record{ts: ts.UnixNano(), id: id, raw: l})
		}
		if len(lines) < page || onePage {
			return out, len(lines) >= page, nil
		}
		if last.Equal(cursor) {
			skip += atLast
		} else {
			cursor, skip = last, atLast
		}
	}
}

// vlogsFields are the fields of a record read here.
type vlogsFields struct {
	Time     string `json:"_time"`
	StreamID string `json:"_stream_id"`
	Msg      string `json:"_msg"`
}

// vlogsRecord reads the time of one JSON line and its identity: stream,
// time and message.
func vlogsRecord(line []byte) (time.Time, string, error) {
	var r vlogsFields
	if err := json.Unmarshal(line, &r); err != nil {
		return time.Time{}, "", fmt.Errorf("not a JSON record: %v", err)
	}
	ts, err := time.Parse(time.RFC3339Nano, r.Time)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("_time %s: %v", strconv.Quote(r.Time), err)
	}
	return ts, r.StreamID + "\x00" + r.Time + "\x00" + r.Msg, nil
}

// following reads the records of r's stream (by _stream_id) in
// [r.ts, r.ts+continuationWindow), selector only, in the fetch's order.
func (s *vlogsStore) following(ctx context.Context, rf *roleFetch, r record) ([]record, error) {
	var f vlogsFields
	if err := json.Unmarshal(r.raw, &f); err != nil || f.StreamID == "" {
		return nil, nil // no stream id: nothing to join safely
	}
	start := time.Unix(0, r.ts).UTC()
	end := start.Add(continuationWindow)
	q := fmt.Sprintf("%s _stream_id:%s _time:[%s, %s) | sort by (_time, _stream_id, _msg) limit %d",
		s.query(rf.sel, false, false), f.StreamID, vlogsTime(start), vlogsTime(end), continuationMax+1)
	lines, err := s.send(ctx, rf, q, start, end)
	if err != nil {
		return nil, err
	}
	out := make([]record, 0, len(lines))
	for _, l := range lines {
		ts, id, err := vlogsRecord(l)
		if err != nil {
			return nil, err
		}
		out = append(out, record{ts: ts.UnixNano(), id: id, raw: l})
	}
	return out, nil
}

func (s *vlogsStore) text(r record) []byte {
	var f vlogsFields
	json.Unmarshal(r.raw, &f)
	return []byte(f.Msg)
}

func (s *vlogsStore) withText(r record, text []byte) record {
	var m map[string]json.RawMessage
	if json.Unmarshal(r.raw, &m) != nil {
		return r
	}
	m["_msg"], _ = json.Marshal(string(text))
	r.raw, _ = json.Marshal(m)
	return r
}
