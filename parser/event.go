package parser

import "time"

// Problem is a one-line complaint about an input, at a line when Line > 0.
type Problem struct {
	Line    int
	Message string
}

// Input describes one input after parsing: what it was and how much of it was understood.
type Input struct {
	Path      string
	Component string // kcm, kubelet, csi, events, mixed, unknown
	Wrapper   string // none, journald, cri, docker-json, kubectl-timestamps, grep-prefix, ui-timestamp, pod-prefix, k9s
	Format    string // klog-text, klog-json, describe, get-events, …
	Bytes     int64
	Lines     int            // physical lines read
	Relevant  int            // entries that passed the prefilter
	Events    int            // events produced (including unknown)
	Unknown   int            // unknown events
	Skipped   map[string]int // lines skipped, by reason (too-long, binary, …)
	First     time.Time
	Last      time.Time
	Year      int
	YearFrom  string // flag, retry-deadline, wrapper, json-ts, mtime, assumed
	Zone      string // "+08:00"
	ZoneFrom  string // flag, retry-deadline, wrapper, json-ts, assumed
	Problems  []Problem
	Truncated bool // input ended early (truncated gzip, read error)
	Folded    int  // repeated failure lines folded into an earlier event's Count (fold.go)
	Dropped   int  // events past Options.MaxEvents, not kept (Truncated is set)

	// Log exports (Wrapper names the envelope, e.g. "gcp"; zero otherwise):
	// the records read, those without a usable time, and the duplicates
	// dropped (same id and time as an earlier record).
	Records    int
	NoTime     int
	Duplicates int

	// EventLines and Irrelevant complete the line accounting:
	// Lines == EventLines + Irrelevant + the sum of Skipped (see Unaccounted).
	EventLines int // physical lines of entries that produced events
	Irrelevant int // physical lines read but not about volumes (incl. table headers)

	// Fetch says how the input was fetched from a log store; nil for
	// files and stdin (Options.Streams, stream_input.go).
	Fetch *Fetch
}

// Result is one parsed input.
type Result struct {
	Input Input
	// Events are the input's events in input order. The Results of one
	// ParseAll call share one array: Events of input i is a window of it
	// whose capacity reaches to the array's end (so appending to it would
	// overwrite the next input's events; copy first), which lets
	// timeline.Build take all the events without copying them.
	Events []Event
}
