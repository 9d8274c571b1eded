package classifier

import (
	"math"
	"time"
)

// Stamp is an event's time: a UTC instant to the nanosecond, in 8 bytes
// and without a pointer (a time.Time is 24 bytes with a *Location, a
// quarter of an Event that ~100k events per GiB of log keep until the
// report is written), or no time at all (the zero Stamp). It covers the
// instants time.Time.UnixNano can give, the years 1678 to 2262; StampOf
// clamps a time outside them to the nearest end. Its methods are
// time.Time's, over Stamps.
type Stamp struct {
	// ns is the Unix time in nanoseconds with its sign bit flipped, so
	// that the zero Stamp is no time (the one instant it then cannot
	// hold, 1677-09-21T00:12:43.145224192Z, is taken as the next one).
	ns int64
}

// The ends of what a Stamp holds.
var (
	minStamp = time.Unix(0, math.MinInt64+1).UTC()
	maxStamp = time.Unix(0, math.MaxInt64).UTC()
)

// StampOf is t as a Stamp: the zero Stamp for the zero time; a time
// before 1678 or after 2262 clamped to the range.
func StampOf(t time.Time) Stamp {
	switch {
	case t.IsZero():
		return Stamp{}
	case t.Before(minStamp):
		t = minStamp
	case t.After(maxStamp):
		t = maxStamp
	}
	return Stamp{t.UnixNano() ^ math.MinInt64}
}

// StampOfUnixNano is the Stamp of the Unix time ns nanoseconds, as StampOf
// gives it for time.Unix(0, ns) (math.MinInt64, the one instant a Stamp
// cannot hold, is taken as the next).
func StampOfUnixNano(ns int64) Stamp {
	if ns == math.MinInt64 {
		ns++
	}
	return Stamp{ns ^ math.MinInt64}
}

// UTC is the Stamp as a time.Time in UTC (the zero time.Time for none).
func (s Stamp) UTC() time.Time {
	if s.ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, s.UnixNano()).UTC()
}

// IsZero reports whether s is no time.
func (s Stamp) IsZero() bool { return s.ns == 0 }

// UnixNano is s as Unix time in nanoseconds (undefined for no time).
func (s Stamp) UnixNano() int64 { return s.ns ^ math.MinInt64 }

// Unix is s as Unix time in seconds, as time.Time.Unix gives it.
func (s Stamp) Unix() int64 { return s.UTC().Unix() }

// Nanosecond is the nanosecond within s's second, in [0, 999999999].
func (s Stamp) Nanosecond() int { return s.UTC().Nanosecond() }

// Compare is -1, 0 or +1 as s is before, equal to or after u, no time
// being before every time (as time.Time's zero is).
func (s Stamp) Compare(u Stamp) int {
	switch {
	case s.ns == u.ns:
		return 0
	case s.ns == 0:
		return -1
	case u.ns == 0:
		return 1
	case s.UnixNano() < u.UnixNano():
		return -1
	}
	return 1
}

// Before reports whether s is before u.
func (s Stamp) Before(u Stamp) bool { return s.Compare(u) < 0 }

// After reports whether s is after u.
func (s Stamp) After(u Stamp) bool { return s.Compare(u) > 0 }

// Equal reports whether s and u are the same instant (or both none).
func (s Stamp) Equal(u Stamp) bool { return s.ns == u.ns }

// Sub is s-u, as time.Time.Sub gives it.
func (s Stamp) Sub(u Stamp) time.Duration { return s.UTC().Sub(u.UTC()) }

// Add is s+d, clamped as StampOf clamps; no time stays no time...
func (s Stamp) Add(d time.Duration) Stamp { return StampOf(s.UTC().Add(d)) }

// Format is s formatted as time.Time.Format formats it, in UTC.
func (s Stamp) Format(layout string) string { return s.UTC().Format(layout) }

// String is s as time.Time.String gives it, in UTC.
func (s Stamp) String() string { return s.UTC().String() }
