package livesource

import (
	"context"
	"sort"
	"sync"
	"time"
)

// The windowed, concurrent fetch of the stores that page by time
// (VictoriaLogs and Loki). The role's window [Since, Until) is cut into
// windows of at most Options.Window (≤ 1 h), adaptive to density, fetched
// Options.Concurrency (2–4) at a time and written in time order:
//
//   - a window is asked for one page first; when that page is full the
//     window is dense: the records before the page's newest timestamp are
//     kept (complete: the store sorts by time), and the rest of the window,
//     from that timestamp on, is split in two new windows — so a dense hour
//     becomes windows small enough for one page each, fetched in parallel;
//   - a window no wider than minWindow, or whose full first page lies all
//     at its first nanosecond, is paged through by the store's own cursor
//     (which never loses or repeats records that share a nanosecond);
//   - new windows are sized from the density of the last one completed:
//     about half a page each, never wider than Options.Window and never
//     more than twice the last width, so sparse stretches widen again.
//
// Windows partition the time, so no record is in two of them, and within
// a window the store's cursor skips what it read at the cursor's
// nanosecond. These stores have no record id: identical lines at one
// nanosecond are distinct records and all are kept (Elasticsearch, paged
// alone, de-duplicates on _index/_id).

// record is one fetched record as the store's file holds it.
type record struct {
	ts     int64  // Unix nanoseconds
	id     string // VictoriaLogs: stream, time and message (continuation.go); "" otherwise
	raw    []byte // the bytes written (VictoriaLogs: a JSON line; Loki: a value array)
	stream string // Loki: the stream's labels as JSON
}

// windowStore is a store paged by time windows.
type windowStore interface {
	// window returns the records in [a, b) in time order. With onePage it
	// sends one request and reports whether its page was full.
	window(ctx context.Context, rf *roleFetch, a, b int64, onePage bool) (recs []record, full bool, err error)
}

// minWindow is the narrowest window split further.
const minWindow = int64(time.Second)

// Progress is what a fetch reports as it goes (Options.Progress).
type Progress struct {
	Role    string
	Records int           // records written so far
	Windows int           // windows completed
	Covered time.Duration // time of the role's window fetched so far
	Span    time.Duration // the role's whole window
}

// span is one window [a, b) in Unix nanoseconds.
type span struct{ a, b int64 }

// pager runs the windows of one role.
type pager struct {
	st    windowStore
	rf    *roleFetch
	write func([]record)

	mu      sync.Mutex
	cond    *sync.Cond
	next    int64  // start of the next window the planner cuts
	until   int64  // end of the role's window
	width   int64  // width of the next window
	queue   []span // split remainders, earliest first
	running int
	err     error // the error of the earliest failed window
	failAt  int64 // start of the earliest failed window; nothing from it on is fetched or written
	stop    bool  // the record limit was reached

	done    map[int64]doneSpan // completed windows not yet written, by start
	written int64              // everything before it is written
	windows int

	sp *splicer // joins continuation lines (continuation.go)
}

type doneSpan struct {
	b    int64
	recs []record
}

// fetchWindows fetches rf's window with st and writes the records in time
// order through write, which must count them in rf.records.
func fetchWindows(ctx context.Context, st windowStore, rf *roleFetch, write func([]record)) error {
	p := &pager{
		st: st, rf: rf, write: write,
		next: rf.opt.Since.UnixNano(), until: rf.opt.Until.UnixNano(), width: int64(rf.opt.Window),
		done: map[int64]doneSpan{}, sp: newSplicer(st, rf), written: rf.opt.Since.UnixNano(),
		failAt: rf.opt.Until.UnixNano() + 1,
	}
	p.cond = sync.NewCond(&p.mu)
	var wg sync.WaitGroup
	for range rf.opt.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				w, ok := p.take()
				if !ok {
					return
				}
				if err := p.run(ctx, w); err != nil {
					p.fail(w, err)
				}
			}
		}()
	}
	wg.Wait()
	p.sp.done()
	return p.err
}

