package parser

import (
	"fmt"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
)

// How an input's year and zone were decided (Input.YearFrom / ZoneFrom).
const (
	FromFlag       = "flag"           // --year / --tz
	FromRetry      = "retry-deadline" // "No retries permitted until <Go time>" minus the backoff
	FromWrapper    = "wrapper"        // CRI / kubectl --timestamps / docker / UI timestamp
	FromJSONTS     = "json-ts"        // --logging-format=json "ts" (epoch ms)
	FromEnvelope   = "envelope"       // the record times of a log export (Input.Wrapper names it)
	FromOtherInput = "other-input"    // inherited from another input sharing the clock
	FromMtime      = "mtime"          // the file's modification time
	FromAssumed    = "assumed"        // current year / UTC
)

// strongFrom reports whether a decision came from evidence inside the input.
func strongFrom(from string) bool {
	switch from {
	case FromFlag, FromEnvelope, FromRetry, FromWrapper, FromJSONTS:
		return true
	}
	return false
}

// evidence is one observation of the writer's clock: the year of the
// input's first entry (rollover offsets removed) and the UTC offset of the
// klog header clock.
type evidence struct {
	from    string
	year    int
	off     time.Duration
	hasOff  bool
	hasYear bool
	n       int // how many readings agree (0 means 1): repeats are counted, not kept
}

// addEvidence records a year/zone reading; one equal to the last is
// counted on it, so that a flood of one retry line keeps one entry.
func (st *inputState) addEvidence(e evidence) {
	if k := len(st.evid); k > 0 {
		if last := &st.evid[k-1]; last.from == e.from && last.year == e.year && last.off == e.off && last.hasOff == e.hasOff && last.hasYear == e.hasYear {
			last.n = max(last.n, 1) + 1
			return
		}
	}
	st.evid = append(st.evid, e)
}

// retryLayout is Go's time.Time.String() without the monotonic part.
const retryLayout = "2006-01-02 15:04:05.999999999 -0700 MST"

// parseRetryUntil parses the Go time text after "No retries permitted until "
// ("2021-01-13 16:27:21.123 +0800 CST m=+…" or with a numeric zone name).
func parseRetryUntil(s string) (time.Time, bool) {
	if i := strings.Index(s, " m="); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if t, err := time.Parse(retryLayout, s); err == nil {
		return t, true
	}
	// zone name missing
	if t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700", s); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// retryFromText finds "No retries permitted until <t> … (durationBeforeRetry <d>)"
// in text.
func retryFromText(text string) (until time.Time, backoff time.Duration, ok bool) {
	const key = "No retries permitted until "
	i := strings.Index(text, key)
	if i < 0 {
		return until, 0, false
	}
	rest := text[i+len(key):]
	end := strings.Index(rest, " (")
	if end < 0 {
		return until, 0, false
	}
	until, ok = parseRetryUntil(rest[:end])
	if !ok {
		return until, 0, false
	}
	if j := strings.Index(rest, "(durationBeforeRetry "); j >= 0 {
		d := rest[j+len("(durationBeforeRetry "):]
		if k := strings.IndexByte(d, ')'); k >= 0 {
			if b, err := time.ParseDuration(d[:k]); err == nil {
				backoff = b
			}
		}
	} else if j := strings.Index(rest, "("); j >= 0 {
		// goroutinemap old form "(2m0s)"
		d := rest[j+1:]
		if k := strings.IndexByte(d, ')'); k >= 0 {
			if b, err := time.ParseDuration(d[:k]); err == nil {
				backoff = b
			}
		}
	}
	return until, backoff, true
}

// matchWall finds the year and UTC offset that make the wall clock w equal
// the instant t (give or take processing delay). ok is false when no whole
// quarter-hour offset within ±14h explains the difference.
func matchWall(w wall, t time.Time) (year int, off time.Duration, ok bool) {
	if !w.valid() {
		return 0, 0, false
	}
	t = t.UTC()
	best := time.Duration(1<<63 - 1)
	for y := t.Year() - 1; y <= t.Year()+1; y++ {
		as := time.Date(y, time.Month(w.mon), w.day, w.hour, w.min, w.sec, w.nsec, time.UTC)
		d := as.Sub(t)
		if abs(d) < abs(best) {
			best, year = d, y
		}
	}
	off = best.Round(15 * time.Minute)
	if abs(off) > 14*time.Hour || abs(best-off) > 2*time.Minute || !plausibleYear(year) {
		return 0, 0, false
	}
	return year, off, true
}

// plausibleYear rejects years no Kubernetes log can carry (year 0, 9999).
func plausibleYear(y int) bool { return y >= minPlausibleYear && y <= maxPlausibleYear }

// The years plausibleYear accepts.
const minPlausibleYear, maxPlausibleYear = 2000, 2200

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// zoneName renders an offset as "+08:00".
func zoneName(off time.Duration) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	m := int(off / time.Minute)
	return fmt.Sprintf("%c%02d:%02d", sign, m/60, m%60)
}

