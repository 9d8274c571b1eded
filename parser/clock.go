package parser

import (
	"time"
)

// This file owns time resolution for an input and across inputs: tracking
// the clock readings, deciding year and zone (with the evidence of
// timefix.go), converting wall clocks, inheriting from other inputs and
// anchoring relative event-table ages.

// trackWall records a clock reading of the input in file order, counting
// Dec→Jan rollovers (and Jan→Dec in reversed pastes). It returns the year
// offset of the reading.
func (sc *scanner) trackWall(w wall) int {
	st := sc.st
	if sc.prevMon == 12 && w.mon == 1 {
		sc.yoff++
	} else if sc.prevMon == 1 && w.mon == 12 {
		sc.yoff--
	}
	sc.prevMon = w.mon
	if !st.haveWall {
		st.haveWall = true
		st.firstW, st.firstYoff = w, sc.yoff
	}
	st.lastW, st.lastYoff = w, sc.yoff
	return sc.yoff
}

func (st *inputState) trackAbs(t time.Time) { widen(&st.minAbs, &st.maxAbs, t) }

// latestAbs is the latest absolute time of the input's events (zero: none).
func (st *inputState) latestAbs() (t time.Time) {
	for i := range st.metas {
		if m := &st.metas[i]; m.hasAbs {
			if a := m.abs().time(); a.After(t) {
				t = a
			}
		}
	}
	return t
}

// widen stretches the span [*lo, *hi] to take in t (a zero t is no time).
func widen(lo, hi *time.Time, t time.Time) {
	if t.IsZero() {
		return
	}
	if lo.IsZero() || t.Before(*lo) {
		*lo = t
	}
	if t.After(*hi) {
		*hi = t
	}
}

// resolveOwn decides year and zone from the flags and the input's own evidence.
func (st *inputState) resolveOwn(opt Options) {
	in := &st.in
	if opt.Location != nil {
		st.loc = opt.Location
		in.Zone, in.ZoneFrom = opt.Location.String(), FromFlag
	}
	if opt.Year != 0 {
		st.year, in.YearFrom = opt.Year, FromFlag
	}
	for _, from := range []string{FromEnvelope, FromRetry, FromWrapper} {
		e, ok := vote(st.evid, from)
		if !ok {
			continue
		}
		if in.YearFrom == "" && e.hasYear {
			st.year, in.YearFrom = e.year, from
		}
		if in.ZoneFrom == "" && e.hasOff {
			st.off, st.hasOff = e.off, true
			in.Zone, in.ZoneFrom = zoneName(e.off), from
		}
	}
	var abs time.Time // the latest absolute time, when the year is still open
	if in.YearFrom == "" {
		abs = st.latestAbs()
	}
	if st.haveWall && !abs.IsZero() {
		// clock readings beside absolute times in one input (the logs of
		// several pods pasted together, stern's or kubectl's: klog headers
		// beside logrus time= and JSON ts) are of the same hours: the year
		// is the one that puts the last reading nearest the latest
		// absolute time, not the file's mtime (real log 044: 2020's
		// attacher lines were read as of the year the file was copied)
		st.year, in.YearFrom = yearNear(st.lastW, st.lastYoff, abs), FromJSONTS
	}
	if !st.haveWall && !abs.IsZero() {
		// only absolute times (JSON ts, CRI without klog): nothing to resolve
		st.year, in.YearFrom = abs.Year(), FromJSONTS
		if st.envelope != "" {
			in.YearFrom = FromEnvelope
		} else if st.formatVotes[fmtJSON] == 0 {
			in.YearFrom = FromWrapper
		}
		if in.ZoneFrom == "" {
			in.Zone, in.ZoneFrom = "+00:00", in.YearFrom
		}
	}
}

// fallback fills what is still undecided: mtime, then the current year; UTC.
func (st *inputState) fallback(opt Options) {
	in := &st.in
	now := opt.now
	if now.IsZero() {
		now = time.Now()
	}
	if in.YearFrom == "" {
		switch {
		case !st.haveWall:
			st.year, in.YearFrom = now.Year(), FromAssumed
		case !st.mtime.IsZero():
			st.year, in.YearFrom = yearBefore(st.lastW, st.lastYoff, st.mtime), FromMtime
		default:
			st.year, in.YearFrom = yearBefore(st.lastW, st.lastYoff, now), FromAssumed
		}
	}
	if in.ZoneFrom == "" {
		in.Zone, in.ZoneFrom = "+00:00", FromAssumed
	}
	in.Year = st.year + st.firstYoff
}

