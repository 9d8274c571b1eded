package report

import (
	"strings"
	"time"
)

// Times and durations as the renderers write them.

// ts formats a time for machine output: RFC 3339 with nanoseconds, UTC; "" when zero.
func ts(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	var buf [len(time.RFC3339Nano) + 8]byte
	return string(appendTS(buf[:0], t))
}

// appendTS appends ts(t) for a non-zero t: ASCII digits and punctuation
// only, so it needs no JSON escaping. Times from 1970 to 9999 are written
// here, several times faster than the time package writes them (the JSON
// report holds tens of thousands); the others go through the time package,
// which TestAppendTSMatchesFormat holds this to.
func appendTS(b []byte, t time.Time) []byte {
	sec := t.Unix()
	if sec < 0 || sec >= year10000 {
		return t.UTC().AppendFormat(b, time.RFC3339Nano)
	}
	y, m, d := civilDate(sec / 86400)
	s := int(sec % 86400)
	// "2006-01-02T15:04:05", '.' and nine digits, trailing zeros cut, 'Z'
	var out [19 + 10 + 1]byte
	put2(out[0:], y/100)
	put2(out[2:], y%100)
	out[4], out[7], out[10], out[13], out[16] = '-', '-', 'T', ':', ':'
	put2(out[5:], m)
	put2(out[8:], d)
	put2(out[11:], s/3600)
	put2(out[14:], s/60%60)
	put2(out[17:], s%60)
	n := 19
	if ns := t.Nanosecond(); ns != 0 {
		hi, lo := ns/100000, ns%100000 // four digits, then five
		out[19] = '.'
		put2(out[20:], hi/100)
		put2(out[22:], hi%100)
		put2(out[24:], lo/1000)
		put2(out[26:], lo/10%100)
		out[28] = byte('0' + lo%10)
		n = 29
		for out[n-1] == '0' {
			n--
		}
	}
	out[n] = 'Z'
	return append(b, out[:n+1]...)
}

// digitPairs are "00" to "99", two bytes each.
const digitPairs = "0001020304050607080910111213141516171819" +
	"2021222324252627282930313233343536373839" +
	"4041424344454647484950515253545556575859" +
	"6061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// put2 writes 0 ≤ n < 100 as two digits at b[0:2].
func put2(b []byte, n int) {
	b[0], b[1] = digitPairs[2*n], digitPairs[2*n+1]
}

// year10000 is 10000-01-01T00:00:00Z in Unix seconds.
const year10000 = 253402300800

// civilDate is the proleptic Gregorian date of a day counted from
// 1970-01-01 (days ≥ 0), by Howard Hinnant's days-to-civil algorithm.
func civilDate(days int64) (year, month, day int) {
	z := days + 719468 // from 0000-03-01
	era := z / 146097
	doe := z - era*146097                                  // day of the 400-year era
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // year of the era
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // day of the March-based year
	mp := (5*doy + 2) / 153                                // March-based month
	day = int(doy - (153*mp+2)/5 + 1)
	month = int(mp + 3)
	if month > 12 {
		month -= 12
	}
	year = int(yoe + era*400)
	if month <= 2 {
		year++
	}
	return year, month, day
}

// unknownTime stands for a time the inputs do not give.
const unknownTime = "—"

// displayZone is the zone the human renderers write times in
// (Options.Zone); the zero value is UTC. Machine output is always UTC (ts).
type displayZone struct{ loc *time.Location }

// zone is o's display zone.
func (o Options) zone() displayZone {
	if o.Zone == nil || o.Zone == time.UTC {
		return displayZone{}
	}
	return displayZone{o.Zone}
}

// utc is the display zone of the renderers that do not take one yet.
var utc displayZone

func (z displayZone) in(t time.Time) time.Time {
	if z.loc == nil {
		return t.UTC()
	}
	return t.In(z.loc)
}

// offsetMS is the zone's offset east of UTC at t (ms since the epoch), in ms.
func (z displayZone) offsetMS(t int64) int64 {
	_, off := z.in(time.UnixMilli(t)).Zone()
	return int64(off) * 1000
}

// isUTC: the times are written in UTC.
func (z displayZone) isUTC() bool { return z.loc == nil }

// name is "UTC" or the zone as given (Asia/Shanghai, Local, +08:00).
func (z displayZone) name() string {
	if z.loc == nil {
		return "UTC"
	}
	return z.loc.String()
}

// clock formats a time for humans: "15:04:05", with the date when withDate;
// unknownTime when zero.
func (z displayZone) clock(t time.Time, withDate bool) string {
	if t.IsZero() {
		return unknownTime
	}
	if withDate {
		return z.in(t).Format("2006-01-02 15:04:05")
	}
	return z.in(t).Format("15:04:05")
}

// spanText is "2024-08-12 03:10:00Z → 03:40:03Z" (date repeated when it
// changes); in another zone the offset replaces the Z.
func (z displayZone) spanText(a, b time.Time) string {
	const full, short = "2006-01-02 15:04:05Z07:00", "15:04:05Z07:00"
	if a.IsZero() && b.IsZero() {
		return "no timestamps"
	}
	if a.IsZero() {
		return "? → " + z.in(b).Format(full)
	}
	first := z.in(a).Format(full)
	if b.IsZero() {
		return first + " → ?"
	}
	if z.sameDay(a, b) {
		return first + " → " + z.in(b).Format(short)
	}
	return first + " → " + z.in(b).Format(full)
}

// sameDay: a and b fall on one calendar day in the zone.
func (z displayZone) sameDay(a, b time.Time) bool {
	a, b = z.in(a), z.in(b)
	return a.Year() == b.Year() && a.YearDay() == b.YearDay()
}

// clockMS is "2024-08-12 03:45:13.120"; unknownTime when zero.
func (z displayZone) clockMS(t time.Time) string {
	if t.IsZero() {
		return unknownTime
	}
	return z.in(t).Format("2006-01-02 15:04:05.000")
}

// clock, spanText and sameDay in UTC, for the renderers that take no zone.
func clock(t time.Time, withDate bool) string { return utc.clock(t, withDate) }
func spanText(a, b time.Time) string          { return utc.spanText(a, b) }
func sameDay(a, b time.Time) bool             { return utc.sameDay(a, b) }

// rel is "+1h11m40s" relative to base, rounded to seconds below an hour's
// precision needs ("+0s", "+850ms" for sub-second steps).
func rel(t, base time.Time) string {
	if t.IsZero() || base.IsZero() {
		return ""
	}
	d := t.Sub(base)
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	if d < time.Second && d > 0 {
		return sign + d.Round(time.Millisecond).String()
	}
	return sign + d.Round(time.Second).String()
}

// human is a short duration: "77m", "1h11m40s", "2m2s", "850ms".
func human(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	d = d.Round(time.Second)
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
