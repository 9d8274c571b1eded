// Package parser turns Kubernetes component logs and event tables into typed
// volume events ([Event]): the envelope side reads inputs, removes wrappers,
// assembles entries and resolves time; the message side (package
// parser/classifier) decides what an entry says. It knows nothing about
// rules, timelines or styling.
//
// # Layout
//
// Orchestration and results: parse.go (ParseAll, ParseReader, Options,
// inputState, the per-input Result), event.go (Input, Result, Problem),
// vocabulary.go (Event, Kind and the constants, re-exported from
// classifier). Source stage: source.go (paths, directories, read blocks,
// decompression by magic number; zstdwindow.go and xzdict.go lower the
// windows compressed data declares to what it can use, through
// rewrite.go), source_envelope.go (the seam for document
// and JSON-lines envelopes). Line path: scanner.go (run, physical lines, skip
// rules, payload dispatch), entry.go (open, continue, close an entry),
// emit.go (entry → event), record.go (the seam type to the classifier).
// Wrappers: wrapper.go (the registry: what each wrapper claims, unwrap,
// sniffing) and one wrap_*.go per wrapper (journald, rfc3339 for CRI and
// kubectl --timestamps, docker, ui, podprefix, k9s, grep). Payload formats: payload_klog.go,
// payload_json.go, payload_describe.go, payload_logrus.go. Fast path:
// prefilter.go (the token search over whole blocks, with internal/teddy),
// fastpath_block.go (analyzeBlock), fastpath_plain.go (what makes a line
// plain), fastpath_runs.go (the scanner's side of runs), ahead.go
// (decode-ahead), bareklog_*.{go,s} (the AVX2 klog header kernel),
// plumbing.go (informer plumbing found cheaply). Time: clock.go (tracking,
// resolution, inheritance, anchoring) and timefix.go (evidence and votes).
// Events: store.go (pages, reserve; a Draft made an Event, its tuples of
// names interned, and texts stored as each event is kept), the texts,
// names and tuples themselves in package parser/textstore.
//
// Where a change goes: a new line wrapper is one wrap_<name>.go plus its
// kind and registry entry in wrapper.go (see the registry's comment); a
// document or JSON-lines envelope is one envelope_<name>.go that calls
// registerEnvelope (see source_envelope.go); a new payload format is one
// payload_<name>.go plus its recognition in scanner.go's payload and an
// entryKind in entry.go; a new token, message or event kind is the
// classifier's (its tokens.go is the one list of what is volume-related).
//
// # Inputs
//
// [ParseAll] takes paths: a file (plain, gzip, zstd or xz, detected by magic
// number, not by name), a directory (walked in lexical order; hidden entries
// skipped; *.log, *.log.N, *.gz, *.txt, *.out, must-gather current.log /
// previous.log, sosreport journal dumps; manifests are left out; a directory
// without any is an error), or "-" for stdin. [ParseReader] parses one
// stream; ParseAll parses its inputs concurrently (up to GOMAXPROCS at a
// time) and returns them in command-line order. Input is cut into 512 KiB
// blocks of whole lines, read with read(2) into a few reused 512 KiB
// buffers. The blocks of a regular uncompressed file keep their file
// offsets, so that an event's text that is a run of the file's bytes is
// kept as that offset and read back when a report needs it. With
// KCMTRACE_MMAP=1 on Linux such a file is mapped in 4 MiB windows with
// MAP_POPULATE instead, and its blocks are read in place. That saves the
// copy, but it costs more wherever touching a mapped page is dear: on the
// virtual machines this project is measured on, a GiB took 1.1 CPU-s
// mapped and 0.6 read (source_mmap.go: useMap). A file is read to where its
// end is when the reader gets there (a growing file on); a regular file
// that ends short of the size it had when opened was cut while read
// (copytruncate) and ends with a problem, also when the cut takes mapped
// pages away under the parser (the SIGBUS is recovered, never a crash).
// Each block is searched for the prefilter tokens, NUL bytes and no-break
// spaces in one pass (an AVX2 Teddy multi-literal search on amd64, a
// hashed 4-byte-gram scan elsewhere). A line longer than
// [Options].MaxLineBytes (default 16 MiB) is consumed but skipped and
// noted, so memory stays bounded. A trailing "\r" is removed (CRLF).
//
// # Wrappers
//
// Each physical line may carry, outermost first:
//
//   - a stray leading backtick from inline-code markup: "`I1222 …";
//   - a grep -r file-name prefix: "logs/ns/pod/csi-attacher.log:" and
//     "file.log:123:" (a path with "/" or a log-like extension, followed by
//     something that starts like a log line);
//   - one wrapper, from this list (Input.Wrapper names):
//
// journald: "Mon DD hh:mm:ss host proc[pid]: " (journalctl's default, also
// in journalctl -r reverse order), short-precise "Aug 12 03:14:11.301223 "
// (the kubelet's Node Log Query and oc adm node-logs), short-full and
// with-unit "Mon 2024-08-12 03:14:11 UTC host kubelet.service[pid]: ",
// short-unix "1723432451.301223 ", the short-iso form
// "2024-08-12T03:14:11+0000 host proc[pid]: ", month names of common
// locales ("Okt", "août", "дек", CJK "8月"), and any of these but short-iso
// after a node name ("worker-1 Aug 12 …", oc adm node-logs on several
// nodes). short-full gives year and zone (a zone abbreviation that names
// one offset, or a numeric one; otherwise the year only), short-unix the
// instant. The process names kubelet, kubenswrapper, origin-node,
// kube-controller-manager, k3s and hyperkube (a unit's ".service" dropped)
// set the input's component when it has no events.
//
// cri: "2024-08-12T03:14:11.301223Z stderr F "; a "P" (partial) record is
// joined with the records up to the next "F".
//
// docker-json: {"log":"…\n","stream":"stderr","time":"…"}; a record without
// a trailing "\n" is joined with the next one; a line that starts like a
// record but cannot be decoded is skipped as malformed; a stray fragment
// such as `…Z"}` is kept as text.
//
// kubectl-timestamps: "2025-07-23T03:20:43.248292357-04:00 " (RFC 3339 with
// Z or an offset). Two envelopes' text lines start alike and are no
// wrapper's, so that the envelope detection reads them: aws logs tail
// ("2024-08-12T03:10:00.612000+00:00 stream msg": Python's isoformat,
// which Go never writes) and logcli ("2024-08-12T03:10:00Z {labels} msg").
//
// pod-prefix: kubetail's "[pod-name] ", kubectl logs --prefix's
// "[pod/name/container] " and stern's "pod-name container-name " before a
// klog or JSON log line (or before any line after the same prefix, a
// continuation); the container (or pod) name counts as the process name.
//
// k9s: "│ … │", a row of a terminal UI's box (k9s describe and log views);
// the box's edges ("┌── Describe(…) ──┐", "└──┘") are markup.
//
// ui-timestamp: "7/29/2016 7:38:17 PM" glued to the payload
// ("…PME0729 17:38:17…", Rancher's log viewer).
//
// Detection works line by line: the wrapper of the previous line is tried
// first, then the others, so a paste that mixes journald lines and raw klog
// lines works; every line votes and the majority names Input.Wrapper
// ("grep-prefix+…" when most lines had the prefix). [Options].Format forces
// one wrapper; lines that do not fit it are read as bare payload.
//
// Lines that are not log content are skipped and counted by reason
// (Input.Skipped): "#" annotations (comment), shell prompts such as
// "[root@host ~]# journalctl -r …" (prompt), ``` fences and journalctl
// "-- Logs begin at … --" markers and box edges (markup), empty lines (blank), lines with
// NUL bytes (binary), over-long lines (too-long), broken docker records
// (malformed). No-break spaces (U+00A0, from web pastes) count as blanks.
//
// # Log exports (envelopes)
//
// Cloud log exports and log-store dumps (package parser/envelope: gcp,
// cloudwatch, azure, loki, elasticsearch, victorialogs, journald-json,
// journald-export) are plugged in by source_envelopes.go through the seam
// of source_envelope.go. Before the line path, the decompressed input's
// first 64 KiB is scored (envelope.Scores); an envelope at or above
// envelope.MinScore reads the whole input, and [Options].Format set to an
// envelope name forces it (a forced line format skips the sniff). Each
// record's text goes through the payload parsers as one logical line; a
// GKE control-plane record, whose header the export split into severity
// and sourceLocation, gets a klog header rebuilt from them and its time
// (UTC, thread id 0). The record's time is year and zone evidence for a
// header clock (FromEnvelope, ranked before the retry deadline), and dates
// a record without one; a time of unknown zone gives the year only. The
// record's labels give the input's component (componentOf, the table the
// journald process names use) and the node of kubelet events before the
// content does. Input.Wrapper names the envelope; Input.Records, NoTime
// and Duplicates count its records; its problems keep their lines. A
// record counts as the physical line it starts on; framing lines and the
// further lines of multi-line records are skipped as SkipEnvelope, so the
// line identity holds. Past the first entries (which vote on year and
// zone), a record whose message holds no prefilter token (found in the
// raw JSON bytes by the envelope) and starts with a valid klog header is
// skimmed: not decoded, only counted as an irrelevant klog entry with its
// clock tracked, exactly as its whole text would be. An input with
// volume-looking entries but no event, or in no known format, gets a
// problem saying what it looks like and how to force a format (noSilence).
//
// # klog text
//
// The header is
//
//	Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg
//
// L is I, W, E or F; the date has no year and the time no zone (the
// process's local clock); the fraction may be missing; threadid is the pid,
// right-aligned in 7 columns and wider when needed; file is a basename (or
// dir/file.go with -add_dir_header, reduced to the basename); one blank
// follows "]". Everything after it is handed to the message side unparsed
// (record.Rest): printf text, or a Go-quoted structured message followed by
// key=value pairs. A line without a header attaches to the entry before it
// (raw newlines in printf errors, "key=<" … " >" blocks, mount output);
// continuation lines are joined with "\n", and an entry is relevant when any
// of its lines passes the prefilter. An empty line, a comment or a prompt
// ends an entry. A header whose numbers are out of range (month 13) still
// starts an entry; the event keeps no time and a Problem names the line.
//
// # klog JSON
//
// A line that is a JSON object with "ts" near its start (or a "msg" key) is
// a --logging-format=json entry: "ts" is float milliseconds since the epoch
// (read as an exact decimal), "caller" gives the file basename, "msg" the
// message (whitespace trimmed), every other key is kept in order (duplicates
// too; strings unquoted, other values as raw JSON). There is no level field:
// a line with "v" is Info, one without is an error.
//
// # Event tables
//
// kubectl describe "Events:" sections (both layouts: "From" as
// "kubelet, <node>" up to kubectl 1.19 and a bare component from 1.20;
// columns separated by two or more blanks; rows without indentation or
// header, and several rows collapsed onto one physical line, are accepted),
// the kubectl ≤1.4 TAB-separated "FirstSeen LastSeen Count From
// SubobjectPath Type Reason Message" table ("{kubelet <node>}" sources), and
// kubectl get events tables (columns located by the header). Age columns are
// kubectl HumanDuration text ("28s", "4m12s", "2d3h"); "22m (x35 over 77m)"
// gives Event.Count 35 and Event.Span 55m (first to last occurrence) and
// Event.Age 22m. A header-less line after a row continues its message: with
// leading blanks it was a newline inside the message, without them a
// terminal wrapped the row inside a word and the parts are glued. Rows are
// dated by anchoring their age to the newest time of the other inputs of
// [ParseAll] (or of the input itself); without an anchor Event.Relative is
// set and Time stays zero.
//
// # Time
//
// Wall clocks are kept per event and converted once the input is read.
// Dec→Jan steps in file order add a year (Jan→Dec in reversed pastes remove
// one). The year and the zone are decided, in order, by
//
//   - flag: [Options].Year / [Options].Location;
//   - envelope: a log export's record times compared with the header clock;
//   - retry-deadline: "No retries permitted until 2021-01-13 16:27:21.123
//     +0800 CST m=+…" minus its durationBeforeRetry is the instant of the
//     header; the year and quarter-hour offset that map the header's wall
//     clock onto it win by majority;
//   - wrapper: CRI, docker, kubectl --timestamps and short-iso journald
//     stamps compared with the klog header the same way (the UI timestamp
//     gives a year only);
//   - json-ts: inputs whose entries carry absolute times only;
//   - other-input ([ParseAll] only): an input with no evidence takes the
//     zone and year of an evidenced input with the same journald host, or
//     of all evidenced inputs when they agree on the zone;
//   - mtime: the file's modification time bounds the last entry;
//   - assumed: the current year; UTC.
//
// Input.YearFrom and Input.ZoneFrom say which one decided.
//
// # Prefilter and accounting
//
// Before any decoding, the input is tested for the tokens of
// classifier.PrefilterTokens (classifier/tokens.go); entries with no token are counted as
// irrelevant and never reach the message side. The input is read in blocks
// of whole lines; each block is searched as a whole for tokens, NUL bytes
// and no-break spaces by one of GOMAXPROCS analysis goroutines
// (analyzeBlock; Teddy looks for each token by its rarest 3 bytes), and the
// lines between hits get only a newline search and a check of the klog
// header's fixed positions (or, for a line starting with "{", of the JSON
// log shape; which lines a wrapper may claim the fast path asks the
// wrapper registry, claimedBy); on amd64 an AVX2 kernel (bareKlogKernel) does both for the
// bare klog lines of a run that share the previous line's minute. Informer
// plumbing (reflector.go and the like) is never relevant, so its lines stay
// in runs despite their tokens. Runs of such plain klog lines are counted
// in one step (lines,
// irrelevant entries, wrapper and format votes, first/last clock), and so
// are runs of plain JSON log lines (the same counts, and the earliest and
// latest "ts", which the analysing goroutine reads). Plain klog lines may
// also be wrapped by journald or CRI ("F" records only; plainWrapped): a run
// then has one wrapper and, for journald, one process name, and also
// carries the journald host and process bookkeeping; such runs start only
// after the first 16 entries, whose wrapper clocks are compared with the
// klog clock. Every other line goes through the scanner one by one. The
// same goroutine also decodes ahead the
// relevant entries that lie inside its block (buildSpecs: a klog header line
// and the indented lines after it, or one JSON log line), running the
// message side on them; the scanner, which applies blocks in
// input order, uses such a result only when the entry it assembled has
// exactly the same text, and decodes the entry itself otherwise (entries
// that cross a block boundary, other shapes). So results are exactly those
// of reading line by line (TestBlockPathMatchesLinePath). Every physical
// line lands in exactly one bucket: Lines == EventLines + Irrelevant +
// sum(Skipped) ([Input.Unaccounted] is 0).
//
// Events are kept in fixed pages while an input is read; a regular,
// uncompressed file, whose size is known, moves to one array sized from the density of events
// in its first quarter (reserve). [ParseAll] then lays the events of all
// its inputs out in one array, in input order (Result.Events of each is a
// window of it), appending to the first input's array when it has room.
//
// # Bad input
//
// Nothing panics (a panic in the message side becomes a Problem for that
// entry) and every loop advances on every line. Truncated gzip keeps what
// was read, sets Input.Truncated and notes "truncated gzip"; a last line
// without newline, an empty input, an unknown --input-format value and
// absurd timestamps are Problems with line numbers; invalid UTF-8 in event
// text is replaced by U+FFFD.
package parser
