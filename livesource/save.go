package livesource

import (
	"encoding/json"
	"fmt"
	"io/fs"
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
	Joined          int    `json:"joined,omitempty"` // continuation lines joined (continuation.go)
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
			Records: s.Records, Requests: s.Requests, Truncated: s.Truncated, Joined: s.Joined,
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

// Saved returns the streams a --save directory holds: those of every
// manifest.json under root (root itself may be one source's directory),
// as Fetch returned them, their paths under root. A directory without a
// manifest gives none; an unreadable manifest is an error naming it.
func Saved(root string) ([]Stream, error) {
	var out []Stream
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != ManifestName {
			return nil // unreadable parts are the parser's to report
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m Manifest
		if err := json.Unmarshal(b, &m); err != nil || m.Schema != "kcmtrace.fetch/v1" {
			return fmt.Errorf("%s: not a kcmtrace fetch manifest", path)
		}
		since, _ := time.Parse(time.RFC3339Nano, m.Since)
		until, _ := time.Parse(time.RFC3339Nano, m.Until)
		for _, ms := range m.Streams {
			out = append(out, Stream{
				Name: streamName(m.Source, ms.Role, ms.Selector), Source: m.Source, Role: ms.Role,
				Envelope: ms.Envelope, Path: filepath.Join(filepath.Dir(path), ms.File),
				Selector: ms.Selector, DefaultSelector: ms.DefaultSelector, Query: ms.Query,
				Pushdown: m.Pushdown, Fallback: ms.Fallback, Since: since, Until: until,
				Records: ms.Records, Requests: ms.Requests, Truncated: ms.Truncated, Joined: ms.Joined,
			})
		}
		return nil
	})
	return out, err
}
