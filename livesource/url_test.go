package livesource

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want Source
		err  string
	}{
		{arg: "vlogs+http://127.0.0.1:9428", want: Source{Store: VictoriaLogs, Scheme: "http", Host: "127.0.0.1:9428"}},
		{arg: "loki+https://loki.example:3100/", want: Source{Store: Loki, Scheme: "https", Host: "loki.example:3100"}},
		{arg: "es+https://es:9200/logs-*", want: Source{Store: Elasticsearch, Scheme: "https", Host: "es:9200", Index: "logs-*"}},
		{arg: "opensearch+http://[::1]:9200/a,b", want: Source{Store: OpenSearch, Scheme: "http", Host: "[::1]:9200", Index: "a,b"}},
		{arg: "es+https://es:9200", err: "no index pattern"},
		{arg: "loki+http://loki", err: "no port"},
		{arg: "loki+http://loki:3100/prefix", err: "has no path"},
		{arg: "loki+ftp://loki:3100", err: "want loki+http:// or loki+https://"},
		{arg: "graylog+http://g:9000", err: `unknown store "graylog"`},
		{arg: "loki+http://admin:pw@loki:3100", err: "credentials in the URL are not accepted"},
		{arg: "vlogs+http://h:9428?x=1", err: "no ?query"},
	} {
		got, err := Parse(tc.arg)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error %v, want %q", tc.arg, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "pw@") {
				t.Errorf("Parse(%q) error shows the password: %v", tc.arg, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tc.arg, got, err, tc.want)
		}
		if again, _ := Parse(got.String()); again != got {
			t.Errorf("Parse(%q).String() = %q does not round-trip", tc.arg, got.String())
		}
	}
}

func TestIsURL(t *testing.T) {
	for arg, want := range map[string]bool{
		"vlogs+http://h:1": true, "LOKI+HTTPS://h:1": true, "es+http://h:1/i": true, "opensearch+https://x": true,
		"kcm.log": false, "-": false, "http://h:1": false, "/tmp/loki+http://x": false, "foo+http://h": false,
	} {
		if IsURL(arg) != want {
			t.Errorf("IsURL(%q) = %v", arg, !want)
		}
	}
}

func TestParseSelectors(t *testing.T) {
	got, err := ParseSelectors([]string{`kcm={container="kube-controller-manager"}`, `kubelet=_SYSTEMD_UNIT:="kubelet.service"`})
	if err != nil || got["kcm"] != `{container="kube-controller-manager"}` || got["kubelet"] != `_SYSTEMD_UNIT:="kubelet.service"` {
		t.Errorf("%v %v", got, err)
	}
	for _, bad := range [][]string{{`{container="x"}`}, {"kcm="}, {"kcm=a", "kcm=b"}} {
		if _, err := ParseSelectors(bad); err == nil {
			t.Errorf("ParseSelectors(%q): no error", bad)
		}
	}
}

// TestPushdownTexts pins the generated filters (the token list is the
// classifier's; a new token changes these on purpose).
func TestPushdownTexts(t *testing.T) {
	if got, want := LogsQLFilter([]string{"disk-7x9qk2mz"}), `(*olume* OR *ttach* OR *etach* OR *Mount* OR *mount* OR *"No retries"* OR *"acquired lease"* OR *"Started \""* OR *serial* OR *diskId* OR *ZoneNotMatch* OR *evice* OR *"GRPC error"*) *"disk-7x9qk2mz"*`; got != want {
		t.Errorf("LogsQL\n got  %s\n want %s", got, want)
	}
	if got, want := LogQLFilter([]string{"disk-7x9qk2mz"}), `|= "olume" or "ttach" or "etach" or "Mount" or "mount" or "No retries" or "acquired lease" or "Started \"" or "serial" or "diskId" or "ZoneNotMatch" or "evice" or "GRPC error" |= "disk-7x9qk2mz"`; got != want {
		t.Errorf("LogQL\n got  %s\n want %s", got, want)
	}
	if got, want := ESQueryString([]string{"disk-7x9qk2mz"}), `(*olume* OR *ttach* OR *etach* OR *mount* OR (*no AND retries*) OR (*acquired AND lease*) OR *started OR *serial* OR *diskid* OR *zonenotmatch* OR *evice* OR (*grpc AND error*)) AND (*disk* AND *7x9qk2mz*)`; got != want {
		t.Errorf("ES\n got  %s\n want %s", got, want)
	}
}
