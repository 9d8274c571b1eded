package report

import (
	"strings"
	"testing"
	"time"

	"github.com/kcmtrace/kcmtrace/rules"
)

func TestRetime(t *testing.T) {
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2024, 8, 12, 3, 45, 13, 0, time.UTC)
	clockMark := rules.TimeMark{At: at, Layout: rules.ClockLayout}
	rfcMark := rules.TimeMark{At: at, Layout: time.RFC3339}
	late := rules.TimeMark{At: time.Date(2024, 8, 12, 23, 50, 0, 0, time.UTC), Layout: rules.ClockLayout}
	for name, tc := range map[string]struct {
		zone  *time.Location
		marks []rules.TimeMark
		in    string
		want  string
	}{
		"clock":          {kolkata, []rules.TimeMark{clockMark}, "attached at 03:45:13.", "attached at 09:15:13+05:30."},
		"rfc3339":        {kolkata, []rules.TimeMark{rfcMark}, "since 2024-08-12T03:45:13Z: alive", "since 2024-08-12T09:15:13+05:30: alive"},
		"both":           {kolkata, []rules.TimeMark{clockMark, rfcMark}, "03:45:13 and 2024-08-12T03:45:13Z", "09:15:13+05:30 and 2024-08-12T09:15:13+05:30"},
		"twice":          {kolkata, []rules.TimeMark{clockMark}, "03:45:13, then 03:45:13", "09:15:13+05:30, then 09:15:13+05:30"},
		"next day":       {kolkata, []rules.TimeMark{late}, "at 23:50:00", "at 05:20:00+05:30"},
		"negative zone":  {time.FixedZone("-04:00", -4*3600), []rules.TimeMark{clockMark}, "(03:45:13)", "(23:45:13-04:00)"},
		"not recorded":   {kolkata, []rules.TimeMark{clockMark}, "at 03:45:14", "at 03:45:14"},
		"no marks":       {kolkata, nil, "at 03:45:13", "at 03:45:13"},
		"in a log stamp": {kolkata, []rules.TimeMark{clockMark}, `"2024-08-12T03:45:13Z" I0812 03:45:13.120`, `"2024-08-12T03:45:13Z" I0812 03:45:13.120`},
		"in a longer":    {kolkata, []rules.TimeMark{clockMark}, "103:45:13 03:45:130 03:45:13:00", "103:45:13 03:45:130 03:45:13:00"},
		"at the edges":   {kolkata, []rules.TimeMark{clockMark}, "03:45:13", "09:15:13+05:30"},
		"sentence end":   {kolkata, []rules.TimeMark{clockMark}, "It ended at 03:45:13. Then", "It ended at 09:15:13+05:30. Then"},
		"colon after":    {kolkata, []rules.TimeMark{clockMark}, "at 03:45:13: the log wins", "at 09:15:13+05:30: the log wins"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := (displayZone{tc.zone}).retimer(tc.marks)(tc.in); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestPrepareHuman: in a zone the rules' texts are rewritten in a copy;
// in UTC the analysis is rendered as it is.
func TestPrepareHuman(t *testing.T) {
	at := time.Date(2024, 8, 12, 3, 45, 13, 0, time.UTC)
	marks := []rules.TimeMark{{At: at, Layout: rules.ClockLayout}}
	a := &Analysis{Result: rules.Result{
		Findings: []rules.Finding{{Summary: "attached at 03:45:13", Steps: []rules.Step{{Text: "check 03:45:13"}},
			Checks: []rules.Check{{Text: "since 03:45:13"}}, Times: marks}},
		Incidents: []rules.Incident{{Story: []string{"03:45:13 attached"}, Next: []rules.Step{{Text: "around 03:45:13"}}, Times: marks}},
	}}
	if got := prepareHuman(a, Options{}); got != a {
		t.Error("UTC: the analysis was copied")
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	got := prepareHuman(a, Options{Zone: tokyo})
	f, in := got.Result.Findings[0], got.Result.Incidents[0]
	for _, s := range []string{f.Summary, f.Steps[0].Text, f.Checks[0].Text, in.Story[0], in.Next[0].Text} {
		if want := "12:45:13+09:00"; !strings.Contains(s, want) {
			t.Errorf("%q does not say %s", s, want)
		}
	}
	of, oin := a.Result.Findings[0], a.Result.Incidents[0]
	for _, s := range []string{of.Summary, of.Steps[0].Text, of.Checks[0].Text, oin.Story[0], oin.Next[0].Text} {
		if !strings.Contains(s, "03:45:13") {
			t.Errorf("the original changed: %q", s)
		}
	}
}