// take hands out the earliest split remainder, or cuts a new window; it
// waits while others run and may still split, and says false when done.
// After a failure it hands out only windows before the failed one, so
// what is written is everything up to the failure.
func (p *pager) take() (span, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.stop {
			return span{}, false
		}
		if len(p.queue) > 0 && p.queue[0].a < p.failAt {
			w := p.queue[0]
			p.queue = p.queue[1:]
			p.running++
			return w, true
		}
		if p.next < p.until && p.next < p.failAt {
			w := span{p.next, min(p.next+p.width, p.until)}
			p.next = w.b
			p.running++
			return w, true
		}
		if p.running == 0 {
			return span{}, false
		}
		p.cond.Wait()
	}
}

// run fetches one window: one page, then split or page through.
func (p *pager) run(ctx context.Context, w span) error {
	if w.b-w.a > minWindow {
		recs, full, err := p.st.window(ctx, p.rf, w.a, w.b, true)
		if err != nil {
			return err
		}
		if !full {
			return p.finish(ctx, w, recs, nil)
		}
		if last := recs[len(recs)-1].ts; last > w.a {
			keep := recs
			for len(keep) > 0 && keep[len(keep)-1].ts == last {
				keep = keep[:len(keep)-1] // refetched with the rest
			}
			rest := []span{{last, w.b}}
			if w.b-last > minWindow {
				mid := last + (w.b-last)/2
				rest = []span{{last, mid}, {mid, w.b}}
			}
			return p.finish(ctx, span{w.a, last}, keep, rest)
		}
	}
	recs, _, err := p.st.window(ctx, p.rf, w.a, w.b, false)
	if err != nil {
		return err
	}
	return p.finish(ctx, w, recs, nil)
}

// finish splices the window's unterminated records and completes it.
func (p *pager) finish(ctx context.Context, w span, recs []record, rest []span) error {
	if err := p.sp.splice(ctx, recs); err != nil {
		return err
	}
	p.complete(w, recs, rest)
	return nil
}

// complete records a finished window (and the windows left to fetch of
// it), writes every window now contiguous with what is written, and sizes
// the next new window from this one's density.
func (p *pager) complete(w span, recs []record, rest []span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	defer p.cond.Broadcast()
	if p.stop || w.a >= p.failAt {
		return
	}
	if len(rest) > 0 {
		p.queue = append(p.queue, rest...)
		sort.Slice(p.queue, func(i, j int) bool { return p.queue[i].a < p.queue[j].a })
	}
	p.done[w.a] = doneSpan{b: w.b, recs: recs}
	p.resize(w.b-w.a, len(recs), len(rest) > 0)
	for {
		d, ok := p.done[p.written]
		if !ok {
			break
		}
		delete(p.done, p.written)
		p.emit(d.recs)
		p.written = d.b
		p.windows++
		if p.rf.opt.Progress != nil {
			p.rf.opt.Progress(Progress{Role: p.rf.role, Records: p.rf.records, Windows: p.windows,
				Covered: time.Duration(p.written - p.rf.opt.Since.UnixNano()), Span: p.rf.opt.Until.Sub(p.rf.opt.Since)})
		}
		if p.stop {
			return
		}
	}
}

// resize sets the width of the next new window: about half a page at the
// density just seen, at most twice the current width, within
// [minWindow, Options.Window].
func (p *pager) resize(width int64, n int, split bool) {
	target := max(int64(p.rf.opt.PageSize/2), 1)
	next := 2 * p.width
	if n > 0 && width > 0 {
		next = min(next, width*target/int64(n))
	}
	if split {
		next = min(next, width)
	}
	p.width = max(min(next, int64(p.rf.opt.Window)), minWindow)
}

// emit writes records, stopping at the record limit.
func (p *pager) emit(recs []record) {
	recs = p.sp.unabsorbed(recs)
	if room := p.rf.opt.MaxRecords - p.rf.records; len(recs) > room {
		recs = recs[:room]
		p.rf.truncate(limitNote(p.rf.opt.MaxRecords))
		p.stop = true
	}
	if len(recs) > 0 {
		p.write(recs)
	}
}

// fail stops the fetch at window w: windows after it are not fetched
// (those in flight are discarded), windows before it still run and are
// written, and the error returned is the earliest window's.
func (p *pager) fail(w span, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running--
	if w.a < p.failAt {
		p.failAt, p.err = w.a, err
	}
	p.cond.Broadcast()
}
