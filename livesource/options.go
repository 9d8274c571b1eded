package livesource

import (
	"fmt"
	"net/http"
	"time"
)

// Credentials authenticate requests. They come from flags or the
// environment only (CredentialsFromEnv) and are never printed or saved.
type Credentials struct {
	BearerToken string // Authorization: Bearer …
	Username    string // basic auth, with Password
	Password    string
	OrgID       string // Loki tenant: X-Scope-OrgID
	APIKey      string // Elasticsearch/OpenSearch: Authorization: ApiKey …
}

// The environment variables CredentialsFromEnv reads. For loki+ sources
// logcli's own LOKI_* variables are read when the KCMTRACE_* one is unset.
const (
	EnvBearerToken = "KCMTRACE_BEARER_TOKEN"
	EnvUsername    = "KCMTRACE_USERNAME"
	EnvPassword    = "KCMTRACE_PASSWORD"
	EnvOrgID       = "KCMTRACE_ORG_ID"
	EnvAPIKey      = "KCMTRACE_ES_API_KEY"
)

// CredentialsFromEnv reads the credentials for store from the environment
// (getenv is os.Getenv in the CLI).
func CredentialsFromEnv(store Store, getenv func(string) string) Credentials {
	get := func(name, logcli string) string {
		if v := getenv(name); v != "" {
			return v
		}
		if store == Loki && logcli != "" {
			return getenv(logcli)
		}
		return ""
	}
	return Credentials{
		BearerToken: get(EnvBearerToken, "LOKI_BEARER_TOKEN"),
		Username:    get(EnvUsername, "LOKI_USERNAME"),
		Password:    get(EnvPassword, "LOKI_PASSWORD"),
		OrgID:       get(EnvOrgID, "LOKI_ORG_ID"),
		APIKey:      get(EnvAPIKey, ""),
	}
}

// Merge returns c with every empty field taken from other (flags first,
// then the environment).
func (c Credentials) Merge(other Credentials) Credentials {
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	return Credentials{
		BearerToken: pick(c.BearerToken, other.BearerToken),
		Username:    pick(c.Username, other.Username),
		Password:    pick(c.Password, other.Password),
		OrgID:       pick(c.OrgID, other.OrgID),
		APIKey:      pick(c.APIKey, other.APIKey),
	}
}

// secrets lists the values that must never appear in output.
func (c Credentials) secrets() []string {
	var out []string
	for _, s := range []string{c.BearerToken, c.Password, c.APIKey} {
		if s != "" {
			out = append(out, s)
		}
	}
	if c.Username != "" && c.Password != "" {
		out = append(out, basicAuth(c.Username, c.Password))
	}
	return out
}

// Pushdown modes (--pushdown).
const (
	PushdownAuto = "auto" // send the prefilter as a line filter (with the store's fallback)
	PushdownOff  = "off"  // fetch the selected streams whole
)

// Options control one Fetch. The zero value of every field but Dir has a
// working default.
type Options struct {
	// Dir is where the responses are written, one subdirectory per source
	// (the --save DIR, or a temporary directory the caller removes).
	Dir string

	// Since and Until bound the window [Since, Until); zero Until is now,
	// zero Since is Until - DefaultWindow.
	Since, Until time.Time

	// Selectors gives the stream selector per role, in the store's own
	// language (--selector ROLE=SELECTOR). When empty, the roles of
	// DefaultRoles are fetched with the first default selector that
	// matches any record in the window (selectors.go).
	Selectors map[string]string

	// Pushdown is PushdownAuto (default) or PushdownOff.
	Pushdown string

	// Contains are extra substrings every fetched line must contain (AND).
	// Only for a caller that knows every line it needs holds them: the CLI
	// sends none, since --volume/--node/--pod name a volume, node or pod
	// that its lines may name otherwise (they select after the fetch).
	Contains []string

	Credentials        Credentials
	CAFile             string // PEM bundle added to the system roots
	InsecureSkipVerify bool

	// Limits; zero means the default.
	PageSize    int           // records per request (DefaultPageSize; Loki: at most 5000)
	Window      time.Duration // widest time window (DefaultSplit, at most 1 h; windows adapt below it, paging.go)
	Timeout     time.Duration // per request (DefaultTimeout)
	Retries     int           // retries of a 429/5xx/transport failure (DefaultRetries)
	Backoff     time.Duration // first retry delay, doubled each time (DefaultBackoff)
	MaxRecords  int           // per role; more is truncation, reported (DefaultMaxRecords)
	MaxRequests int           // per role (DefaultMaxRequests)
	// Concurrency is how many windows are fetched at a time, 1 to 4
	// (DefaultConcurrency); Elasticsearch pages one point in time alone.
	Concurrency int

	// Progress, when set, is called (from the fetching goroutines, one at
	// a time) each time windows are written in order.
	Progress func(Progress)

	// ESTimeField and ESMessageFields name the Elasticsearch fields of the
	// record time and text (default @timestamp and message, log).
	ESTimeField     string
	ESMessageFields []string

	// HTTPClient replaces the client built from the TLS options (tests).
	HTTPClient *http.Client
	// Logf receives one-line notes (selector chosen, fallbacks, retries),
	// already redacted; nil discards them.
	Logf func(format string, args ...any)
	// Now is the clock for the default window (time.Now).
	Now func() time.Time
}

