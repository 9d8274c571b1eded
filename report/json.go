package report

import (
	"bufio"
	"io"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

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
func JSON(w io.Writer, a *Analysis, o Options) error { return analyzeDoc(newObjectWriter(w), a, o) }

// AnalysisYAML writes the analysis as YAML: what the YAML encoder writes
// for the JSON (kubectl's -o yaml), its volumes written by hand.
func AnalysisYAML(w io.Writer, a *Analysis, o Options) error {
	return analyzeDoc(newYAMLObjectWriter(w), a, o)
}

// analyzeDoc writes the analysis (schema kcmtrace/analyze/v1) through out.
func analyzeDoc(out *objectWriter, a *Analysis, o Options) error {
	a = prepare(a, o)
	summary := wireSummary{
		Incidents: len(a.Result.Incidents), Findings: len(a.Result.Findings), Events: a.Events,
		Severities: map[string]int{"critical": 0, "warning": 0, "info": 0},
	}
	errs := strs(a.Result.Errors)
	for i, e := range errs {
		errs[i] = Sanitize(e)
	}
	tl := a.Timeline
	if tl == nil {
		tl = &timeline.Timeline{}
	}
	for _, in := range tl.Inputs {
		summary.Unknown += in.Unknown
	}
	summary.Start, summary.End = ts(tl.Start), ts(tl.End)
	summary.Duplicates = tl.Dupes
	for _, f := range a.Result.Findings {
		if f.Severity > rules.None {
			summary.Severities[f.Severity.String()]++
		}
	}
	inc := incidentOf(a.Result)

	// The same fields, in the same order, as wireAnalyze; volumes, findings
	// and incidents are encoded one at a time.
	out.field("schema", SchemaAnalyze)
	provenance(out, o)
	inputs := wireInputs(tl)
	out.array("inputs", len(inputs), func(i int) any { return inputs[i] })
	byName := volumesByName(tl, a.Result.Findings)
	vols := tl.Volumes
	if o.FlaggedOnly {
		// the volumes the findings' volume, handle and driver are from
		named := make(map[*timeline.Volume]int, len(byName))
		for _, v := range byName {
			if v != nil {
				named[v]++
			}
		}
		vols = flaggedVolumes(tl, named)
		summary.VolumesOmitted = len(tl.Volumes) - len(vols)
	}
	out.arrayOf("volumes", len(vols), func(dst []byte, i int, at jsonObject) ([]byte, error) {
		return appendVolume(dst, vols[i], at), nil
	})
	if out.yaml == nil {
		out.arrayBatched("findings", len(a.Result.Findings), heavyBatch, func(dst []byte, i int, at jsonObject) ([]byte, error) {
			w := toWireFinding(i, a.Result.Findings[i], inc, byName)
			return appendFinding(dst, &w, at)
		})
	} else {
		out.array("findings", len(a.Result.Findings), func(i int) any { return toWireFinding(i, a.Result.Findings[i], inc, byName) })
	}
	out.array("incidents", len(a.Result.Incidents), func(i int) any { return toWireIncident(a.Result.Incidents[i], a.Result.Findings) })
	out.array("restarts", len(tl.Restarts), func(i int) any { return toWireRestart(tl.Restarts[i]) })
	out.array("skews", len(tl.Skews), func(i int) any { return toWireSkew(tl.Skews[i]) })
	out.field("summary", summary)
	out.field("errors", errs)
	return out.close()
}

// flaggedVolumes are the volumes of tl with findings (on counts them), in
// tl's order.
func flaggedVolumes(tl *timeline.Timeline, on map[*timeline.Volume]int) []*timeline.Volume {
	var out []*timeline.Volume
	for _, v := range tl.Volumes {
		if on[v] > 0 {
			out = append(out, v)
		}
	}
	return out
}

// EventsJSONL writes one JSON object per event per line (schema
// kcmtrace/events/v1; the schema name is not repeated on every line).
func EventsJSONL(w io.Writer, evs []parser.Event, o Options) error {
	if o.Redact {
		evs = newRedactorFor(nil, evs).events(evs)
	}
	bw := bufio.NewWriterSize(delEscaper{w}, 64<<10)
	// A large cluster's day is 100k events and more: written by hand
	// (appendEvent, byte for byte the encoder's line), on every core.
	err := renderBatches(bw, len(evs), eventBatch, func(dst []byte, from, to int) ([]byte, error) {
		for i := from; i < to; i++ {
			dst = append(appendEvent(dst, &evs[i], jsonObject{compact: true}), '\n')
		}
		return dst, nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// TimelineJSON writes the given volumes' timelines as schema kcmtrace/timeline/v1.
// vols nil means every volume of tl.
func TimelineJSON(w io.Writer, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	return timelineDoc(newObjectWriter(w), tl, vols, o)
}

// TimelineYAML writes the timelines as YAML (see AnalysisYAML).
func TimelineYAML(w io.Writer, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	return timelineDoc(newYAMLObjectWriter(w), tl, vols, o)
}

// timelineDoc writes the timelines (schema kcmtrace/timeline/v1) through out.
func timelineDoc(out *objectWriter, tl *timeline.Timeline, vols []*timeline.Volume, o Options) error {
	tl, vols = prepareTimeline(tl, vols, o)
	if tl == nil {
		tl = &timeline.Timeline{}
	}
	// The fields of wireTimeline, in order; volumes (with every event) one at a time.
	out.field("schema", SchemaTimeline)
	provenance(out, o)
	if s := ts(tl.Start); s != "" {
		out.field("start", s)
	}
	if e := ts(tl.End); e != "" {
		out.field("end", e)
	}
	out.array("restarts", len(tl.Restarts), func(i int) any { return toWireRestart(tl.Restarts[i]) })
	out.array("skews", len(tl.Skews), func(i int) any { return toWireSkew(tl.Skews[i]) })
	out.arrayOf("volumes", len(vols), func(dst []byte, i int, at jsonObject) ([]byte, error) {
		return appendTimelineVol(dst, vols[i], at)
	})
	return out.close()
}

// VolumesJSON writes the volumes (schema kcmtrace/volumes/v1).
func VolumesJSON(w io.Writer, vols []*timeline.Volume, o Options) error {
	return volumesDoc(newObjectWriter(w), vols, o)
}

// VolumesYAML writes the volumes as YAML (see AnalysisYAML).
func VolumesYAML(w io.Writer, vols []*timeline.Volume, o Options) error {
	return volumesDoc(newYAMLObjectWriter(w), vols, o)
}

// volumesDoc writes the volumes (schema kcmtrace/volumes/v1) through out.
func volumesDoc(out *objectWriter, vols []*timeline.Volume, o Options) error {
	_, vols = prepareTimeline(nil, vols, o)
	out.field("schema", SchemaVolumes)
	provenance(out, o)
	out.arrayOf("volumes", len(vols), func(dst []byte, i int, at jsonObject) ([]byte, error) {
		return appendVolume(dst, vols[i], at), nil
	})
	return out.close()
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
