package report

import (
	"slices"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/rules"
)

// The rules' texts in the display zone. A rule writes times into its
// summaries, explanations, steps, checks and stories in UTC, and records
// each one it wrote (Finding.Times, Incident.Times); the human renderers
// write exactly those times in the display zone, with its offset as the
// tables' spans show it ("09:15:13+05:30"). The JSON keeps the rules' text.

// prepareHuman is prepare for the human renderers: the analysis with the
// rules' texts in o's display zone (a copy; a itself when the zone is UTC).
func prepareHuman(a *Analysis, o Options) *Analysis {
	a = prepare(a, o)
	z := o.zone()
	if z.isUTC() {
		return a
	}
	c := *a
	c.Result.Findings = make([]rules.Finding, len(a.Result.Findings))
	for i, f := range a.Result.Findings {
		c.Result.Findings[i] = z.finding(f)
	}
	c.Result.Incidents = make([]rules.Incident, len(a.Result.Incidents))
	for i, in := range a.Result.Incidents {
		c.Result.Incidents[i] = z.incident(in)
	}
	return &c
}

func (z displayZone) finding(f rules.Finding) rules.Finding {
	if len(f.Times) == 0 {
		return f
	}
	r := z.retimer(f.Times)
	f.Summary, f.Explanation, f.Next = r(f.Summary), r(f.Explanation), r(f.Next)
	f.Steps = retimeSteps(f.Steps, r)
	f.Checks = slices.Clone(f.Checks)
	for i := range f.Checks {
		f.Checks[i].Text = r(f.Checks[i].Text)
	}
	f.Evidence = slices.Clone(f.Evidence)
	for i := range f.Evidence {
		f.Evidence[i].Note = r(f.Evidence[i].Note)
	}
	return f
}

func (z displayZone) incident(in rules.Incident) rules.Incident {
	if len(in.Times) == 0 {
		return in
	}
	r := z.retimer(in.Times)
	in.Summary, in.RootCause, in.Component = r(in.Summary), r(in.RootCause), r(in.Component)
	in.Story = slices.Clone(in.Story)
	for i := range in.Story {
		in.Story[i] = r(in.Story[i])
	}
	in.Next = retimeSteps(in.Next, r)
	return in
}

func retimeSteps(steps []rules.Step, r func(string) string) []rules.Step {
	out := slices.Clone(steps)
	for i := range out {
		out[i].Text = r(out[i].Text)
	}
	return out
}

// retimer rewrites, in a text, each of the times marks as the rules wrote
// it (TimeMark.Text) in z; see retime.
func (z displayZone) retimer(marks []rules.TimeMark) func(string) string {
	var from, to []string
	for _, m := range marks {
		layout := "15:04:05Z07:00" // as spanText writes a time of day
		if m.Layout != rules.ClockLayout {
			layout = time.RFC3339
		}
		from, to = append(from, m.Text()), append(to, z.in(m.At).Format(layout))
	}
	return func(s string) string { return retime(s, from, to) }
}

// retime replaces each whole from[i] in s by to[i], in one pass, the
// longest first where two start at one place. A from inside a longer time
// (a log line's own timestamp quoted in the text, see wholeTime) is left
// alone.
func retime(s string, from, to []string) string {
	var b strings.Builder
	done := 0
	for i := 0; i < len(s); {
		k := -1
		for j, f := range from {
			if (k < 0 || len(f) > len(from[k])) && strings.HasPrefix(s[i:], f) && wholeTime(s, i, i+len(f)) {
				k = j
			}
		}
		if k < 0 {
			i++
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(to[k])
		i += len(from[k])
		done = i
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// wholeTime: s[i:j] is not part of a longer time: no digit, ':' or 'T'
// before it, no digit after it, nor a ':' or '.' and a digit.
func wholeTime(s string, i, j int) bool {
	digit := func(k int) bool { return 0 <= k && k < len(s) && '0' <= s[k] && s[k] <= '9' }
	if digit(i-1) || i > 0 && (s[i-1] == ':' || s[i-1] == 'T') {
		return false
	}
	return !digit(j) && (j >= len(s) || s[j] != ':' && s[j] != '.' || !digit(j+1))
}
