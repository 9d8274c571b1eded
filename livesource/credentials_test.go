package livesource

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/vlogstest"
	"time"
)

// TestCredentialsNeverShown: servers that echo the Authorization header in
// their 401 bodies (Elasticsearch does) and a 503 note on the way; the
// error, the notes and every file under the save directory hold no
// credential, and each error is one line naming the source.
func TestCredentialsNeverShown(t *testing.T) {
	secrets := []string{"s3cret-token", "hunter2-pass", "a3-key=="}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "0")
		if r.URL.Query().Get("limit") == "1" || strings.HasSuffix(r.URL.Path, "_pit") {
			http.Error(w, "overloaded, auth was "+r.Header.Get("Authorization"), http.StatusServiceUnavailable)
			return
		}
		http.Error(w, `{"error":{"type":"security_exception","reason":"bad credentials [`+r.Header.Get("Authorization")+`]"},"status":401}`, http.StatusUnauthorized)
	}))
	defer echo.Close()
	for _, tc := range []struct {
		url  string
		cred Credentials
	}{
		{"loki+" + echo.URL, Credentials{BearerToken: "s3cret-token", OrgID: "t1"}},
		{"vlogs+" + echo.URL, Credentials{Username: "admin", Password: "hunter2-pass"}},
		{"es+" + echo.URL + "/logs-*", Credentials{APIKey: "a3-key=="}},
	} {
		src, err := Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var notes []string
		_, err = Fetch(context.Background(), src, Options{
			Dir: dir, Since: seedSince, Until: seedUntil, Credentials: tc.cred, Retries: 1, Backoff: time.Millisecond,
			Logf: func(f string, a ...any) { notes = append(notes, fmt.Sprintf(f, a...)) },
		})
		if err == nil {
			t.Fatalf("%s: no error", tc.url)
		}
		out := err.Error() + "\n" + strings.Join(notes, "\n")
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, _ error) error {
			if !d.IsDir() {
				b, _ := os.ReadFile(p)
				out += "\n" + string(b)
			}
			return nil
		})
		for _, s := range append(secrets, basicAuth("admin", "hunter2-pass")) {
			if strings.Contains(out, s) {
				t.Errorf("%s: credential %q shown:\n%s", tc.url, s, out)
			}
		}
		if !strings.Contains(out, "[REDACTED]") {
			t.Errorf("%s: the echoed credential was not redacted:\n%s", tc.url, out)
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, src.String()+": ") {
				t.Errorf("error line %q does not start with the source", line)
			}
		}
		if !strings.Contains(err.Error(), "authentication failed (HTTP 401") && !strings.Contains(err.Error(), "HTTP 503") {
			t.Errorf("%s: error %q", tc.url, err)
		}
	}
}

// TestUnreachable: a closed port is one line naming the source and host,
// after the bounded retries.
func TestUnreachable(t *testing.T) {
	addr, err := vlogstest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	src, _ := Parse("loki+http://" + addr)
	_, err = Fetch(context.Background(), src, Options{Dir: t.TempDir(), Since: seedSince, Until: seedUntil,
		Selectors: map[string]string{"kcm": `{container="x"}`}, Retries: 2, Backoff: time.Millisecond})
	if err == nil || !strings.HasPrefix(err.Error(), "loki+http://"+addr+": kcm: cannot reach "+addr) {
		t.Fatalf("error %v", err)
	}
}

// TestCredentialsFromEnv: KCMTRACE_* first, logcli's LOKI_* for Loki only;
// flags win over both.
func TestCredentialsFromEnv(t *testing.T) {
	env := map[string]string{"LOKI_BEARER_TOKEN": "lt", "LOKI_ORG_ID": "org", EnvAPIKey: "k", EnvUsername: "u"}
	get := func(k string) string { return env[k] }
	if c := CredentialsFromEnv(Loki, get); c != (Credentials{BearerToken: "lt", OrgID: "org", APIKey: "k", Username: "u"}) {
		t.Errorf("loki %+v", c)
	}
	if c := CredentialsFromEnv(Elasticsearch, get); c != (Credentials{APIKey: "k", Username: "u"}) {
		t.Errorf("es %+v", c)
	}
	flags := Credentials{BearerToken: "flag"}
	if c := flags.Merge(CredentialsFromEnv(Loki, get)); c.BearerToken != "flag" || c.OrgID != "org" {
		t.Errorf("merge %+v", c)
	}
}
