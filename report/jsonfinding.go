package report

// This file writes the analyze document's findings by hand, byte for byte
// what the indenting encoder writes for wireFinding (as jsonappend.go does
// for the volumes): a retry storm's 1,500 findings, eight lines of evidence
// each, went through the encoder's reflection, a third of the report's CPU.
// TestAppendFindingMatchesEncoder holds the two together.

// appendFinding appends w laid out by o (objectAt(depth): as the encoder
// writes it at depth). A finding's cluster-state checks, which few have,
// are left to the encoder.
func appendFinding(b []byte, w *wireFinding, o jsonObject) ([]byte, error) {
	b = o.open(b)
	b = o.int(b, "index", w.Index)
	b = o.str(b, "rule", w.Rule)
	b = o.str(b, "severity", w.Severity)
	b = o.str(b, "volume", w.Volume)
	b = o.str(b, "pv", w.PV)
	b = o.optStr(b, "handle", w.Handle)
	b = o.optStr(b, "driver", w.Driver)
	b = o.optStr(b, "input", w.Input)
	b = o.nullStrings(b, "nodes", w.Nodes)
	b = o.nullStrings(b, "pods", w.Pods)
	b = o.optStr(b, "start", w.Start)
	b = o.optStr(b, "end", w.End)
	b = o.int(b, "count", w.Count)
	b = o.optStr(b, "code", w.Code)
	b = o.str(b, "summary", w.Summary)
	b = o.str(b, "explanation", w.Explanation)
	b = o.optStr(b, "next", w.Next)
	if w.Incident == nil {
		b = o.null(b, "incident")
	} else {
		b = o.int(b, "incident", *w.Incident)
	}
	if w.Evidence == nil {
		b = o.null(b, "evidence")
	} else {
		b = o.objects(b, "evidence", len(w.Evidence), func(b []byte, i int, eo jsonObject) []byte {
			e := &w.Evidence[i]
			b = eo.open(b)
			b = eo.str(b, "path", e.Path)
			b = eo.int(b, "line", e.Line)
			b = eo.optStr(b, "time", e.Time)
			b = eo.str(b, "text", e.Text)
			b = eo.optStr(b, "note", e.Note)
			b = eo.optStr(b, "source_kind", e.SourceKind)
			return eo.close(b)
		})
	}
	if len(w.Checks) > 0 {
		var err error
		if b, err = o.value(b, "checks", w.Checks); err != nil {
			return b, err
		}
	}
	return o.close(b), nil
}

// nullStrings writes a list of strings as the encoder writes a []string:
// null when nil, [] when empty.
func (o *jsonObject) nullStrings(b []byte, k string, ss []string) []byte {
	if ss == nil {
		return o.null(b, k)
	}
	return o.strings(b, k, ss)
}

// null writes a field whose value is null (the encoder's nil pointer, slice
// or map).
func (o *jsonObject) null(b []byte, k string) []byte { return append(o.key(b, k), "null"...) }
