package envelope

import (
	"fmt"
	"time"
)

// Record is one log record taken out of an envelope.
type Record struct {
	// Time is the envelope's time for the record, with the zone it was
	// given in (UTC for epoch numbers). It is the zero Time when the record
	// has none; TimeSource says how far it can be trusted.
	Time       time.Time
	TimeSource TimeSource
	// Precision is the resolution of Time as written by the envelope
	// (time.Second for logcli's default output and `aws logs tail --format
	// short`, time.Millisecond for CloudWatch, 1ns for Loki). A klog header
	// inside Msg with finer digits is the better clock for the sub-second
	// part; the envelope stays the source of the date and the zone.
	Precision time.Duration
	// Msg is the message text with one trailing newline removed. It may
	// still carry a klog header ("I0812 03:14:15.619804 1 file.go:370] …"),
	// be a klog JSON line, or be only the klog message when the envelope
	// split the header (GKE control plane: see Level, File, Line). It is
	// always valid UTF-8 (invalid bytes become U+FFFD, with a problem).
	Msg string
	// Level is the record's severity, normalised to klog's letters 'I',
	// 'W', 'E', 'F'; 0 when the envelope gives none.
	Level byte
	// File and Line are the source location when the envelope gives it
	// apart from the message (GKE sourceLocation); "" and 0 otherwise.
	File string
	Line int
	// Labels are what the envelope says about where the record came from.
	Labels Labels
	// ID identifies the record within its source (GCP insertId, CloudWatch
	// eventId, Insights @ptr, Elasticsearch _id, journald __CURSOR). Records
	// whose ID (with their time) was seen before are dropped as duplicates
	// and counted in Stats.Duplicates; "" means no de-duplication.
	ID string
	// Pos is the 1-based input line on which the record starts.
	Pos int
	// Reason, EventType and Count are set for a record that is a
	// Kubernetes Event (event-exporter): its reason ("FailedMount"), type
	// ("Warning", "Normal") and count; Msg is then the event's message.
	Reason    string
	EventType string
	Count     int
	// Skimmed is true when the record was passed on without decoding its
	// message (Options.Skim): the message holds none of the prefilter's
	// tokens, its start was what Options.Skim accepted, and Msg is "".
	// Every other field is as for any record.
	Skimmed bool
}

// Options tune Decode for a caller that only reads some records.
type Options struct {
	// Prefilter, with Skim, lets a record whose message is a JSON string
	// holding none of its tokens skip the decoding of that message.
	Prefilter *Prefilter
	// Skim is asked, for such a record, with the start of its message
	// (the ASCII bytes before its first escape, at most 128; valid only
	// during the call) whether
	// that start is all the caller needs; the record is then yielded with
	// Skimmed set. It is called just before the record is yielded (or
	// dropped as a duplicate), in input order.
	Skim func(head []byte) bool
}

// Labels say where a record came from, as the envelope names it. Values are
// copied as given (for example Component "controller-manager" from GKE,
// "kube-controller-manager" from a CloudWatch stream name or an AKS
// category, "kubelet" from a journald SYSLOG_IDENTIFIER); mapping them onto
// a role is the caller's business.
type Labels struct {
	Component string // the component the source files the record under
	Pod       string
	Namespace string
	Container string
	Node      string // the Kubernetes node name
	Host      string // the host name, when the source gives it apart from Node
	Stream    string // stdout / stderr
	Unit      string // systemd unit
}

// TimeSource says how a Record's Time was known.
type TimeSource string

// The TimeSource values.
const (
	// TimeNone: the record has no usable time (Time is zero).
	TimeNone TimeSource = ""
	// TimeZoned: an absolute instant — a text time with an explicit zone or
	// offset, or an epoch number.
	TimeZoned TimeSource = "zoned"
	// TimeUTCByFormat: the text has no zone, but the format is defined as
	// UTC (CloudWatch Logs Insights @timestamp, `aws logs tail --format
	// short`, journald's short-unix style fractions).
	TimeUTCByFormat TimeSource = "utc-by-format"
	// TimeNoZone: a wall-clock time in a zone the file does not say (Kibana
	// CSV cells, older Grafana TXT downloads, written in the browser's
	// zone). Time holds the wall clock in UTC as a placeholder: its date is
	// good for the year, its instant is not.
	TimeNoZone TimeSource = "no-zone"
)

// Problem is a one-line complaint about the input, at a 1-based line.
type Problem struct {
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	return p.Msg
}

// MaxProblems is how many problems Stats keeps; the rest are only counted
// (Stats.ProblemCount) and summarised by one last problem.
const MaxProblems = 100

// Stats describe one Decode call.
type Stats struct {
	Envelope string // the envelope's name
	Shape    string // which of its forms was read, e.g. "filter-log-events"
	Lines    int    // physical lines read
	Records  int    // records yielded (duplicates not included)
	NoTime   int    // yielded records without a usable time
	// Duplicates is how many records were dropped because their ID and
	// time had been seen before.
	Duplicates int
	// Cut says the document ended inside a record (a JSON export or a
	// journal export cut short): the records before it were read, the
	// rest of the export is missing. A problem says where.
	Cut bool
	// Problems are the first MaxProblems problems, in input order.
	Problems     []Problem
	ProblemCount int // all problems, kept or not
}
