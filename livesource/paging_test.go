package livesource

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memStore is a windowStore over records in memory that pages like the
// real stores: sorted by time, pages of PageSize from a cursor with an
// offset among the records at the cursor's nanosecond. It counts requests
// and the most requests in flight at once.
type memStore struct {
	recs     []record // sorted by ts
	delay    time.Duration
	requests atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	spans    []span // every request's [a, b)
}

func (m *memStore) page(a, b int64, skip, n int) []record {
	m.requests.Add(1)
	in := m.inFlight.Add(1)
	defer m.inFlight.Add(-1)
	for {
		old := m.maxIn.Load()
		if in <= old || m.maxIn.CompareAndSwap(old, in) {
			break
		}
	}
	m.mu.Lock()
	m.spans = append(m.spans, span{a, b})
	m.mu.Unlock()
	time.Sleep(m.delay)
	i, _ := slices.BinarySearchFunc(m.recs, a, func(r record, t int64) int { return cmpInt(r.ts, t) })
	var out []record
	for ; i < len(m.recs) && m.recs[i].ts < b && len(out) < n; i++ {
		if skip > 0 {
			skip--
			continue
		}
		out = append(out, m.recs[i])
	}
	return out
}

func (m *memStore) window(_ context.Context, rf *roleFetch, a, b int64, onePage bool) ([]record, bool, error) {
	var out []record
	cursor, skip := a, 0
	for {
		pg := m.page(cursor, b, skip, rf.opt.PageSize)
		out = append(out, pg...)
		if len(pg) < rf.opt.PageSize || onePage {
			return out, len(pg) >= rf.opt.PageSize, nil
		}
		last, at := pg[len(pg)-1].ts, 0
		for _, r := range pg {
			if r.ts == last {
				at++
			}
		}
		if last == cursor {
			skip += at
		} else {
			cursor, skip = last, at
		}
	}
}

// memRecords is a day of sparse records (one every few minutes), a dense
// burst (dense records in ten seconds), and 40 records sharing one
// nanosecond; raw is the record's number.
func memRecords(since time.Time, dense int) []record {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []record
	add := func(ts int64) { out = append(out, record{ts: ts, raw: []byte(fmt.Sprint(len(out)))}) }
	for t := since.Add(time.Minute); t.Before(since.Add(24 * time.Hour)); t = t.Add(time.Duration(rng.IntN(600)+1) * time.Second) {
		add(t.UnixNano())
	}
	burst := since.Add(7*time.Hour + 13*time.Minute).UnixNano()
	for range dense {
		add(burst + rng.Int64N(int64(10*time.Second)))
	}
	tie := since.Add(15 * time.Hour).UnixNano()
	for range 40 {
		add(tie)
	}
	slices.SortStableFunc(out, func(a, b record) int { return cmpInt(a.ts, b.ts) })
	return out
}

// runPager fetches the memStore's day with the pager and returns what was
// written, in order, and the progress reports.
func runPager(t *testing.T, m *memStore, opt Options) ([]string, []Progress) {
	t.Helper()
	opt.Dir = t.TempDir()
	opt, err := opt.normalize()
	if err != nil {
		t.Fatal(err)
	}
	var progress []Progress
	opt.Progress = func(p Progress) { progress = append(progress, p) }
	rf := &roleFetch{opt: opt, role: "kcm", w: bufio.NewWriter(nil)}
	var got []string
	err = fetchWindows(context.Background(), m, rf, func(recs []record) {
		for _, r := range recs {
			got = append(got, string(r.raw))
		}
		rf.records += len(recs)
	})
	if err != nil {
		t.Fatal(err)
	}
	if rf.records != len(got) {
		t.Errorf("records %d, written %d", rf.records, len(got))
	}
	return got, progress
}

func rawOf(recs []record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.raw)
	}
	return out
}