// vote picks the most frequent (year, offset) among evidence of one kind;
// ties go to the observation seen first.
func vote(ev []evidence, from string) (evidence, bool) {
	type key struct {
		y      int
		off    time.Duration
		hasOff bool
	}
	counts := map[key]int{}
	var order []key
	for _, e := range ev {
		if e.from != from {
			continue
		}
		k := key{e.year, e.off, e.hasOff}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k] += max(e.n, 1)
	}
	if len(order) == 0 {
		return evidence{}, false
	}
	bestK := order[0]
	for _, k := range order[1:] {
		if counts[k] > counts[bestK] {
			bestK = k
		}
	}
	return evidence{from: from, year: bestK.y, off: bestK.off, hasOff: bestK.hasOff, hasYear: true}, true
}

// wallTime converts a wall reading in year y to UTC, using loc when set and
// the fixed offset off otherwise. In the repeated hour of a fall-back it is
// the first pass (fileOrder picks the second).
func wallTime(w wall, y int, loc *time.Location, off time.Duration) time.Time {
	if w.sec == 60 {
		// a leap second: the end of 23:59:59, so that it sorts between
		// the second before it and the one after (time.Date would make it
		// the next minute's first)
		w.sec, w.nsec = 59, 999999999
	}
	if loc != nil {
		return time.Date(y, time.Month(w.mon), w.day, w.hour, w.min, w.sec, w.nsec, loc).UTC()
	}
	return time.Date(y, time.Month(w.mon), w.day, w.hour, w.min, w.sec, w.nsec, time.UTC).Add(-off)
}

// wallStamp is StampOf(wallTime(c.wall(), y, nil, off)), the reading of a
// zone of fixed offset, worked out from the civil date instead of through
// time.Date: convert dates every event this way (1 GiB of churn: 105k
// events, ~4.7 → ~1.5 ms of a single-threaded tail). Years a Stamp holds
// without clamping only; ok is false for the others.
func wallStamp(c clockReading, y int, off time.Duration) (s Stamp, ok bool) {
	if y < 1679 || y > 2261 {
		return Stamp{}, false
	}
	sec, nsec := int64(c.sec), int64(c.nsec)
	if sec == 60 { // a leap second: the end of 23:59:59 (wallTime)
		sec, nsec = 59, 999999999
	}
	days := daysFromCivil(y, int(c.mon), int(c.day))
	secs := ((days*24+int64(c.hour))*60+int64(c.min))*60 + sec
	return classifier.StampOfUnixNano(secs*1e9 + nsec - int64(off)), true
}

// daysFromCivil is the number of days from 1970-01-01 to the date y-m-d
// of the proleptic Gregorian calendar (y > 0, m in 1..12; d past the
// month's end runs into the next, as time.Date normalises it).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400                         // 400-year cycles from March of year 0
	yoe := y - era*400                     // [0, 399]
	doy := (153*((m+9)%12)+2)/5 + d - 1    // from March 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy // [0, 146096] for a valid day
	return int64(era)*146097 + int64(doe) - 719468
}

// yearBefore returns the base year that puts the wall reading w (taken yoff
// years after the base) at or before ref (with a day of slack).
func yearBefore(w wall, yoff int, ref time.Time) int {
	base := ref.Year() - yoff
	if wallTime(w, base+yoff, nil, 0).After(ref.Add(24 * time.Hour)) {
		base--
	}
	return base
}

// yearNear returns the base year that puts w closest to ref.
func yearNear(w wall, yoff int, ref time.Time) int {
	best, bestD := ref.Year()-yoff, time.Duration(1<<63-1)
	for b := ref.Year() - yoff - 1; b <= ref.Year()-yoff+1; b++ {
		if d := abs(wallTime(w, b+yoff, nil, 0).Sub(ref)); d < bestD {
			best, bestD = b, d
		}
	}
	return best
}
