package loggen

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ReportFinding is the part of a `kcmtrace analyze --format json` finding
// that Verify reads.
type ReportFinding struct {
	Rule     string   `json:"rule"`
	Severity string   `json:"severity"`
	Volume   string   `json:"volume"`
	PV       string   `json:"pv"`
	Nodes    []string `json:"nodes"`
	Summary  string   `json:"summary"`
}

// Report is the part of the analyze JSON (schema kcmtrace/analyze/v1) that
// Verify reads.
type Report struct {
	Schema   string          `json:"schema"`
	Findings []ReportFinding `json:"findings"`
}

// Check is the verdict on one planted incident.
type Check struct {
	Incident string
	Volume   string
	Found    []string // rules found on the volume (sorted, unique)
	Missing  []string // expected rules not found
	Extra    []string // for ExpectNone incidents: rules that fired anyway
	OK       bool
}

// Verdict is the result of Verify.
type Verdict struct {
	Checks []Check
	// Other counts findings on volumes that were not planted, by rule: on a
	// generated log these are false positives on healthy traffic.
	Other map[string]int
	OK    bool // every incident as expected
}

// Verify checks an analyze report against a manifest: every expected rule of
// every planted incident must have a finding on that volume (matched by
// UniqueName, PV or handle), and ExpectNone incidents must have none.
func Verify(m *Manifest, rep *Report) Verdict {
	v := Verdict{OK: true, Other: map[string]int{}}
	matches := func(f ReportFinding, inc Incident) bool {
		return (f.Volume != "" && (f.Volume == inc.Volume || f.Volume == inc.PV || strings.HasSuffix(f.Volume, "^"+inc.Handle))) ||
			(f.PV != "" && f.PV == inc.PV)
	}
	planted := make([]bool, len(rep.Findings))
	for _, inc := range m.Incidents {
		c := Check{Incident: inc.Name, Volume: inc.Volume}
		found := map[string]bool{}
		for i, f := range rep.Findings {
			if matches(f, inc) {
				found[f.Rule] = true
				planted[i] = true
			}
		}
		for r := range found {
			c.Found = append(c.Found, r)
		}
		sort.Strings(c.Found)
		for _, r := range inc.ExpectRules {
			if !found[r] {
				c.Missing = append(c.Missing, r)
			}
		}
		if inc.ExpectNone {
			c.Extra = c.Found
		}
		c.OK = len(c.Missing) == 0 && len(c.Extra) == 0
		v.OK = v.OK && c.OK
		v.Checks = append(v.Checks, c)
	}
	if o := m.Outage; o != nil {
		c, ok := verifyOutage(o, rep, planted)
		v.OK = v.OK && ok
		v.Checks = append(v.Checks, c)
	}
	for i, f := range rep.Findings {
		if !planted[i] {
			v.Other[f.Rule]++
		}
	}
	return v
}

// verifyOutage checks ShapeStorm's outage: every volume that failed at
// least o.ExpectFrom times has an o.ExpectRule finding; the findings of
// o.ExpectRule and o.OtherRules on its volumes are marked planted.
func verifyOutage(o *Outage, rep *Report, planted []bool) (Check, bool) {
	c := Check{Incident: "attach-outage", Volume: fmt.Sprintf("%d volumes", len(o.Volumes))}
	index := make(map[string]int, len(o.Volumes))
	for i, h := range o.Volumes {
		index[h] = i
	}
	rules := map[string]bool{o.ExpectRule: true}
	for _, r := range o.OtherRules {
		rules[r] = true
	}
	got := make([]bool, len(o.Volumes))
	found := map[string]bool{}
	for i, f := range rep.Findings {
		_, h, _ := strings.Cut(f.Volume, "^")
		vi, ok := index[h]
		if !ok || !rules[f.Rule] {
			continue
		}
		planted[i] = true
		found[f.Rule] = true
		if f.Rule == o.ExpectRule {
			got[vi] = true
		}
	}
	for r := range found {
		c.Found = append(c.Found, r)
	}
	sort.Strings(c.Found)
	missed := 0
	for i, n := range o.Failures {
		if n >= o.ExpectFrom && !got[i] {
			missed++
		}
	}
	if missed > 0 {
		c.Missing = []string{fmt.Sprintf("%s on %d volumes", o.ExpectRule, missed)}
	}
	c.OK = missed == 0
	return c, c.OK
}

// ReadReport decodes an analyze JSON report.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("decode report: %w", err)
	}
	return &rep, nil
}

// ReadManifest decodes a manifest written by kcmgen.
func ReadManifest(r io.Reader) (*Manifest, error) {
	var m Manifest
	if err := json.NewDecoder(r).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode manifest: %w", err)
	}
	return &m, nil
}

// Print writes a human summary of the verdict.
func (v Verdict) Print(w io.Writer) {
	for _, c := range v.Checks {
		status := "FOUND"
		if !c.OK {
			status = "MISSED"
		}
		detail := "rules: " + strings.Join(c.Found, ",")
		if len(c.Found) == 0 {
			detail = "no findings"
		}
		if len(c.Missing) > 0 {
			detail += "; missing: " + strings.Join(c.Missing, ",")
		}
		if len(c.Extra) > 0 {
			status = "UNEXPECTED"
			detail += " (expected none)"
		} else if c.OK && len(c.Found) == 0 {
			status = "QUIET"
		}
		fmt.Fprintf(w, "  %-10s %-26s %s\n", status, c.Incident, detail)
	}
	if len(v.Other) > 0 {
		keys := make([]string, 0, len(v.Other))
		total := 0
		for k, n := range v.Other {
			keys = append(keys, k)
			total += n
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%d", k, v.Other[k])
		}
		fmt.Fprintf(w, "  findings on healthy (non-planted) volumes: %d (%s)\n", total, strings.Join(parts, " "))
	} else {
		fmt.Fprintf(w, "  findings on healthy (non-planted) volumes: 0\n")
	}
}
