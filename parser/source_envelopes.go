package parser

import (
	"fmt"
	"io"
	"strings"

	exports "github.com/kcmtrace/kcmtrace/parser/envelope"
)

// This file plugs package parser/envelope (cloud log exports and log-store
// dumps: gcp, cloudwatch, azure, loki, elasticsearch, victorialogs,
// journald-json, journald-export, event-exporter) into the envelope seam of
// source_envelope.go: detection by its scores over the input's first
// sniffBufSize bytes, decoding with its records mapped onto envRecord, and
// its names in InputFormats.

func init() {
	registerEnvelope(&envelope{names: exports.Names(), sniff: sniffExport, decode: decodeExport})
	InputFormats = append(InputFormats, exports.Names()...)
}

// sniffExport claims the input when an envelope scores at least
// exports.MinScore on its start; otherwise it names the best partial fit.
func sniffExport(head []byte) (name, hint string) {
	scores := exports.Scores(head)
	if len(scores) == 0 {
		return "", ""
	}
	if s := scores[0]; s.Score >= exports.MinScore {
		return s.Envelope, ""
	}
	var parts []string
	for _, s := range scores[:min(len(scores), 3)] {
		parts = append(parts, fmt.Sprintf("%s (%s, score %d of %d needed)", s.Envelope, s.Shape, s.Score, exports.MinScore))
	}
	return "", strings.Join(parts, ", ")
}

// decodeExport decodes r as the envelope called name.
func decodeExport(name string, r io.Reader, skim func([]byte) bool, yield func(*envRecord) bool) (envStats, error) {
	var rec envRecord
	var opt exports.Options
	if skim != nil {
		opt = exports.Options{Prefilter: exportPrefilter, Skim: skim}
	}
	st, err := exports.DecodeWith(name, r, opt, func(r exports.Record) error {
		rec = envRecord{
			Time:     r.Time,
			YearOnly: r.TimeSource == exports.TimeNoZone,
			Text:     r.Msg,
			Level:    r.Level,
			File:     r.File,
			FileLine: r.Line,
			Line:     r.Pos,
			Role:     labelRole(r.Labels),
			Node:     r.Labels.Node,
			Host:     r.Labels.Host,
			Skimmed:  r.Skimmed,
		}
		if r.Reason != "" {
			rec.Event = &envEvent{Reason: r.Reason, Type: r.EventType, Count: r.Count, Source: r.Labels.Component, Pod: r.Labels.Pod}
			if r.Labels.Namespace != "" && r.Labels.Pod != "" {
				rec.Event.Pod = r.Labels.Namespace + "/" + r.Labels.Pod
			}
		}
		if !yield(&rec) {
			return errStopped
		}
		return nil
	})
	if err == errStopped {
		err = nil
	}
	out := envStats{Lines: st.Lines, Records: st.Records, NoTime: st.NoTime, Duplicates: st.Duplicates, Cut: st.Cut}
	prefix := name
	if st.Shape != "" {
		prefix += " (" + st.Shape + ")"
	}
	for _, p := range st.Problems {
		out.Problems = append(out.Problems, Problem{Line: p.Line, Message: prefix + ": " + p.Msg})
	}
	return out, err
}

// exportPrefilter finds the prefilter tokens in raw JSON strings.
var exportPrefilter = exports.NewPrefilter(fingerprinted(prefilterTokens))

// errStopped is what the yield of decodeExport returns when the scanner
// wants no more records.
var errStopped = fmt.Errorf("stopped")

// labelRole maps an export's labels onto a component with the table the
// journald process names use (componentOf): the component label first,
// then the container, the systemd unit and the pod name.
func labelRole(l exports.Labels) string {
	for _, s := range [...]string{l.Component, l.Container, strings.TrimSuffix(l.Unit, ".service"), l.Pod} {
		if c := componentOf(s); c != "" && c != "mixed" {
			return c
		}
	}
	return ""
}

// noSilence adds the problem that says why an input gave no event when it
// should have said something: it holds volume-looking text (entries that
// pass the prefilter) that no parser understood, or nothing in it is in a
// format the parser knows. The problem names what the input looks like
// and how to force a format.
func (st *inputState) noSilence() {
	in := &st.in
	if in.Events > 0 || in.Lines == 0 || in.Lines == in.Skipped[SkipBlank] {
		return
	}
	looks := "it looks like no format kcmtrace knows"
	switch {
	case st.envelope != "":
		looks = "it was read as a " + st.envelope + " export"
	case st.envHint != "":
		looks = "it looks a little like " + st.envHint
	case in.Format != "" && in.Format != "unknown" && in.Format != formatNames[fmtText]:
		looks = "it was read as " + in.Format
		if in.Wrapper != "" && in.Wrapper != wrapNames[wrapNone] {
			looks += " in " + in.Wrapper + " lines"
		}
	}
	force := "force a format with --input-format NAME (" + strings.Join(InputFormats, ", ") + ")"
	switch {
	case in.Relevant > 0:
		st.problem(0, "%d entries mention volumes but none gave an event; %s; %s", in.Relevant, looks, force)
	case st.envelope == "" && (in.Format == "" || in.Format == "unknown" || in.Format == formatNames[fmtText]):
		st.problem(0, "format not recognised (no klog, JSON log, journald, CRI, docker, event-table or log-export lines); %s; %s", looks, force)
	}
}
