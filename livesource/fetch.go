package livesource

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Stream is what was fetched for one role of one source: a file in the
// store's native response format, to be parsed through Envelope.
type Stream struct {
	Name     string // "SOURCE ROLE=SELECTOR": the input's path in reports
	Source   string // the source URL (never with credentials)
	Role     string // "kcm", "kubelet" or the role given to --selector
	Envelope string // parser envelope of the file: victorialogs, loki, elasticsearch
	Path     string // the file under Options.Dir

	Selector        string // the stream selector used
	DefaultSelector bool   // chosen from DefaultSelectors, not given
	Query           string // the query sent, paging aside (pushdown included)
	Pushdown        string // PushdownAuto or PushdownOff as asked
	Fallback        string // why the store's fallback query was used; "" when not

	Since, Until time.Time // the window [Since, Until)
	Records      int       // records fetched (after de-duplication)
	Requests     int       // HTTP requests sent, retries included
	Truncated    string    // why not every matching record was fetched; "" when complete
	Joined       int       // continuation lines joined to the records they continue (continuation.go)
}

// Open opens the fetched file.
func (s Stream) Open() (io.ReadCloser, error) { return os.Open(s.Path) }

// store is one kind of log store's query language and paging.
type store interface {
	// query is the query text for a selector with or without the pushdown.
	query(sel string, pushdown bool, fallback bool) string
	// probe reports whether sel matches any record in the window.
	probe(ctx context.Context, rf *roleFetch) (bool, error)
	// fetch writes every record of the role in the window to rf.w and
	// sets rf.records, rf.fallback and rf.truncated.
	fetch(ctx context.Context, rf *roleFetch) error
}

// roleFetch is the state of one role's fetch. Its windows may run
// concurrently (paging.go): fallback and truncated are set under mu;
// records and w are used by one writer at a time.
type roleFetch struct {
	c        *client
	opt      Options
	role     string
	sel      string
	pushdown bool
	w        *bufio.Writer
	records  int
	joined   int // continuation lines joined to unterminated records

	mu        sync.Mutex
	fallback  string // set by the store when it fell back to a weaker query
	truncated string
}

// full reports whether the record bound is reached (and notes it).
func (rf *roleFetch) full() bool {
	if rf.records >= rf.opt.MaxRecords {
		rf.truncate(limitNote(rf.opt.MaxRecords))
		return true
	}
	return false
}

func limitNote(n int) string { return fmt.Sprintf("stopped at %d records (the record limit)", n) }

// truncate records the first reason for an incomplete fetch.
func (rf *roleFetch) truncate(why string) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.truncated == "" {
		rf.truncated = why
	}
}

// fellBack reports the fallback in use, "" when none.
func (rf *roleFetch) fellBack() string {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	return rf.fallback
}

// fallBack sets the fallback once and reports whether this call set it.
func (rf *roleFetch) fallBack(why string) bool {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.fallback != "" {
		return false
	}
	rf.fallback = why
	return true
}

// Fetch fetches, for each role, the records of src in the window that the
// role's selector and the pushdown filter select, and writes them under
// opt.Dir/SLUG/ROLE.ENVELOPE.log with a manifest.json (no credentials).
// It returns the streams fetched, complete or not (Stream.Truncated), and
// one error per role that failed, each a line naming the source; a role
// whose fetch stopped part way is in both.
func Fetch(ctx context.Context, src Source, opt Options) ([]Stream, error) {
	opt, err := opt.normalize()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, err)
	}
	c, err := newClient(src, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", src, err)
	}
	st := newStore(src, opt)
	dir := filepath.Join(opt.Dir, src.slug())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %v", src, err)
	}
	roles, cands, defaults := roleSelectors(src.Store, opt.Selectors)
	var streams []Stream
	var errs []error
	for _, role := range roles {
		s, err := fetchRole(ctx, c, st, src, opt, dir, role, cands[role], defaults)
		if s != nil {
			streams = append(streams, *s)
		}
		if err != nil {
			errs = append(errs, errors.New(c.redact(oneLine(fmt.Sprintf("%s: %s: %v", src, role, err)))))
		}
	}
	if err := writeManifest(dir, src, opt, streams, errs); err != nil {
		errs = append(errs, fmt.Errorf("%s: %v", src, err))
	}
	return streams, errors.Join(errs...)
}

// newStore picks the store implementation.
func newStore(src Source, opt Options) store {
	switch src.Store {
	case VictoriaLogs:
		return &vlogsStore{opt: opt}
	case Loki:
		return &lokiStore{opt: opt}
	default:
		return &elasticStore{src: src, opt: opt}
	}
}

// fetchRole chooses the selector (probing defaults) and fetches one role.
func fetchRole(ctx context.Context, c *client, st store, src Source, opt Options, dir, role string, cands []string, defaults bool) (*Stream, error) {
	c.requests.Store(0)
	rf := &roleFetch{c: c, opt: opt, role: role, pushdown: opt.Pushdown != PushdownOff}
	if defaults {
		found := false
		for _, sel := range cands {
			rf.sel = sel
			ok, err := st.probe(ctx, rf)
			if err != nil {
				return nil, fmt.Errorf("probing selector %s: %v", sel, err)
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no default selector matched any record between %s and %s (tried %s); give --selector %s=…",
				opt.Since.Format(time.RFC3339), opt.Until.Format(time.RFC3339), strings.Join(cands, ", "), role)
		}
		c.logf("%s: %s: using default selector %s", src, role, rf.sel)
	} else {
		rf.sel = cands[0]
	}
	name := role + "." + src.Envelope() + ".log"
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	rf.w = bufio.NewWriterSize(f, 1<<20)
	ferr := st.fetch(ctx, rf)
	if err := rf.w.Flush(); err != nil && ferr == nil {
		ferr = err
	}
	if err := f.Close(); err != nil && ferr == nil {
		ferr = err
	}
	if ferr != nil {
		rf.truncate("stopped by an error: " + c.redact(oneLine(ferr.Error())))
	}
	s := &Stream{
		Name: streamName(src.String(), role, rf.sel), Source: src.String(), Role: role,
		Envelope: src.Envelope(), Path: path, Selector: rf.sel, DefaultSelector: defaults,
		Query: st.query(rf.sel, rf.pushdown, rf.fallback != ""), Pushdown: opt.Pushdown, Fallback: rf.fallback,
		Since: opt.Since, Until: opt.Until, Records: rf.records, Requests: int(c.requests.Load()), Truncated: rf.truncated, Joined: rf.joined,
	}
	return s, ferr
}

// streamName is a stream's input name in reports: "SOURCE ROLE=SELECTOR".
func streamName(src, role, sel string) string { return fmt.Sprintf("%s %s=%s", src, role, sel) }