// Defaults.
const (
	DefaultWindow      = 24 * time.Hour
	DefaultSplit       = time.Hour
	DefaultPageSize    = 5000
	DefaultTimeout     = 60 * time.Second
	DefaultRetries     = 4
	DefaultBackoff     = 500 * time.Millisecond
	DefaultMaxRecords  = 2_000_000
	DefaultMaxRequests = 20_000
	DefaultConcurrency = 3
	lokiMaxPage        = 5000 // Loki's max_entries_limit_per_query default
)

// DefaultRoles are fetched when no selector is given.
var DefaultRoles = []string{"kcm", "kubelet"}

// normalize fills the defaults and checks the options.
func (o Options) normalize() (Options, error) {
	if o.Dir == "" {
		return o, fmt.Errorf("livesource: Options.Dir is empty")
	}
	switch o.Pushdown {
	case "":
		o.Pushdown = PushdownAuto
	case PushdownAuto, PushdownOff:
	default:
		return o, fmt.Errorf("--pushdown %s: want auto or off", o.Pushdown)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Until.IsZero() {
		o.Until = o.Now()
	}
	if o.Since.IsZero() {
		o.Since = o.Until.Add(-DefaultWindow)
	}
	o.Since, o.Until = o.Since.UTC(), o.Until.UTC()
	if !o.Since.Before(o.Until) {
		return o, fmt.Errorf("empty window: --since %s is not before --until %s", o.Since.Format(time.RFC3339Nano), o.Until.Format(time.RFC3339Nano))
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.PageSize, DefaultPageSize)
	def(&o.MaxRecords, DefaultMaxRecords)
	def(&o.MaxRequests, DefaultMaxRequests)
	if o.Retries == 0 {
		o.Retries = DefaultRetries
	}
	if o.Retries < 0 {
		o.Retries = 0
	}
	if o.Window <= 0 || o.Window > DefaultSplit {
		o.Window = DefaultSplit // ≤ 1 h: Loki splits by the hour and bounds a query's span
	}
	if o.Window < time.Duration(minWindow) {
		o.Window = time.Duration(minWindow)
	}
	def(&o.Concurrency, DefaultConcurrency)
	o.Concurrency = min(o.Concurrency, 4)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Backoff <= 0 {
		o.Backoff = DefaultBackoff
	}
	if o.ESTimeField == "" {
		o.ESTimeField = "@timestamp"
	}
	if len(o.ESMessageFields) == 0 {
		o.ESMessageFields = []string{"message", "log"}
	}
	for role, sel := range o.Selectors {
		if role == "" || sel == "" {
			return o, fmt.Errorf("--selector %s=%s: want ROLE=SELECTOR with both parts", role, sel)
		}
	}
	return o, nil
}

// ParseSelectors turns --selector ROLE=SELECTOR flags into a map.
func ParseSelectors(flags []string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range flags {
		role, sel, ok := cutRole(f)
		if !ok {
			return nil, fmt.Errorf("--selector %s: want ROLE=SELECTOR, e.g. kcm='{container=\"kube-controller-manager\"}'", f)
		}
		if _, dup := out[role]; dup {
			return nil, fmt.Errorf("--selector %s: role %s given twice", f, role)
		}
		out[role] = sel
	}
	return out, nil
}

// cutRole splits ROLE=SELECTOR at the first '=' when ROLE is a plain word.
func cutRole(f string) (role, sel string, ok bool) {
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c == '=' {
			return f[:i], f[i+1:], i > 0 && i < len(f)-1
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", "", false
		}
	}
	return "", "", false
}
