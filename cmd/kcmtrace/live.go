package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
	"github.com/kcmtrace/kcmtrace/parser"
)

// liveFlags are the flags of log-store sources (issue 18), part of the
// shared input flags: inputFlags.fetchInputs fetches every store URL among
// the sources before the parse, and each fetched stream is read through
// its envelope, as its role, named Stream.Name (parser.Options.Streams).
type liveFlags struct {
	Selector           []string `help:"Stream selector per role for store sources, in the store's language: kcm='{container=\"kube-controller-manager\"}' (repeatable); without it the collectors' defaults are tried." placeholder:"ROLE=SELECTOR"`
	Pushdown           string   `help:"Send the volume-line filter to the store (auto) or fetch the selected streams whole (off)." enum:"auto,off" default:"auto"`
	Save               string   `help:"Keep what store sources returned in DIR (native format plus manifest.json, no credentials) so 'analyze DIR' reruns offline." placeholder:"DIR"`
	BearerToken        string   `help:"Bearer token for store sources (or KCMTRACE_BEARER_TOKEN; Loki also LOKI_BEARER_TOKEN)." placeholder:"TOKEN"`
	User               string   `help:"Basic-auth user for store sources (or KCMTRACE_USERNAME)."`
	Password           string   `help:"Basic-auth password (prefer KCMTRACE_PASSWORD: flags show in process lists)."`
	OrgID              string   `name:"org-id" help:"Loki tenant, sent as X-Scope-OrgID (or KCMTRACE_ORG_ID / LOKI_ORG_ID)."`
	APIKey             string   `name:"api-key" help:"Elasticsearch/OpenSearch API key (or KCMTRACE_ES_API_KEY)."`
	CAFile             string   `help:"PEM CA bundle for https store sources." placeholder:"FILE"`
	InsecureSkipVerify bool     `help:"Do not verify store sources' TLS certificates."`
	PageSize           int      `help:"Records per store request (default 5000; lower it for a Loki whose max_entries_limit_per_query is smaller)." placeholder:"N"`

	// fetchedAt is "now" for --since/--until when a source is a store:
	// their durations count back from it, not from the newest line.
	fetchedAt time.Time
}

// fetched is what fetchInputs hands the parse: the paths in command-line
// order (a store URL replaced by its fetched files) and how to read the
// fetched ones.
type fetched struct {
	paths   []string
	streams map[string]parser.StreamInput
	cleanup func()
	errs    []error // one line per failed source or role (exit 3)
}

// fetchInputs fetches the store URLs among f.Paths over the --since/--until
// window (default: the last 24 hours) and finds the streams of --save
// directories among the others, so that `analyze DIR` reads a saved fetch
// exactly as the live one. --volume/--node/--pod are pushed down as
// substrings every fetched line must hold.
func (f *inputFlags) fetchInputs(e env) (*fetched, error) {
	out := &fetched{streams: map[string]parser.StreamInput{}, cleanup: func() {}}
	var urls []string
	for _, a := range f.Paths {
		if livesource.IsURL(a) {
			urls = append(urls, a)
		}
	}
	var since, until time.Time
	if len(urls) > 0 {
		f.fetchedAt = time.Now().UTC()
		var err error
		if since, err = parseWhen(f.Since, f.fetchedAt); err != nil {
			return nil, usageErr("--since %s: %v", f.Since, err)
		}
		if until, err = parseWhen(f.Until, f.fetchedAt); err != nil {
			return nil, usageErr("--until %s: %v", f.Until, err)
		}
		if f.Until != "" && f.Since == "" {
			since = until.Add(-livesource.DefaultWindow)
		}
	}
	defaultWindow := f.Since == "" && f.Until == ""
	// --volume, --node and --pod are not sent to the store: each selects
	// whole volumes by any of their names, and a volume's lines name it,
	// its nodes and its pods in different ways (a detach names the volume
	// but not the pod, a multi-attach the other node), so a substring
	// filter on the flag's value drops lines the analysis needs. They
	// select locally after the fetch, as for files (README, sources).
	bar := newFetchProgress(e, f.NoProgress || len(urls) == 0)
	defer bar.finish()
	for _, a := range f.Paths {
		var streams []livesource.Stream
		if livesource.IsURL(a) {
			var errs []error
			streams, out.cleanup, errs = f.fetchSource(e, a, since, until, bar.report(a), out.cleanup)
			out.errs = append(out.errs, errs...)
		} else {
			out.paths = append(out.paths, a)
			saved, err := livesource.Saved(a)
			if err != nil {
				out.errs = append(out.errs, err)
			}
			for _, s := range saved {
				out.streams[filepath.Clean(s.Path)] = streamInput(s, false)
			}
			continue
		}
		for _, s := range streams {
			if s.Records == 0 && s.Truncated != "" {
				continue // failed before any record: its error line says why
			}
			out.paths = append(out.paths, s.Path)
			out.streams[filepath.Clean(s.Path)] = streamInput(s, defaultWindow)
		}
	}
	return out, nil
}

// fetchSource fetches one store URL into --save DIR, or into a temporary
// directory that the returned cleanup (chained to the previous one)
// removes. Each error is one line naming the source.
func (f *liveFlags) fetchSource(e env, arg string, since, until time.Time, progress func(livesource.Progress), prev func()) ([]livesource.Stream, func(), []error) {
	src, err := livesource.Parse(arg)
	if err != nil {
		return nil, prev, []error{err}
	}
	sel, err := livesource.ParseSelectors(f.Selector)
	if err != nil {
		return nil, prev, []error{err}
	}
	cleanup := prev
	dir := f.Save
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kcmtrace-fetch-")
		if err != nil {
			return nil, prev, []error{fmt.Errorf("%s: %v", src, err)}
		}
		dir, cleanup = tmp, func() { prev(); os.RemoveAll(tmp) }
	}
	flags := livesource.Credentials{BearerToken: f.BearerToken, Username: f.User, Password: f.Password, OrgID: f.OrgID, APIKey: f.APIKey}
	opt := livesource.Options{
		Dir: dir, Since: since, Until: until, Selectors: sel, Pushdown: f.Pushdown,
		Credentials: flags.Merge(livesource.CredentialsFromEnv(src.Store, e.getenv)),
		CAFile:      f.CAFile, InsecureSkipVerify: f.InsecureSkipVerify, PageSize: f.PageSize, Progress: progress,
		Logf: func(format string, a ...any) {
			fmt.Fprintf(e.stderr, "kcmtrace: %s\n", oneLine(fmt.Sprintf(format, a...)))
		},
	}
	streams, err := livesource.Fetch(context.Background(), src, opt)
	var errs []error
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			errs = append(errs, fmt.Errorf("%s", line))
		}
	}
	return streams, cleanup, errs
}

// streamInput is how the parser reads a fetched (or saved) stream.
func streamInput(s livesource.Stream, defaultWindow bool) parser.StreamInput {
	return parser.StreamInput{
		Format: s.Envelope, Role: s.Role, Name: s.Name,
		Fetch: &parser.Fetch{
			Source: s.Source, Selector: s.Selector, Query: s.Query, Pushdown: s.Pushdown, Fallback: s.Fallback,
			Since: s.Since, Until: s.Until, DefaultWindow: defaultWindow,
			Records: s.Records, Requests: s.Requests, Joined: s.Joined, Truncated: s.Truncated,
		},
	}
}
