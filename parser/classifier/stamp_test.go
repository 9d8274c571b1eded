package classifier

import (
	"testing"
	"time"
)

// TestStampRoundTrip: a Stamp gives back the instant it was made of, in
// UTC, to the nanosecond, whatever the time's zone; the zero time is the
// zero Stamp; times past what int64 nanoseconds hold are clamped to the
// ends, and the one instant the encoding cannot hold becomes the next.
func TestStampRoundTrip(t *testing.T) {
	for name, tc := range map[string]struct {
		in, want time.Time
	}{
		"zero":            {time.Time{}, time.Time{}},
		"epoch":           {time.Unix(0, 0), time.Unix(0, 0).UTC()},
		"nanoseconds":     {time.Date(2024, 8, 12, 4, 48, 0, 612388123, time.UTC), time.Date(2024, 8, 12, 4, 48, 0, 612388123, time.UTC)},
		"zone kept apart": {time.Date(2024, 8, 12, 12, 48, 0, 5, time.FixedZone("+08", 8*3600)), time.Date(2024, 8, 12, 4, 48, 0, 5, time.UTC)},
		"before 1970":     {time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 1, time.UTC)},
		"year 1 clamped":  {time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), minStamp},
		"year 9999":       {time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), maxStamp},
		"lowest instant":  {time.Unix(0, -1<<63).UTC(), minStamp},
	} {
		t.Run(name, func(t *testing.T) {
			s := StampOf(tc.in)
			if got := s.UTC(); !got.Equal(tc.want) || got.Location() != time.UTC {
				t.Errorf("StampOf(%v).UTC() = %v, want %v in UTC", tc.in, got, tc.want)
			}
			if s.IsZero() != tc.in.IsZero() {
				t.Errorf("StampOf(%v).IsZero() = %v", tc.in, s.IsZero())
			}
		})
	}
}

// TestStampOrder: Stamps order as their times do, no time first (as the
// zero time.Time is), and Sub, Add, Unix and Nanosecond agree with
// time.Time's.
func TestStampOrder(t *testing.T) {
	base := time.Date(2024, 8, 12, 4, 48, 0, 612388000, time.UTC)
	times := []time.Time{{}, base.Add(-100 * 365 * 24 * time.Hour), base.Add(-time.Nanosecond), base, base.Add(time.Nanosecond), base.Add(200 * 365 * 24 * time.Hour)}
	for i, a := range times {
		for j, b := range times {
			sa, sb := StampOf(a), StampOf(b)
			if got, want := sa.Compare(sb), a.Compare(b); got != want {
				t.Errorf("Compare(%d, %d) = %d, want %d", i, j, got, want)
			}
			if sa.Before(sb) != a.Before(b) || sa.After(sb) != a.After(b) || sa.Equal(sb) != a.Equal(b) {
				t.Errorf("Before/After/Equal(%d, %d) disagree with time.Time's", i, j)
			}
			if !a.IsZero() && !b.IsZero() && sa.Sub(sb) != a.Sub(b) {
				t.Errorf("Sub(%d, %d) = %v, want %v", i, j, sa.Sub(sb), a.Sub(b))
			}
		}
		if a.IsZero() {
			continue
		}
		s := StampOf(a)
		if s.Unix() != a.Unix() || s.Nanosecond() != a.Nanosecond() || s.UnixNano() != a.UnixNano() {
			t.Errorf("%d: Unix %d.%d (%d), want %d.%d", i, s.Unix(), s.Nanosecond(), s.UnixNano(), a.Unix(), a.Nanosecond())
		}
		if got := s.Add(-90 * time.Second).UTC(); !got.Equal(a.Add(-90 * time.Second)) {
			t.Errorf("%d: Add = %v", i, got)
		}
		if got, want := s.Format(time.RFC3339Nano), a.Format(time.RFC3339Nano); got != want {
			t.Errorf("%d: Format = %s, want %s", i, got, want)
		}
	}
}
