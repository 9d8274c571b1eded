package report

import (
	"fmt"
	"strings"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// fetchLines say, once per log-store source, which window was fetched
// and whether it is the default one, for the reports' headers:
// "fetched from vlogs+http://h:9428: 2025-08-12 00:00:00Z → 2025-08-13
// 00:00:00Z (default: the last 24 h; --since/--until change it)".
func fetchLines(tl *timeline.Timeline) []string {
	if tl == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, in := range tl.Inputs {
		f := in.Fetch
		if f == nil {
			continue
		}
		s := fmt.Sprintf("fetched from %s: %s", oneLine(f.Source), spanText(f.Since, f.Until))
		if f.DefaultWindow {
			s += " (default: the last 24 h; --since/--until change it)"
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// fetchText is one input's fetch summary for its coverage block:
// "query {container=…} |= …: 1234 records in 3 requests".
func fetchText(in parser.Input) string {
	f := in.Fetch
	if f == nil {
		return ""
	}
	s := fmt.Sprintf("query %s · %s in %s", oneLine(f.Query), plural(f.Records, "record"), plural(f.Requests, "request"))
	if f.Pushdown == "off" {
		s += " · pushdown off"
	}
	if f.Fallback != "" {
		s += " · fallback: " + oneLine(f.Fallback)
	}
	if f.Truncated != "" {
		s += " · TRUNCATED: " + oneLine(f.Truncated)
	}
	return strings.TrimSpace(s)
}
