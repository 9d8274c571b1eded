package rules

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The times rules write into their texts. A rule formats a time with clock
// (a time of day) or instant (RFC 3339), which write a mark: the time and
// its layout between two Unicode noncharacters (reserved for a program's
// internal use, never in a finding's text otherwise). When a finding or an
// incident leaves the engine, settle replaces each mark by the time as
// written in UTC (the text the JSON carries, unchanged) and records it in
// Times, so a renderer that shows times in another zone can write those
// same times there (report --display-tz) without guessing at the prose.

// ClockLayout is how clock writes a time of day.
const ClockLayout = "15:04:05"

// TimeMark is one time written in a finding's or an incident's texts.
type TimeMark struct {
	At     time.Time // whole seconds, UTC
	Layout string    // ClockLayout or time.RFC3339
}

// Text is the mark as the texts carry it: At in UTC, in Layout.
func (m TimeMark) Text() string { return m.At.UTC().Format(m.Layout) }

const (
	markOpen  = "\uFDD0"
	markClose = "\uFDD1"
)

// layoutCodes name the layouts inside a mark.
var layoutCodes = map[byte]string{'c': ClockLayout, 'r': time.RFC3339}

// mark is t's mark in the layout of code (see layoutCodes).
func mark(t time.Time, code byte) string {
	return markOpen + string(code) + strconv.FormatInt(t.Unix(), 10) + markClose
}

// instant formats a time for a text as RFC 3339 in UTC ("2024-08-12T03:45:13Z").
func instant(t time.Time) string { return mark(t, 'r') }

// settle replaces each mark in s by its text and adds its TimeMark to *ms
// (once each, in order of first appearance).
func settle(s string, ms *[]TimeMark) string {
	if !strings.Contains(s, markOpen) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s)) // about the settled length
	for {
		i := strings.Index(s, markOpen)
		if i < 0 {
			break
		}
		b.WriteString(s[:i])
		s = s[i+len(markOpen):]
		m, n, ok := parseMark(s)
		if !ok {
			b.WriteString(markOpen)
			continue
		}
		b.WriteString(m.Text())
		addMark(ms, m)
		s = s[n:]
	}
	b.WriteString(s)
	return b.String()
}

// parseMark reads a mark's body (after markOpen) from the start of s: the
// mark and the bytes it took, markClose included.
func parseMark(s string) (TimeMark, int, bool) {
	end := strings.Index(s, markClose)
	if end < 2 {
		return TimeMark{}, 0, false
	}
	layout, ok := layoutCodes[s[0]]
	if !ok {
		return TimeMark{}, 0, false
	}
	sec, err := strconv.ParseInt(s[1:end], 10, 64)
	if err != nil {
		return TimeMark{}, 0, false
	}
	return TimeMark{At: time.Unix(sec, 0).UTC(), Layout: layout}, end + len(markClose), true
}

func addMark(ms *[]TimeMark, m TimeMark) {
	for _, o := range *ms {
		if o.Layout == m.Layout && o.At.Equal(m.At) {
			return
		}
	}
	*ms = append(*ms, m)
}

// settle settles every text of f (see settle), recording its times in
// f.Times. Lists are copied before a text in them changes: a rule may
// share one between findings.
func (f *Finding) settle() {
	f.Summary = settle(f.Summary, &f.Times)
	f.Explanation = settle(f.Explanation, &f.Times)
	f.Next = settle(f.Next, &f.Times)
	f.Steps = settleAll(f.Steps, func(s *Step) *string { return &s.Text }, &f.Times)
	f.Checks = settleAll(f.Checks, func(c *Check) *string { return &c.Text }, &f.Times)
	f.Evidence = settleAll(f.Evidence, func(e *Evidence) *string { return &e.Note }, &f.Times)
}

// settle settles every text of in; its Times are its own and those of its
// chain's findings fs (a story line may quote a finding's summary).
func (in *Incident) settle(fs []*Finding) {
	for _, f := range fs {
		for _, m := range f.Times {
			addMark(&in.Times, m)
		}
	}
	in.Summary = settle(in.Summary, &in.Times)
	in.RootCause = settle(in.RootCause, &in.Times)
	in.Component = settle(in.Component, &in.Times)
	in.Story = settleAll(in.Story, func(s *string) *string { return s }, &in.Times)
	in.Next = settleAll(in.Next, func(s *Step) *string { return &s.Text }, &in.Times)
}

// settleAll settles the text of each element of xs (text points into it),
// copying xs before the first change.
func settleAll[T any](xs []T, text func(*T) *string, ms *[]TimeMark) []T {
	cloned := false
	for i := range xs {
		s := settle(*text(&xs[i]), ms)
		if s == *text(&xs[i]) {
			continue
		}
		if !cloned {
			xs, cloned = slices.Clone(xs), true
		}
		*text(&xs[i]) = s
	}
	return xs
}
