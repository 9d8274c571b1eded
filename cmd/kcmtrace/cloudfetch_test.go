package main

import (
	"strings"
	"testing"
)

// TestFetchPrintsFilteredExports: `kcmtrace fetch` prints, per cloud, the
// export commands with the generated filter (the README's generator) and
// the window, and never a credential from the environment.
func TestFetchPrintsFilteredExports(t *testing.T) {
	re, reQuoted, orList := exportFilters()
	secrets := map[string]string{"KCMTRACE_BEARER_TOKEN": "tok-s3cret", "KCMTRACE_PASSWORD": "pw-s3cret", "KCMTRACE_ES_API_KEY": "key-s3cret"}
	for _, tc := range []struct {
		cloud, filter, window string
		args                  []string
		commands              int
	}{
		{"gke", orList, `timestamp>="2024-08-12T00:00:00Z" AND timestamp<"2024-08-13T00:00:00Z"`, []string{"--project", "p1"}, 2},
		{"eks", "'%" + re + "%'", "--start-time 1723420800000 --end-time 1723507200000", []string{"--region", "eu-west-1"}, 2},
		{"aks", `regex "` + reQuoted + `"`, "datetime(2024-08-12T00:00:00Z) and TimeGenerated < datetime(2024-08-13T00:00:00Z)", []string{"--workspace", "w1"}, 1},
	} {
		var out, errb strings.Builder
		code := runEnv(append([]string{"fetch", tc.cloud, "--cluster", "prod", "--since", "2024-08-12T00:00:00Z", "--until", "2024-08-13T00:00:00Z"}, tc.args...),
			env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return secrets[k] }})
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.cloud, code, errb.String())
		}
		s := out.String()
		if n := strings.Count(s, tc.filter); n != tc.commands {
			t.Errorf("%s: %d commands with the generated filter %s, want %d:\n%s", tc.cloud, n, tc.filter, tc.commands, s)
		}
		if n := strings.Count(s, tc.window); n != tc.commands {
			t.Errorf("%s: %d commands with the window %s, want %d:\n%s", tc.cloud, n, tc.window, tc.commands, s)
		}
		for _, v := range secrets {
			if strings.Contains(s+errb.String(), v) {
				t.Errorf("%s: printed a credential", tc.cloud)
			}
		}
	}
}
