package livesource

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// ManifestName is the file in each source's directory that says what was
// fetched. The parser's directory walk skips *.json, so `kcmtrace analyze
// DIR` reads only the fetched files.
const ManifestName = "manifest.json"

// Manifest is the saved description of one Fetch: enough to rerun the
// query, never a credential.
type Manifest struct {
	Schema   string           `json:"schema"` // "kcmtrace.fetch/v1"
	Source   string           `json:"source"`
	Store    string           `json:"store"`
	Since    string           `json:"since"` // RFC 3339, inclusive
	Until    string           `json:"until"` // RFC 3339, exclusive
	Pushdown string           `json:"pushdown"`
	Contains []string         `json:"contains,omitempty"`
	Streams  []ManifestStream `json:"streams"`
	Errors   []string         `json:"errors,omitempty"`
}

// ManifestStream describes one fetched file.
type ManifestStream struct {
	Role            string `json:"role"`
	File            string `json:"file"`
	Envelope        string `json:"envelope"`
	Selector        string `json:"selector"`
	DefaultSelector bool   `json:"default_selector,omitempty"`
	Query           string `json:"query"`
	Fallback        string `json:"fallback,omitempty"`
	Records         int    `json:"records"`
	Requests        int    `json:"requests"`
	Truncated       string `json:"truncated,omitempty"`
}

// writeManifest writes dir/manifest.json.
func writeManifest(dir string, src Source, opt Options, streams []Stream, errs []error) error {
	m := Manifest{
		Schema: "kcmtrace.fetch/v1", Source: src.String(), Store: string(src.Store),
		Since: opt.Since.Format(time.RFC3339Nano), Until: opt.Until.Format(time.RFC3339Nano),
		Pushdown: opt.Pushdown, Contains: opt.Contains, Streams: []ManifestStream{},
	}
	for _, s := range streams {
		m.Streams = append(m.Streams, ManifestStream{
			Role: s.Role, File: filepath.Base(s.Path), Envelope: s.Envelope, Selector: s.Selector,
			DefaultSelector: s.DefaultSelector, Query: s.Query, Fallback: s.Fallback,
			Records: s.Records, Requests: s.Requests, Truncated: s.Truncated,
		})
	}
	for _, e := range errs {
		m.Errors = append(m.Errors, e.Error())
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	b = []byte(redact(string(b), opt.Credentials.secrets()))
	return os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}
