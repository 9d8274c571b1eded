package livesource

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// client sends the requests of one Fetch to one source: credentials,
// timeouts, retries with backoff and redacted one-line errors.
type client struct {
	src     Source
	hc      *http.Client
	cred    Credentials
	opt     Options
	secrets []string
	// requests counts requests sent for the current role (reset per role;
	// windows send them concurrently).
	requests atomic.Int64
}

// maxBody bounds one response body; a page is far smaller.
const maxBody = 512 << 20

// newClient builds the HTTP client for src from the TLS options.
func newClient(src Source, opt Options) (*client, error) {
	c := &client{src: src, cred: opt.Credentials, opt: opt, secrets: opt.Credentials.secrets()}
	if opt.HTTPClient != nil {
		c.hc = opt.HTTPClient
		return c, nil
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if opt.CAFile != "" || opt.InsecureSkipVerify {
		cfg := &tls.Config{InsecureSkipVerify: opt.InsecureSkipVerify} // #nosec G402 -- only on --insecure-skip-verify
		if opt.CAFile != "" {
			pem, err := os.ReadFile(opt.CAFile)
			if err != nil {
				return nil, fmt.Errorf("--ca-file: %v", err)
			}
			pool, err := x509.SystemCertPool()
			if err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", opt.CAFile)
			}
			cfg.RootCAs = pool
		}
		tr.TLSClientConfig = cfg
	}
	c.hc = &http.Client{Transport: tr}
	return c, nil
}

// httpError is a non-2xx answer.
type httpError struct {
	status int
	body   string // first line of the body, clipped
}

func (e *httpError) Error() string {
	msg := fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
	switch e.status {
	case http.StatusUnauthorized, http.StatusForbidden:
		msg = "authentication failed (" + msg + "): check the credentials"
	case http.StatusBadRequest:
		msg = "query rejected (" + msg + ")"
	}
	if e.body != "" {
		msg += ": " + e.body
	}
	return msg
}

// retryable reports statuses worth another try.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusInternalServerError ||
		status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout
}

// request is one HTTP call.
type request struct {
	method string
	path   string
	query  url.Values
	body   []byte
	ctype  string
}

// do sends r, retrying 429/5xx and transport failures with exponential
// backoff (honouring Retry-After), and returns the body of a 2xx answer.
func (c *client) do(ctx context.Context, r request) ([]byte, error) {
	delay := c.opt.Backoff
	for attempt := 0; ; attempt++ {
		if n := c.requests.Add(1); n > int64(c.opt.MaxRequests) {
			c.requests.Add(-1)
			return nil, &permanentError{fmt.Errorf("stopped after %d requests (the request limit)", c.opt.MaxRequests)}
		}
		body, status, retryAfter, err := c.once(ctx, r)
		if err == nil && status/100 == 2 {
			return body, nil
		}
		if err == nil {
			err = &httpError{status: status, body: clip(errorText(body), 300)}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if attempt >= c.opt.Retries || (status != 0 && !retryable(status)) || isPermanent(err) {
			return nil, err
		}
		wait := delay
		if retryAfter > 0 && retryAfter < 8*delay+time.Minute {
			wait = retryAfter
		}
		c.logf("%s: %v; retry %d of %d in %s", c.src, err, attempt+1, c.opt.Retries, wait)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		delay *= 2
	}
}

// once sends one request with the per-request timeout.
func (c *client) once(ctx context.Context, r request) (body []byte, status int, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.opt.Timeout)
	defer cancel()
	u := c.src.baseURL() + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var rd io.Reader
	if r.body != nil {
		rd = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, rd)
	if err != nil {
		return nil, 0, 0, err
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "kcmtrace")
	c.authorize(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, 0, 0, transportError(c.src, err)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading the response: %v", transportError(c.src, err))
	}
	if len(body) > maxBody {
		return nil, 0, 0, &permanentError{fmt.Errorf("response larger than %d MiB", maxBody>>20)}
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			retryAfter = time.Duration(n) * time.Second
		}
	}
	return body, resp.StatusCode, retryAfter, nil
}

// authorize sets the credential headers.
func (c *client) authorize(req *http.Request) {
	switch {
	case c.cred.APIKey != "" && (c.src.Store == Elasticsearch || c.src.Store == OpenSearch):
		req.Header.Set("Authorization", "ApiKey "+c.cred.APIKey)
	case c.cred.BearerToken != "":
		req.Header.Set("Authorization", "Bearer "+c.cred.BearerToken)
	case c.cred.Username != "":
		req.Header.Set("Authorization", "Basic "+basicAuth(c.cred.Username, c.cred.Password))
	}
	if c.cred.OrgID != "" && c.src.Store == Loki {
		req.Header.Set("X-Scope-OrgID", c.cred.OrgID)
	}
}

func basicAuth(user, pass string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
}

// permanentError is never retried.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// transportError says in one line why the host could not be talked to.
func transportError(src Source, err error) error {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errors.New("request timed out")
	case errors.As(err, &dnsErr):
		return &permanentError{fmt.Errorf("cannot resolve %s: %s", dnsErr.Name, dnsErr.Err)}
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return fmt.Errorf("cannot reach %s: %v", src.Host, opErr.Err)
	}
	var cert x509.UnknownAuthorityError
	var host x509.HostnameError
	if errors.As(err, &cert) || errors.As(err, &host) {
		return &permanentError{fmt.Errorf("TLS: %v (use --ca-file, or --insecure-skip-verify)", err)}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err
}

// redact replaces every credential in s.
func (c *client) redact(s string) string { return redact(s, c.secrets) }

func redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}

// logf sends a redacted note to Options.Logf.
func (c *client) logf(format string, args ...any) {
	if c.opt.Logf != nil {
		c.opt.Logf("%s", c.redact(oneLine(fmt.Sprintf(format, args...))))
	}
}

// errorText is the reason an error body gives: Elasticsearch's
// error.root_cause[0].reason or error.reason, a JSON "error" string, or the
// body's first line (Loki and VictoriaLogs answer in plain text).
func errorText(body []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		if json.Unmarshal(e.Error, &s) == nil {
			return s
		}
		var es struct {
			Type      string `json:"type"`
			Reason    string `json:"reason"`
			RootCause []struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"root_cause"`
		}
		if json.Unmarshal(e.Error, &es) == nil {
			if len(es.RootCause) > 0 && es.RootCause[0].Reason != "" {
				return es.RootCause[0].Type + ": " + es.RootCause[0].Reason
			}
			if es.Reason != "" {
				return es.Type + ": " + es.Reason
			}
		}
	}
	return firstLine(string(body))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
