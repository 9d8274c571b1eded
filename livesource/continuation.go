package livesource

import (
	"context"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
)

// The second pass that gives back the continuation lines a line filter
// drops. A collector that ships each physical line as its own record
// splits a multi-line klog entry (a structured "key=<" block) into
// records; the pushdown keeps the header record, which names the volume,
// but not the block's lines. So each record written is asked
// parser.Unterminated; for one that is, the records of its stream in the
// next continuationWindow are fetched without the line filter
// (spliceStore.following), the ones parser.BlockLine accepts — up to the
// block's " >" or the next klog header — are joined to the record's text
// with "\n", and they are not written again on their own if the filter
// kept some of them. The parser then reads the whole entry from one
// record. Continuation lines must be stamped after their header (the
// collectors stamp each line as read, so they are).

// continuationWindow is how long after an unterminated record its block's
// lines are looked for.
const continuationWindow = 2 * time.Second

// continuationMax bounds the lines joined to one record.
const continuationMax = 1000

// spliceStore is a windowStore whose records can be joined.
type spliceStore interface {
	windowStore
	// following returns the records of r's stream in
	// [r.ts, r.ts+continuationWindow) without the line filter, in order.
	following(ctx context.Context, rf *roleFetch, r record) ([]record, error)
	// text is a record's message.
	text(r record) []byte
	// withText is r with its message replaced.
	withText(r record, text []byte) record
}

// splice joins the continuation lines of the unterminated records among
// recs (in place) and notes the records absorbed so emit skips them.
func (p *pager) splice(ctx context.Context, recs []record) error {
	ss, ok := p.st.(spliceStore)
	if !ok {
		return nil
	}
	for i, r := range recs {
		msg := ss.text(r)
		if !parser.Unterminated(msg) {
			continue
		}
		next, err := ss.following(ctx, p.rf, r)
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
			text := ss.text(n)
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
		recs[i] = ss.withText(r, joined)
		p.mu.Lock()
		for _, id := range absorbed {
			p.absorbed[id] = true
		}
		p.joined += len(absorbed)
		p.mu.Unlock()
	}
	return nil
}

// unabsorbed drops the records a splice joined to an earlier one.
func (p *pager) unabsorbed(recs []record) []record {
	if len(p.absorbed) == 0 {
		return recs
	}
	out := recs[:0:0]
	for _, r := range recs {
		if p.absorbed[r.id] {
			delete(p.absorbed, r.id)
			continue
		}
		out = append(out, r)
	}
	return out
}