// TestPagerConcurrentWindowsExact: over a sparse day with a dense burst
// and 40 records in one nanosecond, for several page sizes and 1 to 4
// windows at a time, every record is written exactly once in time order;
// the dense hour is split (requests for spans far under an hour), several
// windows are in flight at once, the sparse hours are fetched in hour
// windows again after the burst (when half a page holds an hour), and the request count stays within a
// small multiple of the pages the records need.
func TestPagerConcurrentWindowsExact(t *testing.T) {
	since := time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	recs := memRecords(since, 3000)
	want := rawOf(recs)
	for _, page := range []int{7, 50, 5000} {
		for _, conc := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("page%d-conc%d", page, conc), func(t *testing.T) {
				m := &memStore{recs: recs, delay: 200 * time.Microsecond}
				got, progress := runPager(t, m, Options{Since: since, Until: since.Add(24 * time.Hour), PageSize: page, Concurrency: conc})
				diffLines(t, "pager", got, want)
				pages := int64(len(recs)/page + 1)
				if n := m.requests.Load(); n > 4*pages+48 {
					t.Errorf("%d requests for %d records in pages of %d (at most %d)", n, len(recs), page, 4*pages+48)
				}
				if conc > 1 && m.maxIn.Load() < 2 {
					t.Errorf("at most %d request in flight with %d windows at a time", m.maxIn.Load(), conc)
				}
				if m.maxIn.Load() > int64(conc) {
					t.Errorf("%d requests in flight, more than %d", m.maxIn.Load(), conc)
				}
				narrow, late := 0, 0
				for _, s := range m.spans {
					if s.b-s.a > int64(time.Hour) {
						t.Fatalf("a request for %s, more than an hour", time.Duration(s.b-s.a))
					}
					if s.b-s.a < int64(time.Minute) {
						narrow++
					}
					if s.a >= since.Add(20*time.Hour).UnixNano() && s.b-s.a == int64(time.Hour) {
						late++
					}
				}
				if page < 3000 && narrow == 0 {
					t.Error("the dense burst was never split under a minute")
				}
				if page >= 50 && late == 0 { // pages of 7 hold under an hour of the sparse stretch
					t.Error("windows did not widen back to an hour after the burst")
				}
				last := progress[len(progress)-1]
				if last.Records != len(want) || last.Covered != 24*time.Hour || last.Span != 24*time.Hour || last.Windows != len(progress) || last.Role != "kcm" {
					t.Errorf("last progress %+v", last)
				}
				t.Logf("%d requests, %d windows, %d in flight at most", m.requests.Load(), last.Windows, m.maxIn.Load())
			})
		}
	}
}

// TestPagerRecordLimit: the record limit stops the fetch at exactly that
// many records, the earliest ones, and says so.
func TestPagerRecordLimit(t *testing.T) {
	since := time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	recs := memRecords(since, 500)
	m := &memStore{recs: recs}
	opt, _ := Options{Dir: t.TempDir(), Since: since, Until: since.Add(24 * time.Hour), PageSize: 20, MaxRecords: 333}.normalize()
	rf := &roleFetch{opt: opt}
	var got []string
	if err := fetchWindows(context.Background(), m, rf, func(rs []record) {
		got = append(got, rawOf(rs)...)
		rf.records += len(rs)
	}); err != nil {
		t.Fatal(err)
	}
	diffLines(t, "limit", got, rawOf(recs[:333]))
	if rf.truncated != "stopped at 333 records (the record limit)" {
		t.Errorf("truncated %q", rf.truncated)
	}
}

// TestPagerError: a failing window stops the fetch; everything before the
// failed window is written, in time order, even when a window before it
// is still in flight when the failure comes (the first window is slow
// here, so the failure always comes first), and the error is returned.
func TestPagerError(t *testing.T) {
	since := time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)
	recs := memRecords(since, 0)
	opt, _ := Options{Dir: t.TempDir(), Since: since, Until: since.Add(24 * time.Hour), PageSize: 20}.normalize()
	rf := &roleFetch{opt: opt}
	fail := since.Add(9 * time.Hour).UnixNano()
	st := &failingStore{memStore: &memStore{recs: recs}, at: fail, slow: since.UnixNano()}
	st.failedAt.Store(math.MaxInt64)
	var got []string
	err := fetchWindows(context.Background(), st, rf, func(rs []record) {
		got = append(got, rawOf(rs)...)
		rf.records += len(rs)
	})
	if err == nil || err.Error() != "boom" {
		t.Fatalf("error %v", err)
	}
	var before []record
	for _, r := range recs {
		if r.ts < st.failedAt.Load() {
			before = append(before, r)
		}
	}
	if len(before) == 0 || len(before) == len(recs) {
		t.Fatalf("the failed window starts at %d: %d of %d records before it", st.failedAt.Load(), len(before), len(recs))
	}
	diffLines(t, "written before the failure", got, rawOf(before))
}

// failingStore fails every window holding at, and delays the window
// starting at slow.
type failingStore struct {
	*memStore
	at, slow int64
	failedAt atomic.Int64 // the earliest start of a failed window
}

func (f *failingStore) window(ctx context.Context, rf *roleFetch, a, b int64, onePage bool) ([]record, bool, error) {
	if a <= f.at && f.at < b {
		for {
			old := f.failedAt.Load()
			if a >= old || f.failedAt.CompareAndSwap(old, a) {
				break
			}
		}
		return nil, false, fmt.Errorf("boom")
	}
	if a == f.slow {
		time.Sleep(100 * time.Millisecond)
	}
	return f.memStore.window(ctx, rf, a, b, onePage)
}
