package livesource

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Continuation joining for Elasticsearch and OpenSearch (continuation.go).
// A hit's stream is the collector's identity fields present in its
// _source; the block's hits are searched on the index (not the point in
// time: they are older than it) over [header, header+continuationWindow)
// by time range, selector and a match_phrase per identity field, without
// the pushdown, and each hit returned must carry the same identity values.

// esStreamFields identify one log stream in the common collectors'
// documents: Fluent Bit / Fluentd (kubernetes.*_name, pod_id, host,
// docker_id), Vector (pod_uid, pod_node_name), ECS from Filebeat / Elastic
// Agent (kubernetes.pod.*, container.id, host.name), journald (_HOSTNAME,
// _SYSTEMD_UNIT, _BOOT_ID), and the file or stdout/stderr stream.
var esStreamFields = []string{
	"kubernetes.namespace_name", "kubernetes.pod_name", "kubernetes.pod_id", "kubernetes.container_name",
	"kubernetes.host", "kubernetes.docker_id",
	"kubernetes.pod_namespace", "kubernetes.pod_uid", "kubernetes.pod_node_name",
	"kubernetes.namespace", "kubernetes.pod.name", "kubernetes.pod.uid", "kubernetes.container.name",
	"kubernetes.node.name", "container.id", "host.name",
	"_HOSTNAME", "_SYSTEMD_UNIT", "_BOOT_ID", "systemd.unit",
	"stream", "log.file.path", "file",
}

// esParsed is a hit decoded for joining: its _source with numbers kept as
// written.
type esParsed struct {
	hit    map[string]any
	source map[string]any
}

func parseHit(raw []byte) (esParsed, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var hit map[string]any
	if d.Decode(&hit) != nil {
		return esParsed{}, false
	}
	src, ok := hit["_source"].(map[string]any)
	return esParsed{hit: hit, source: src}, ok
}

// sourceField finds a dotted field in a _source, nested ({"a":{"b":…}}),
// flat ({"a.b":…}) or mixed.
func sourceField(m map[string]any, path string) (parent map[string]any, key string, ok bool) {
	if _, ok := m[path]; ok {
		return m, path, true
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '.' {
			continue
		}
		if sub, ok := m[path[:i]].(map[string]any); ok {
			if p, k, ok := sourceField(sub, path[i+1:]); ok {
				return p, k, true
			}
		}
	}
	return nil, "", false
}

// sourceString is a string field of a _source.
func sourceString(m map[string]any, path string) (string, bool) {
	p, k, ok := sourceField(m, path)
	if !ok {
		return "", false
	}
	v, ok := p[k].(string)
	return v, ok
}

// identity is the hit's stream: its esStreamFields values.
func identity(src map[string]any) map[string]string {
	out := map[string]string{}
	for _, f := range esStreamFields {
		if v, ok := sourceString(src, f); ok && v != "" {
			out[f] = v
		}
	}
	return out
}

// hitTime is a hit's time: the ES time field of its _source, else its
// first sort value (the fetch sorts by that field first).
func (s *elasticStore) hitTime(h esParsed) (time.Time, bool) {
	if p, k, ok := sourceField(h.source, s.opt.ESTimeField); ok {
		if t, ok := timeValue(p[k]); ok {
			return t, true
		}
	}
	if sv, ok := h.hit["sort"].([]any); ok && len(sv) > 0 {
		return timeValue(sv[0])
	}
	return time.Time{}, false
}

// timeValue reads an RFC 3339 time or epoch milliseconds.
func timeValue(v any) (time.Time, bool) {
	switch v := v.(type) {
	case string:
		t, err := time.Parse(time.RFC3339Nano, v)
		return t, err == nil
	case json.Number:
		ms, err := strconv.ParseInt(v.String(), 10, 64)
		return time.UnixMilli(ms), err == nil
	}
	return time.Time{}, false
}

func (s *elasticStore) following(ctx context.Context, rf *roleFetch, r record) ([]record, error) {
	h, ok := parseHit(r.raw)
	if !ok {
		return nil, nil
	}
	at, ok := s.hitTime(h)
	id := identity(h.source)
	if !ok || len(id) == 0 {
		return nil, nil // no time or no stream to join within: nothing to join safely
	}
	filter := s.clauses(rf.sel, false, at, at.Add(continuationWindow))
	for _, f := range esStreamFields {
		if v, ok := id[f]; ok {
			filter = append(filter, map[string]any{"match_phrase": map[string]any{f: v}})
		}
	}
	res, err := s.search(ctx, rf, s.indexPath("/_search"), map[string]any{
		"size": continuationMax + 1, "track_total_hits": false,
		"sort":  []any{map[string]any{s.opt.ESTimeField: map[string]any{"order": "asc", "format": "strict_date_optional_time_nanos"}}, map[string]any{"_doc": "asc"}},
		"query": map[string]any{"bool": map[string]any{"filter": filter}},
	})
	if err != nil {
		return nil, err
	}
	var out []record
	for _, raw := range res.Hits.Hits {
		n, ok := parseHit(raw)
		if !ok || !sameIdentity(identity(n.source), id) {
			continue
		}
		idx, _ := n.hit["_index"].(string)
		hid, _ := n.hit["_id"].(string)
		if hid == "" {
			continue
		}
		out = append(out, record{id: idx + "/" + hid, raw: raw})
	}
	return out, nil
}

func sameIdentity(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// messageField is the first of ESMessageFields the _source holds as text.
func (s *elasticStore) messageField(src map[string]any) (map[string]any, string, bool) {
	for _, f := range s.opt.ESMessageFields {
		if p, k, ok := sourceField(src, f); ok {
			if _, ok := p[k].(string); ok {
				return p, k, true
			}
		}
	}
	return nil, "", false
}

// message decodes a hit and finds its message field.
func (s *elasticStore) message(raw []byte) (h esParsed, parent map[string]any, key string, ok bool) {
	if h, ok = parseHit(raw); ok {
		parent, key, ok = s.messageField(h.source)
	}
	return h, parent, key, ok
}

func (s *elasticStore) text(r record) []byte {
	if _, p, k, ok := s.message(r.raw); ok {
		return []byte(p[k].(string))
	}
	return nil
}

func (s *elasticStore) withText(r record, text []byte) record {
	h, p, k, ok := s.message(r.raw)
	if !ok {
		return r
	}
	p[k] = string(text)
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(h.hit) != nil {
		return r
	}
	r.raw = []byte(strings.TrimSuffix(b.String(), "\n"))
	return r
}