// convert dates every event now that year and zone are known.
//
// A zone of fixed offset (st.loc nil: UTC, a numeric offset), where no
// reading is ambiguous, is read by wallStamp; a named zone's readings go
// through time.Date and the file's order (fileOrder). The span the
// absolute times cover is kept as Stamps and widened once.
func (st *inputState) convert() {
	var ord fileOrder
	var lo, hi Stamp // the earliest and latest absolute times (zero: none)
	for i := range st.events {
		m := &st.metas[i]
		s, fast := Stamp{}, false
		if m.hasWall && st.loc == nil {
			if s, fast = wallStamp(m.w, st.year+int(m.yoff), st.off); fast && m.w.sec == 60 {
				ord.leapSeconds++
			}
		}
		if !fast {
			t := st.timeOf(*m)
			if m.hasWall {
				t = ord.next(m.w.wall(), t, st.loc)
			}
			s = StampOf(t)
		}
		ev := &st.events[i]
		if !s.IsZero() {
			ev.Time = s
		}
		if !ev.Time.IsZero() && !ev.Relative {
			if lo.IsZero() || ev.Time.Before(lo) {
				lo = ev.Time
			}
			if ev.Time.After(hi) {
				hi = ev.Time
			}
		}
	}
	ord.note(st)
	st.setFoldSpans()
	st.noteDropped()
	if st.haveWall {
		st.trackAbs(wallTime(st.firstW, st.year+st.firstYoff, st.loc, st.off))
		st.trackAbs(wallTime(st.lastW, st.year+st.lastYoff, st.loc, st.off))
	}
	if !lo.IsZero() {
		st.trackAbs(lo.UTC())
		st.trackAbs(hi.UTC())
	}
	st.in.First, st.in.Last = st.minAbs, st.maxAbs
}

// fileOrder reads wall clocks that name two instants, or none, by the
// order of the file: the repeated hour of a DST fall-back (time.Date gives
// the first pass; a reading well before the latest one seen is the second
// pass) and a leap second (23:59:60, read as the end of 23:59:59).
type fileOrder struct {
	latest      time.Time
	repeated    int // readings put in the second pass of a repeated hour
	leapSeconds int
	zone        string
}

// orderSlack is how far back a reading may step and still be disorder
// among threads rather than the second pass of a repeated hour.
const orderSlack = 10 * time.Minute

func (o *fileOrder) next(w wall, t time.Time, loc *time.Location) time.Time {
	if t.IsZero() {
		return t
	}
	if w.sec == 60 {
		o.leapSeconds++
	}
	if loc != nil && o.latest.Sub(t) > orderSlack {
		if later, ok := secondPass(t, loc); ok {
			t = later
			o.repeated++
			o.zone = loc.String()
		}
	}
	if t.After(o.latest) {
		o.latest = t
	}
	return t
}

// secondPass returns the later instant with t's wall clock in loc, when a
// fall-back repeats it.
func secondPass(t time.Time, loc *time.Location) (time.Time, bool) {
	local := t.In(loc)
	_, off := local.Zone()
	for _, d := range []time.Duration{time.Hour, 30 * time.Minute, 2 * time.Hour} {
		l := t.Add(d).In(loc)
		if _, off2 := l.Zone(); off2 < off && l.Hour() == local.Hour() && l.Minute() == local.Minute() && l.Second() == local.Second() {
			return t.Add(d), true
		}
	}
	return time.Time{}, false
}

// note says, in the input's problems, what file order decided.
func (o *fileOrder) note(st *inputState) {
	if o.repeated > 0 {
		st.problem(0, "%d lines fall in the repeated hour of a DST fall-back (%s): read as its second pass from their order in the file", o.repeated, o.zone)
	}
	if o.leapSeconds > 0 {
		st.problem(0, "%d lines in a leap second (23:59:60): read as the end of 23:59:59, in file order", o.leapSeconds)
	}
}

// timeOf is the time of an event's clock reading (zero when it has none).
func (st *inputState) timeOf(m evMeta) time.Time {
	switch {
	case m.hasWall:
		return wallTime(m.w.wall(), st.year+int(m.yoff), st.loc, st.off)
	case m.hasAbs:
		return m.abs().time()
	}
	return time.Time{}
}

