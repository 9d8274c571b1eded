package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// seedRecords are the seed incident's KCM and kubelet records (noise
// included) in time order.
func seedRecords(t *testing.T) []vlogstest.Record {
	t.Helper()
	recs, err := vlogstest.Seed(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	recs = slices.DeleteFunc(recs, func(r vlogstest.Record) bool { return r.Role != "kcm" && r.Role != "kubelet" })
	slices.SortStableFunc(recs, func(a, b vlogstest.Record) int { return a.Time.Compare(b.Time) })
	return recs
}

// prefiltered is what a store's pushdown keeps: any prefilter token.
func prefiltered(msg string) bool {
	for _, tok := range classifier.PrefilterTokens() {
		if strings.Contains(msg, string(tok)) {
			return true
		}
	}
	return false
}

// roleOf is the role a query's selector names (the fakes' streams).
func roleOf(query string) string {
	if strings.Contains(query, "kube-controller-manager") {
		return "kcm"
	}
	return "kubelet"
}

// lokiFake serves query_range over recs as Loki does: [start, end), the
// line filter, direction and limit; with auth set, requests without that
// bearer token get 401.
func lokiFake(t *testing.T, recs []vlogstest.Record, auth string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth != "" && r.Header.Get("Authorization") != "Bearer "+auth {
			http.Error(w, "no org id", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/loki/api/v1/query_range" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		start, _ := strconv.ParseInt(q.Get("start"), 10, 64)
		end, _ := strconv.ParseInt(q.Get("end"), 10, 64)
		limit, _ := strconv.Atoi(q.Get("limit"))
		query, role := q.Get("query"), roleOf(q.Get("query"))
		var vals [][2]string
		for _, rec := range recs {
			ns := rec.Time.UnixNano()
			if rec.Role == role && ns >= start && ns < end && (!strings.Contains(query, "|") || prefiltered(rec.Msg)) {
				vals = append(vals, [2]string{strconv.FormatInt(ns, 10), rec.Msg})
			}
		}
		if q.Get("direction") == "backward" {
			slices.Reverse(vals)
		}
		vals = vals[:min(len(vals), limit)]
		labels := map[string]string{"container": "kube-controller-manager", "namespace": "kube-system"}
		if role == "kubelet" {
			labels = map[string]string{"unit": "kubelet.service", "host": "vm-3-27-centos"}
		}
		json.NewEncoder(w).Encode(map[string]any{"status": "success", "data": map[string]any{
			"resultType": "streams", "result": []any{map[string]any{"stream": labels, "values": vals}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// esFake serves a point in time and search_after paging over recs; with
// failPage > 0 the search of that page (counted from 1) answers 400, so
// the fetch stops part way.
func esFake(t *testing.T, recs []vlogstest.Record, failPage int) *httptest.Server {
	pages := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/_pit") && r.Method == http.MethodPost:
			fmt.Fprint(w, `{"id":"pit-1"}`)
			return
		case r.URL.Path == "/_pit" && r.Method == http.MethodDelete:
			fmt.Fprint(w, `{"succeeded":true}`)
			return
		case !strings.HasSuffix(r.URL.Path, "/_search"):
			http.NotFound(w, r)
			return
		}
		var body struct {
			Size        int     `json:"size"`
			SearchAfter []int64 `json:"search_after"`
		}
		raw := new(bytes.Buffer)
		raw.ReadFrom(r.Body)
		json.Unmarshal(raw.Bytes(), &body)
		if strings.Contains(raw.String(), `"pit"`) {
			if pages++; pages == failPage {
				http.Error(w, `{"error":{"type":"search_phase_execution_exception"}}`, http.StatusBadRequest)
				return
			}
		}
		role := roleOf(raw.String())
		var hits []any
		for i, rec := range recs {
			key := []int64{rec.Time.UnixMilli(), int64(i)}
			if rec.Role != role || (body.SearchAfter != nil && slices.Compare(key, body.SearchAfter) <= 0) || !prefiltered(rec.Msg) {
				continue
			}
			if len(hits) == body.Size {
				break
			}
			src := map[string]any{"@timestamp": rec.Time.UTC().Format(time.RFC3339Nano), "message": rec.Msg}
			if role == "kcm" {
				src["kubernetes"] = map[string]any{"container_name": "kube-controller-manager"}
			} else {
				// no host.name: the seed's nodes are named by IP, its
				// journal's host vm-3-27-centos would name another node
				src["systemd"] = map[string]any{"unit": "kubelet.service"}
			}
			hits = append(hits, map[string]any{"_index": "logs-1", "_id": fmt.Sprint("d", i), "_source": src, "sort": key})
		}
		json.NewEncoder(w).Encode(map[string]any{"pit_id": "pit-1", "hits": map[string]any{"hits": hits}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAnalyzeLokiAndElasticsearch runs analyze on loki+ and es+ URLs of
// fakes that hold the seed among noise: the seed's findings, exit 0; an
// auth failure is one line naming the source, exit 3, and the file given
// with it is still analysed; a fetch stopped part way is a problem line
// on its input and exit 3.
func TestAnalyzeLokiAndElasticsearch(t *testing.T) {
	recs := seedRecords(t)
	seed := absFixture(t, "incidents", "seed-legacy")
	plain, _ := analyzeLive(t, exitOK, filepath.Join(seed, "kcm.log"), filepath.Join(seed, "kubelet.log"))
	wantFindings, wantIncidents := normalised(t, plain.findings, inputRoles(plain)), normalised(t, plain.incidents, nil)
	window := []string{"--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z", "--page-size", "50"}

	loki := "loki+" + lokiFake(t, recs, "").URL
	day := time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	inWindow := slices.DeleteFunc(slices.Clone(recs), func(r vlogstest.Record) bool { return r.Time.Before(day) }) // the fake ignores the range
	es := "es+" + esFake(t, inWindow, 0).URL + "/logs-*"
	for _, tc := range []struct {
		name, url string
		selectors []string
	}{
		{"loki", loki, []string{"--selector", `kcm={container="kube-controller-manager"}`, "--selector", `kubelet={unit="kubelet.service"}`}},
		{"elasticsearch", es, []string{"--selector", `kcm=kubernetes.container_name:"kube-controller-manager"`, "--selector", `kubelet=systemd.unit:"kubelet.service"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, stderr := analyzeLive(t, exitOK, append(append([]string{tc.url}, tc.selectors...), window...)...)
			if len(got.inputs) != 2 || got.inputs[0]["wrapper"] != tc.name || got.inputs[0]["fetch"].(map[string]any)["requests"].(float64) < 2 {
				t.Fatalf("inputs %v\n%s", got.inputs, stderr)
			}
			compareLists(t, "findings vs the files", normalised(t, onSeedVolumes(got.findings), inputRoles(got)), wantFindings)
			compareLists(t, "incidents vs the files", normalised(t, onSeedVolumes(got.incidents), nil), wantIncidents)
		})
	}

	t.Run("auth-failure", func(t *testing.T) {
		denied := "loki+" + lokiFake(t, recs, "right-token").URL
		code, stdout, stderr := runWithStdin(t, []string{"analyze", "--format", "json", denied, filepath.Join(seed, "kcm.log"),
			"--selector", `kcm={container="kube-controller-manager"}`, "--bearer-token", "wrong-token", "--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z"}, nil)
		if code != exitInput {
			t.Errorf("exit %d, want %d\n%s", code, exitInput, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], denied) || !strings.Contains(lines[0], "401") {
			t.Errorf("stderr: want one line naming %s and the 401:\n%s", denied, stderr)
		}
		if strings.Contains(stderr+stdout, "wrong-token") {
			t.Error("the bearer token was printed")
		}
		if !strings.Contains(stdout, `"findings"`) || !strings.Contains(stdout, "kcm.log") {
			t.Errorf("the file given with the failing source was not analysed:\n%.300s", stdout)
		}
	})

	t.Run("truncated", func(t *testing.T) {
		partial := "es+" + esFake(t, recs, 2).URL + "/logs-*"
		code, stdout, stderr := runWithStdin(t, append([]string{"analyze", "--format", "json", partial,
			"--selector", `kcm=kubernetes.container_name:"kube-controller-manager"`}, window...), nil)
		if code != exitInput {
			t.Errorf("exit %d, want %d\n%s", code, exitInput, stderr)
		}
		if !strings.Contains(stderr, partial+" kcm=") || !strings.Contains(stderr, "fetch truncated: stopped by an error") {
			t.Errorf("stderr does not say the fetch of %s was truncated:\n%s", partial, stderr)
		}
		var doc struct {
			Inputs []struct {
				Truncated bool `json:"truncated"`
				Fetch     struct {
					Truncated string `json:"truncated"`
					Records   int    `json:"records"`
				} `json:"fetch"`
			} `json:"inputs"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Inputs) != 1 {
			t.Fatalf("%v: %.300s", err, stdout)
		}
		if in := doc.Inputs[0]; !in.Truncated || in.Fetch.Truncated == "" || in.Fetch.Records != 50 {
			t.Errorf("input %+v: want truncated, with the reason and the first page's 50 records", in)
		}
	})
}
