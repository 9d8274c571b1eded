package livesource

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// The second pass that gives back the continuation lines a line filter
// drops. A collector that ships each physical line as its own record
// splits a multi-line klog entry (a structured "key=<" block) into
// records; the pushdown keeps the header record, which names the volume,
// but not the block's lines. So each record fetched is asked
// parser.Unterminated; for one that is, the records of its stream in the
// next continuationWindow are fetched without the line filter
// (spliceStore.following), the ones parser.BlockLine accepts — up to the
// block's " >" or the next klog header — are joined to the record's text
// with "\n", and they are not written again on their own if the filter
// kept some of them. The parser then reads the whole entry from one
// record. Continuation lines must be stamped at or after their header (the
// collectors stamp each line as read, so they are).
//
// A record's stream is the store's own: VictoriaLogs' _stream_id, Loki's
// label set (matched with label filters after the selector, so labels
// that are structured metadata match too), and for Elasticsearch the
// collector's identity fields of the hit (esStreamFields: pod, container,
// host, unit…), matched in the query and compared again on each hit.

// continuationWindow is how long after an unterminated record its block's
// lines are looked for.
const continuationWindow = 2 * time.Second

// continuationMax bounds the lines joined to one record.
const continuationMax = 1000

// spliceStore is a store whose records can be joined.
type spliceStore interface {
	// following returns the records of r's stream in
	// [r.ts, r.ts+continuationWindow) without the line filter, in order,
	// r among them.
	following(ctx context.Context, rf *roleFetch, r record) ([]record, error)
	// text is a record's message.
	text(r record) []byte
	// withText is r with its message replaced.
	withText(r record, text []byte) record
}

// splicer joins continuation lines for one role's fetch. splice and
// unabsorbed may run from concurrent windows; a window's records are
// spliced before any later window is written, so a record absorbed is
// known before it would be written.
type splicer struct {
	st spliceStore // nil: the store cannot join
	rf *roleFetch

	mu       sync.Mutex
	absorbed map[string]bool // records joined to an earlier one, not yet skipped
	joined   int             // continuation lines joined
}

func newSplicer(st any, rf *roleFetch) *splicer {
	ss, _ := st.(spliceStore)
	return &splicer{st: ss, rf: rf, absorbed: map[string]bool{}}
}

// splice joins the continuation lines of the unterminated records among
// recs (in place) and notes the records absorbed so unabsorbed skips them.
func (s *splicer) splice(ctx context.Context, recs []record) error {
	if s.st == nil {
		return nil
	}
	for i, r := range recs {
		if r.id == "" || !mayOpenBlock(r.raw) {
			continue
		}
		msg := s.st.text(r)
		if !parser.Unterminated(msg) {
			continue
		}
		next, err := s.st.following(ctx, s.rf, r)
		if err != nil {
			return err
		}
		joined := append([]byte(nil), msg...)
		var absorbed []string
		started := false
		for _, n := range next {
			if !started {
				started = n.id == r.id
				continue
			}
			text := s.st.text(n)
			part, closes := parser.BlockLine(text)
			if !part || len(absorbed) >= continuationMax {
				break
			}
			joined = append(append(joined, '\n'), text...)
			absorbed = append(absorbed, n.id)
			if closes {
				break
			}
		}
		if len(absorbed) == 0 {
			continue
		}
		recs[i] = s.st.withText(r, joined)
		s.mu.Lock()
		for _, id := range absorbed {
			s.absorbed[id] = true
		}
		s.joined += len(absorbed)
		s.mu.Unlock()
	}
	return nil
}

// mayOpenBlock is a cheap test on a record's bytes before its message is
// decoded: a block opens with "=<", which JSON may write as "=\u003c".
func mayOpenBlock(raw []byte) bool {
	return bytes.Contains(raw, []byte("=<")) || bytes.Contains(raw, []byte(`=\u003c`))
}

// unabsorbed drops the records a splice joined to an earlier one.
func (s *splicer) unabsorbed(recs []record) []record {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.absorbed) == 0 {
		return recs
	}
	out := recs[:0:0]
	for _, r := range recs {
		if s.absorbed[r.id] {
			delete(s.absorbed, r.id)
			continue
		}
		out = append(out, r)
	}
	return out
}

// done notes the lines joined on the role and on stderr.
func (s *splicer) done() {
	if s.joined > 0 {
		s.rf.c.logf("%s: %s: joined %d continuation lines (multi-line entries shipped as separate records)", s.rf.c.src, s.rf.role, s.joined)
	}
	s.rf.joined = s.joined
}
