package parser

import (
	"path/filepath"
	"time"
)

// StreamInput is how ParseAll reads one input that was fetched from a log
// store (package livesource) rather than given by the user: through its
// store's envelope, as the role its selector chose, under the stream's
// name. Options.Streams maps the fetched file's path to it.
type StreamInput struct {
	Format string // the export envelope to read it through (victorialogs, loki, elasticsearch)
	Role   string // the component of records whose labels name none (kcm, kubelet, …); "" detects it
	Name   string // the input's path in reports and events ("SOURCE ROLE=SELECTOR"); "" keeps the file's
	Fetch  *Fetch // what was fetched, carried to Input.Fetch for the reports
}

// Fetch describes how a fetched input was obtained from its log store.
type Fetch struct {
	Source        string    // the store URL (never with credentials)
	Selector      string    // the stream selector used
	Query         string    // the query sent, paging aside (pushdown included)
	Pushdown      string    // auto or off, as asked
	Fallback      string    // why the store's fallback query was used; "" when not
	Since, Until  time.Time // the window [Since, Until)
	DefaultWindow bool      // the window is the default (the last 24 hours)
	Records       int       // records fetched
	Requests      int       // HTTP requests sent, retries included
	Joined        int       // continuation lines joined to the records they continue
	Truncated     string    // why not every matching record was fetched; "" when complete
}

// streamInput returns the override of the input at path, if any.
func (opt *Options) streamInput(path string) (StreamInput, bool) {
	if len(opt.Streams) == 0 || path == "-" {
		return StreamInput{}, false
	}
	s, ok := opt.Streams[filepath.Clean(path)]
	return s, ok
}

// forStream is opt as one fetched input is read: its envelope forced.
func (opt Options) forStream(s StreamInput) Options {
	if s.Format != "" {
		opt.Format = s.Format
	}
	return opt
}

// applyStream names the input as its stream and gives it the stream's
// role and fetch description (before it is read: events take the name).
func (st *inputState) applyStream(s StreamInput) {
	if s.Name != "" {
		st.in.Path = s.Name
	}
	st.role = s.Role
	st.in.Fetch = s.Fetch
	if s.Fetch != nil && s.Fetch.Truncated != "" {
		st.in.Truncated = true
		st.problem(0, "fetch truncated: %s", s.Fetch.Truncated)
	}
}
