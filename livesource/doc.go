// Package livesource fetches kube-controller-manager and kubelet logs
// straight from a log store over HTTP — VictoriaLogs (LogsQL), Grafana Loki
// (LogQL, query API only) and Elasticsearch/OpenSearch (_search) — so that
// the store does the grep and kcmtrace analyses what comes back.
//
// It owns the source URLs (vlogs+http(s)://HOST:PORT, loki+http(s)://HOST:PORT,
// es+http(s)://HOST:PORT/INDEX-PATTERN, opensearch+http(s)://…; url.go), the
// pushdown filter generated from the parser's prefilter token list
// (classifier.PrefilterTokens, the one source of truth; pushdown.go), the
// stream selectors per role and the documented defaults for the common
// collectors (selectors.go), the HTTP layer with timeouts, retries on
// 429/5xx with backoff, credentials and their redaction (client.go), the
// time windows adaptive to density fetched 2–4 at a time and merged in
// order (paging.go), the paging of each store within its limits
// (store_vlogs.go, store_loki.go, store_elastic.go), the second pass that
// joins multi-line entries shipped as one record a line (continuation.go,
// asking parser.Unterminated; each store's re-fetch of a record's stream
// in its store file, Elasticsearch's in splice_elastic.go) and the files
// it writes (fetch.go, save.go):
// one record a physical line, so the parser's line count of a fetched
// file is the records fetched.
//
// It does not parse logs. Fetch writes each role's records in the store's
// own response format (the envelope named by Stream.Envelope:
// "victorialogs" JSON lines, a "loki" query_range streams document, an
// "elasticsearch" _search response) and the parser reads them through that
// envelope like any exported file; the local prefilter is always re-applied
// there, so the pushdown only has to keep every line the prefilter keeps
// (it keeps exactly those on VictoriaLogs and Loki, a superset on
// Elasticsearch, whose analysed text has no case-sensitive substrings).
//
// Credentials come only from Options (flags) or the environment
// (CredentialsFromEnv); they are never printed — every error and note Fetch
// produces is redacted — and never written to the save directory, whose
// manifest.json records the source, selector, query and window only.
package livesource
