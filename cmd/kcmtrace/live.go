package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
)

// liveFlags are the flags of log-store sources (issue 18). Not wired yet:
// the lead embeds liveFlags in inputFlags, calls fetchSources on
// inputFlags.Paths before parser.ParseAll, parses each returned stream's
// Path with its forced envelope (Stream.Envelope) and role
// (Stream.Role), names the input Stream.Name, and counts errs as read
// errors (exit 3).
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
}

// fetchSources fetches every store URL among args (the others are paths,
// returned in order) over [since, until) — zero since/until mean the last
// 24 hours. Without --save the files go to a temporary directory that
// cleanup removes. Each error is one line naming its source.
func (f *liveFlags) fetchSources(ctx context.Context, e env, args []string, since, until time.Time, contains []string) (paths []string, streams []livesource.Stream, cleanup func(), errs []error) {
	cleanup = func() {}
	var srcs []livesource.Source
	for _, a := range args {
		if !livesource.IsURL(a) {
			paths = append(paths, a)
			continue
		}
		src, err := livesource.Parse(a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		srcs = append(srcs, src)
	}
	if len(srcs) == 0 {
		return paths, nil, cleanup, errs
	}
	sel, err := livesource.ParseSelectors(f.Selector)
	if err != nil {
		return paths, nil, cleanup, append(errs, err)
	}
	dir := f.Save
	if dir == "" {
		tmp, err := os.MkdirTemp("", "kcmtrace-fetch-")
		if err != nil {
			return paths, nil, cleanup, append(errs, err)
		}
		dir, cleanup = tmp, func() { os.RemoveAll(tmp) }
	}
	flags := livesource.Credentials{BearerToken: f.BearerToken, Username: f.User, Password: f.Password, OrgID: f.OrgID, APIKey: f.APIKey}
	for _, src := range srcs {
		opt := livesource.Options{
			Dir: dir, Since: since, Until: until, Selectors: sel, Pushdown: f.Pushdown, Contains: contains,
			Credentials: flags.Merge(livesource.CredentialsFromEnv(src.Store, e.getenv)),
			CAFile:      f.CAFile, InsecureSkipVerify: f.InsecureSkipVerify,
			Logf: func(format string, a ...any) { fmt.Fprintf(e.stderr, "kcmtrace: "+format+"\n", a...) },
		}
		got, err := livesource.Fetch(ctx, src, opt)
		streams = append(streams, got...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range streams {
		fmt.Fprintf(e.stderr, "kcmtrace: %s: %d records %s..%s\n", s.Name, s.Records, s.Since.Format(time.RFC3339), s.Until.Format(time.RFC3339))
		if s.Truncated != "" {
			fmt.Fprintf(e.stderr, "kcmtrace: %s: truncated: %s\n", s.Name, s.Truncated)
		}
	}
	return paths, streams, cleanup, errs
}
