package report

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// incidentOf maps a finding index to the index of the incident whose chain holds it.
func incidentOf(res rules.Result) map[int]int {
	m := map[int]int{}
	for i, in := range res.Incidents {
		for _, c := range in.Chain {
			if _, ok := m[c]; !ok {
				m[c] = i
			}
		}
	}
	return m
}

// JSON writes the analysis as schema kcmtrace/analyze/v1: deterministic,
// indented by two spaces, times in RFC 3339 (nanoseconds, UTC), empty lists
// as [], no ANSI codes.
func JSON(w io.Writer, a *Analysis, o Options) error {
	a = prepare(a, o)
	out := wireAnalyze{
		Schema: SchemaAnalyze, Inputs: []wireInput{}, Volumes: []wireVolume{}, Findings: []wireFinding{},
		Incidents: []wireIncident{}, Restarts: []wireRestart{}, Skews: []wireSkew{},
		Errors: strs(a.Result.Errors),
		Summary: wireSummary{
			Incidents: len(a.Result.Incidents), Findings: len(a.Result.Findings), Events: a.Events,
			Severities: map[string]int{"critical": 0, "warning": 0, "info": 0},
		},
	}
	for i, e := range out.Errors {
		out.Errors[i] = Sanitize(e)
	}
	if tl := a.Timeline; tl != nil {
		for _, in := range tl.Inputs {
			out.Inputs = append(out.Inputs, toWireInput(in))
			out.Summary.Unknown += in.Unknown
		}
		for _, v := range tl.Volumes {
			out.Volumes = append(out.Volumes, toWireVolume(v))
		}
		for _, r := range tl.Restarts {
			out.Restarts = append(out.Restarts, toWireRestart(r))
		}
		for _, s := range tl.Skews {
			out.Skews = append(out.Skews, toWireSkew(s))
		}
		out.Summary.Start, out.Summary.End = ts(tl.Start), ts(tl.End)
		out.Summary.Duplicates = tl.Dupes
	}
	inc := incidentOf(a.Result)
	for i, f := range a.Result.Findings {
		out.Findings = append(out.Findings, toWireFinding(i, f, inc))
		if f.Severity > rules.None {
			out.Summary.Severities[SeverityName(f.Severity)]++
		}
	}
	for _, in := range a.Result.Incidents {
		out.Incidents = append(out.Incidents, toWireIncident(in, a.Result.Findings))
	}
	return encodeJSON(w, out)
}

// EventsJSONL writes one JSON object per event per line (schema
// kcmtrace/events/v1; the schema name is not repeated on every line).
func EventsJSONL(w io.Writer, evs []parser.Event, o Options) error {
	if o.Redact {
		evs = newRedactorFor(nil, evs).events(evs)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		if err := enc.Encode(toWireEvent(e)); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// TimelineJSON writes the given volumes' timelines as schema kcmtrace/timeline/v1.
// vols nil means every volume of tl.
func TimelineJSON(w io.Writer, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	tl, vols = prepareTimeline(tl, vols, o)
	out := wireTimeline{Schema: SchemaTimeline, Restarts: []wireRestart{}, Skews: []wireSkew{}, Volumes: []wireTimelineVol{}}
	if tl != nil {
		out.Start, out.End = ts(tl.Start), ts(tl.End)
		for _, r := range tl.Restarts {
			out.Restarts = append(out.Restarts, toWireRestart(r))
		}
		for _, s := range tl.Skews {
			out.Skews = append(out.Skews, toWireSkew(s))
		}
	}
	for _, v := range vols {
		out.Volumes = append(out.Volumes, toWireTimelineVol(v))
	}
	return encodeJSON(w, out)
}

// VolumesJSON writes the volumes (schema kcmtrace/volumes/v1).
func VolumesJSON(w io.Writer, vols []*timeline.Volume, o Options) error {
	_, vols = prepareTimeline(nil, vols, o)
	out := wireVolumes{Schema: SchemaVolumes, Volumes: []wireVolume{}}
	for _, v := range vols {
		out.Volumes = append(out.Volumes, toWireVolume(v))
	}
	return encodeJSON(w, out)
}

// prepare returns the analysis to render: never nil, redacted when asked.
func prepare(a *Analysis, o Options) *Analysis {
	if a == nil {
		a = &Analysis{}
	}
	if o.Redact {
		return redactAnalysis(a)
	}
	return a
}

// prepareTimeline defaults vols to every volume of tl and redacts when asked.
func prepareTimeline(tl *timeline.Timeline, vols []*timeline.Volume, o Options) (*timeline.Timeline, []*timeline.Volume) {
	if vols == nil && tl != nil {
		vols = tl.Volumes
	}
	if o.Redact {
		return redactTimeline(tl, vols)
	}
	return tl, vols
}
