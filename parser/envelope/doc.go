// Package envelope reads the formats cloud log services and log stores
// export logs in — Google Cloud Logging, Amazon CloudWatch Logs, Azure
// Log Analytics, Grafana Loki, Elasticsearch / OpenSearch, VictoriaLogs
// and the systemd journal's JSON and export forms — and yields one
// [Record] per log record. It owns only the envelope: what a record's
// message says, which component wrote it, and how klog headers are parsed
// belong to package parser, which this package does not import.
//
// # The Record contract
//
// Decode calls yield once per record, in input order, which is never
// assumed to be time order (gcloud, Loki and Grafana write newest first,
// CloudWatch interleaves streams): the caller sorts. A Record gives:
//
//   - Msg, the message with one trailing newline removed, always valid
//     UTF-8. It may still carry a klog header, or be a klog JSON line, or
//     be only the klog message when the envelope split the header off
//     (GKE control plane: then Level, File and Line hold the header's
//     parts and Time its clock).
//   - Time with the zone the envelope wrote (UTC for epochs); TimeSource
//     says whether it is an absolute instant (TimeZoned), UTC by the
//     format's definition (TimeUTCByFormat), a wall clock of an unknown
//     zone (TimeNoZone: Kibana CSV, old Grafana TXT) or absent (TimeNone,
//     zero Time); Precision is its resolution (time.Second for logcli's
//     default output, time.Millisecond for CloudWatch).
//   - Labels (component, pod, namespace, container, node, host, stream,
//     unit) as the source names them, ID for de-duplication, and Pos, the
//     1-based line the record starts on.
//
// Records whose ID was seen before (with the same time and component) are
// dropped and counted. Nothing is dropped silently: a record without a
// time is still yielded and counted in Stats.NoTime; a record without a
// message, a line that is not JSON, a document cut off mid-record, text
// between documents, a journald MESSAGE of invalid UTF-8 each add a
// Problem with its line, and decoding goes on after it where the format
// allows (JSON Lines and text line by line; a document resumes at the next
// line starting with "{" or "["; a document cut off ends the input).
//
// # Documents and lines
//
// One engine reads every JSON envelope from a declarative table (a
// fieldMap: the JSON paths that give time, message, level, source
// location, ID and each label, each a list of fallbacks). Where the
// records sit is a docSpec: the top level is an array of records, or an
// object holding them under a member path (events, results, hits.hits,
// tables[].rows named by columns, data.result[].values with the stream's
// labels), or a record itself. A document is streamed with
// encoding/json's Decoder tokens, one record in memory at a time, so a
// 1 GiB export needs no more memory than its largest record; several
// documents appended to one file (paged CLI output) are read one after
// another. JSON Lines (at least two column-0 "{…}" lines among the first
// ones) are decoded line by line. From 64 KiB on, JSON Lines and the
// arrays of record objects are read on every core (parallel.go): batches
// of lines or elements cut in order, their records read by workers, the
// batches replayed in input order, which gives what one goroutine's
// reading gives.
//
// Record objects (the elements of a records array, JSON Lines objects,
// Loki's [ns, line] values — their stream's labels worked out once per
// stream —, Azure's table rows, Logs Insights' field lists) are read from
// their bytes, not through encoding/json: a validating
// skimmer finds each object's end and members, and the fieldMap's paths
// decode only their own values (skim.go, json_fast.go). Where those paths
// are is worked out once per layout of member keys (plan.go: records laid
// out as one seen before — the same keys in the same order, the same
// nested objects under the members a dotted path goes into — use its
// resolution, the fieldMap's alias lists cut to the members present);
// what repeats from record to record is kept (a label string, the last
// label-set string parsed, the last second of an RFC 3339 time), and
// epoch and "…Z" times are read from the bytes. An array goes back
// to encoding/json at its end or before an element the skimmer does not
// take (invalid, cut off, over 1 MiB), restarted on the path that leads
// there, so problems and their lines stay what encoding/json gives. With
// Options (DecodeWith), a record whose message is a JSON string holding
// none of a Prefilter's tokens (found in the raw bytes, escapes allowed
// for) is not decoded at all when Options.Skim accepts its start: it is
// yielded Skimmed, with every field but its message — time, ID and the
// de-duplication, labels, position — as for any record. Text forms (aws logs tail, logcli,
// Grafana TXT, Kibana CSV, journald export) have their own small readers;
// in those a line that does not start a record continues the previous
// record's message, as a multi-line message prints.
//
// # Detection
//
// Detect scores the input's first SampleSize bytes against every shape of
// every envelope and names the best (score 0..100, none below MinScore).
// A JSON shape scores 0 unless the sample starts with "{" or "[" and
// holds its required member names (such as "insertId" or "_msg"), then 60
// plus 10 for each optional member name present; a text shape scores by
// the share of the sample's lines that fit it (90 when all do, 0 below
// half). Names lists the envelopes for --input-format; Decode with a name
// picks that envelope's best shape for the input (its first when none
// scores). Scores lists every envelope's rating, for a "looks like …"
// message when nothing is recognised.
//
// # Adding an envelope
//
// Write one file that defines a *Envelope (name, one-line Doc, shapes):
// for a JSON format a fieldMap and a docSpec, with decode set to the
// docSpec's decodeJSON and a score built with jsonScore; for a text
// format a line splitter used with decodeTimedLines and lineScore. Then
// add it to the envelopes table in registry.go, and a renderer to the
// fixtures table in fixtures_test.go (the seed scenarios are rendered
// into it, and TestEnvelopesMatchPlain checks the records against the
// plain files).
package envelope