// inherit gives an input without its own zone or year evidence those of
// another input on its clock: the first donor on the same journald host, or
// the donor all donors agree on. The donors are gathered once per field, so
// that the whole pass is linear in the number of inputs (a must-gather holds
// tens of thousands). An input is never its own donor: a donor has the very
// evidence the input lacks, and a value inherited here does not make a donor.
func inherit(states []*inputState) {
	zone := gatherDonors(states, func(c *inputState) bool {
		return c.in.ZoneFrom == FromEnvelope || c.in.ZoneFrom == FromRetry || c.in.ZoneFrom == FromWrapper
	}, func(a, b *inputState) bool { return a.off == b.off })
	year := gatherDonors(states, func(c *inputState) bool { return strongFrom(c.in.YearFrom) && c.in.YearFrom != FromFlag },
		func(a, b *inputState) bool { return a.year+a.lastYoff == b.year+b.lastYoff })
	for _, st := range states {
		if !st.haveWall {
			continue
		}
		if st.in.ZoneFrom == "" {
			if d := zone.pick(st); d != nil {
				st.off, st.hasOff = d.off, true
				st.in.Zone, st.in.ZoneFrom = d.in.Zone, FromOtherInput
			}
		}
		if st.in.YearFrom == "" {
			if d := year.pick(st); d != nil {
				// the donor's newest reading, expressed in the donor's clock
				dl := wallTime(d.lastW, d.year+d.lastYoff, nil, 0)
				st.year, st.in.YearFrom = yearNear(st.lastW, st.lastYoff, dl), FromOtherInput
			}
		}
	}
}

// donors are the inputs that can lend one field of their clock to others.
type donors struct {
	first  *inputState            // the first donor, nil when there is none
	byHost map[string]*inputState // the first donor of each journald host
	agree  bool                   // every donor has first's value
}

func gatherDonors(states []*inputState, ok func(*inputState) bool, same func(a, b *inputState) bool) donors {
	d := donors{byHost: map[string]*inputState{}, agree: true}
	for _, c := range states {
		if !c.haveWall || !ok(c) {
			continue
		}
		if d.first == nil {
			d.first = c
		} else if d.agree && !same(c, d.first) {
			d.agree = false
		}
		if _, seen := d.byHost[c.host]; c.host != "" && !seen {
			d.byHost[c.host] = c
		}
	}
	return d
}

// pick is the donor for st: the first on st's host, else the one all agree on.
func (d donors) pick(st *inputState) *inputState {
	if d.first == nil {
		return nil
	}
	if c := d.byHost[st.host]; st.host != "" && c != nil {
		return c
	}
	if !d.agree {
		return nil
	}
	return d.first
}

// anchorAll dates relative describe/get-events rows: the anchor is the newest
// time known from the other inputs (for a lone input, or when the others
// know no time, from its own dated entries); without one the rows stay
// Relative with a zero Time.
func anchorAll(states []*inputState) {
	newest := make([]time.Time, len(states))
	for i, st := range states {
		var last Stamp // (compared as Stamps: a time.Time of each was ~1.4 ms of 1 GiB)
		for k := range st.events {
			if !st.metas[k].hasAge && st.events[k].Time.After(last) {
				last = st.events[k].Time
			}
		}
		newest[i] = last.UTC()
		if st.haveWall || st.formatVotes[fmtJSON] > 0 {
			if st.maxAbs.After(newest[i]) {
				newest[i] = st.maxAbs
			}
		}
	}
	// the two largest, so that "newest of the others" is O(1) per input
	first, second := -1, -1
	for i := range newest {
		switch {
		case first < 0 || newest[i].After(newest[first]):
			first, second = i, first
		case second < 0 || newest[i].After(newest[second]):
			second = i
		}
	}
	for i, st := range states {
		var anchor time.Time
		switch {
		case first >= 0 && first != i:
			anchor = newest[first]
		case second >= 0:
			anchor = newest[second]
		}
		if anchor.IsZero() {
			anchor = newest[i]
		}
		rows := false
		for k := range st.events {
			m := &st.metas[k]
			if !m.hasAge {
				continue
			}
			rows = true
			ev := &st.events[k]
			if anchor.IsZero() {
				rep := *ev.Repeat
				rep.Relative = true
				ev.SetRepeat(rep)
				ev.Time = Stamp{}
				continue
			}
			ev.Time = StampOf(anchor.Add(-m.age))
			st.trackAbs(ev.Time.UTC())
		}
		if rows {
			st.in.First, st.in.Last = st.minAbs, st.maxAbs
		}
	}
}
