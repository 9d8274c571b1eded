package livesource

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Store is the kind of log store a Source talks to.
type Store string

// The stores.
const (
	VictoriaLogs  Store = "vlogs"
	Loki          Store = "loki"
	Elasticsearch Store = "es"
	OpenSearch    Store = "opensearch"
)

// Source is a parsed store URL.
type Source struct {
	Store  Store
	Scheme string // "http" or "https"
	Host   string // host:port
	Index  string // index pattern (es+, opensearch+); "" for the others
}

// prefixes maps a URL scheme prefix to its store.
var prefixes = map[string]Store{
	"vlogs": VictoriaLogs, "loki": Loki, "es": Elasticsearch, "opensearch": OpenSearch,
}

// IsURL reports whether arg names a log store (STORE+http:// or
// STORE+https://) rather than a path. A malformed store URL is still a URL:
// Parse then says what is wrong with it.
func IsURL(arg string) bool {
	i := strings.Index(arg, "://")
	if i < 0 {
		return false
	}
	store, scheme, ok := strings.Cut(strings.ToLower(arg[:i]), "+")
	_, known := prefixes[store]
	return ok && known && (scheme == "http" || scheme == "https")
}

// Parse parses a store URL: vlogs+http(s)://HOST:PORT,
// loki+http(s)://HOST:PORT, es+http(s)://HOST:PORT/INDEX-PATTERN or
// opensearch+http(s)://HOST:PORT/INDEX-PATTERN. Credentials in the URL are
// refused (they would end up in shell history and process lists); give
// them by flag or environment.
func Parse(arg string) (Source, error) {
	fail := func(format string, a ...any) (Source, error) {
		return Source{}, fmt.Errorf("source %s: %s", redactURL(arg), fmt.Sprintf(format, a...))
	}
	i := strings.Index(arg, "://")
	if i < 0 {
		return fail("want STORE+http(s)://HOST:PORT with STORE one of vlogs, loki, es, opensearch")
	}
	storeName, scheme, _ := strings.Cut(strings.ToLower(arg[:i]), "+")
	store, known := prefixes[storeName]
	if !known {
		return fail("unknown store %q: want vlogs, loki, es or opensearch", storeName)
	}
	if scheme != "http" && scheme != "https" {
		return fail("want %s+http:// or %s+https://", storeName, storeName)
	}
	u, err := url.Parse(scheme + arg[i:])
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail("%v", err)
	}
	if u.User != nil {
		return fail("credentials in the URL are not accepted: use --user/--password, --bearer-token or the KCMTRACE_* environment variables")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fail("a store URL takes no ?query or #fragment")
	}
	if u.Hostname() == "" {
		return fail("no host")
	}
	host := u.Host
	if u.Port() == "" {
		return fail("no port: give HOST:PORT (VictoriaLogs 9428, Loki 3100, Elasticsearch/OpenSearch 9200)")
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		return fail("%v", err)
	}
	src := Source{Store: store, Scheme: scheme, Host: host}
	path := strings.Trim(u.Path, "/")
	switch store {
	case Elasticsearch, OpenSearch:
		if path == "" {
			return fail("no index pattern: give %s+%s://%s/INDEX-PATTERN (e.g. logs-*)", storeName, scheme, host)
		}
		if strings.ContainsAny(path, "/ ") {
			return fail("index pattern %q: one path element without spaces (several patterns are comma-separated)", path)
		}
		src.Index = path
	default:
		if path != "" {
			return fail("a %s URL has no path (got /%s); reverse proxies with a path prefix are not supported", storeName, path)
		}
	}
	return src, nil
}

// String is the source as the user would write it (it never holds a
// credential).
func (s Source) String() string {
	out := string(s.Store) + "+" + s.Scheme + "://" + s.Host
	if s.Index != "" {
		out += "/" + s.Index
	}
	return out
}

// Envelope is the parser envelope that reads this store's responses.
func (s Source) Envelope() string {
	switch s.Store {
	case VictoriaLogs:
		return "victorialogs"
	case Loki:
		return "loki"
	default:
		return "elasticsearch"
	}
}

// baseURL is the HTTP URL requests go to, without a trailing slash.
func (s Source) baseURL() string { return s.Scheme + "://" + s.Host }

// slug names the source in file names: store-host-port[-index].
func (s Source) slug() string {
	name := string(s.Store) + "-" + s.Host
	if s.Index != "" {
		name += "-" + s.Index
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '_'
	}, name)
}

// redactURL drops any user:password@ part of a URL-looking argument so an
// error about it never echoes a credential.
func redactURL(arg string) string {
	i := strings.Index(arg, "://")
	if i < 0 {
		return arg
	}
	rest := arg[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
		return arg[:i+3] + "REDACTED@" + rest[at+1:]
	}
	return arg
}
