package classifier

import (
	"reflect"
	"strconv"
	"testing"
)

func TestParseStructured(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		wantMsg string
		wantKV  []kv
		wantOK  bool
	}{
		{name: "quoted and bare", in: `"Cleaned up" podUID=1d05 path="/var/lib"`, wantMsg: "Cleaned up",
			wantKV: []kv{{"podUID", "1d05"}, {"path", "/var/lib"}}, wantOK: true},
		{name: "escaped message", in: `"op for volume \"p\" " pod="ns/a"`, wantMsg: `op for volume "p" `,
			wantKV: []kv{{"pod", "ns/a"}}, wantOK: true},
		{name: "struct dump with blanks", in: `"m" volume={AttachedVolume:{VolumeName:v VolumeSpec:0xc0 NodeName:n} MountedByNode:false DetachRequestedTime:2024-08-12 03:14:10 +0000 UTC m=+1.5} next=1`,
			wantMsg: "m", wantKV: []kv{{"volume", "{AttachedVolume:{VolumeName:v VolumeSpec:0xc0 NodeName:n} MountedByNode:false DetachRequestedTime:2024-08-12 03:14:10 +0000 UTC m=+1.5}"}, {"next", "1"}}, wantOK: true},
		{name: "JSON with brackets in strings", in: `"m" volume={"a":"}{][","b":[1,2]} pods=["ns/a","ns/b"]`,
			wantMsg: "m", wantKV: []kv{{"volume", `{"a":"}{][","b":[1,2]}`}, {"pods", `["ns/a","ns/b"]`}}, wantOK: true},
		{name: "multi-line block", in: "\"m\" err=<\n\tline one\n\tline two\n > pod=\"ns/a\"",
			wantMsg: "m", wantKV: []kv{{"err", "line one\nline two"}, {"pod", "ns/a"}}, wantOK: true},
		{name: "duplicate keys and MISSING", in: `"m" duration="1h0m0s" duration="1m0s" x=(MISSING)`,
			wantMsg: "m", wantKV: []kv{{"duration", "1h0m0s"}, {"duration", "1m0s"}, {"x", "(MISSING)"}}, wantOK: true},
		{name: "truncated dump", in: `"m" volume={VolumeToAttach:{VolumeName:v ScheduledPods:[&Pod{ObjectMeta:{a b c ...`,
			wantMsg: "m", wantKV: []kv{{"volume", "{VolumeToAttach:{VolumeName:v ScheduledPods:[&Pod{ObjectMeta:{a b c ..."}}, wantOK: true},
		{name: "unterminated message", in: `"abc`, wantOK: false},
		{name: "printf", in: `abc "x"`, wantOK: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, kvs, ok := parseStructured(tc.in)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if msg != tc.wantMsg {
				t.Errorf("msg = %q, want %q", msg, tc.wantMsg)
			}
			if !reflect.DeepEqual(kvs, tc.wantKV) {
				t.Errorf("kvs = %q, want %q", kvs, tc.wantKV)
			}
		})
	}
	if v, _ := lookup([]kv{{"d", "1"}, {"d", "2"}}, "d"); v != "2" {
		t.Errorf("lookup: last duplicate must win, got %q", v)
	}
}

func TestListValues(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{`[10.0.3.15]`, []string{"10.0.3.15"}},
		{`["a","b"]`, []string{"a", "b"}},
		{`[ns/a ns/b]`, []string{"ns/a", "ns/b"}},
		{`[{"name":"mysql-0","namespace":"default"}]`, []string{"default/mysql-0"}},
		{`[]`, nil},
	}
	for _, tc := range cases {
		if got := listValues(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("listValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// readQuotedReference is readQuoted as first written: a byte-by-byte scan
// for the closing quote, and strconv.Unquote for every escaped string.
func readQuotedReference(s string) (string, int, bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", 0, false
	}
	esc := false
	for j := 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
			esc = true
		case '"':
			if !esc {
				return s[1:j], j + 1, true
			}
			if u, err := strconv.Unquote(s[:j+1]); err == nil {
				return u, j + 1, true
			}
			return s[1:j], j + 1, true
		}
	}
	return "", 0, false
}

func TestReadQuotedUnescapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{in: `"plain" rest`, want: `plain`},
		{in: `"say \"hi\"" k=v`, want: `say "hi"`},
		{in: `"tab\there\\ \u00e9 \x41 \101"`, want: "tab\there\\ é A A"},
		{in: `"bad \q escape"`, want: `bad \q escape`},
		{in: `"quote \' in double"`, want: `quote \' in double`},
		{in: "\"invalid \xff utf8 \\\"x\\\"\"", want: "invalid \ufffd utf8 \"x\""},
		{in: "\"newline\n\\\"x\\\"\"", want: "newline\n\\\"x\\\""},
		{in: `"ends in backslash\\" x`, want: `ends in backslash\`},
		{in: `"\\\"" x`, want: `\"`},
		{in: `""`, want: ``},
	} {
		got, _, ok := readQuoted(tc.in)
		if !ok || got != tc.want {
			t.Errorf("readQuoted(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
		if ref, _, _ := readQuotedReference(tc.in); ref != got {
			t.Errorf("readQuoted(%q) = %q; strconv.Unquote gives %q", tc.in, got, ref)
		}
	}
}

func FuzzReadQuoted(f *testing.F) {
	f.Add(`"waiting for a volume to be created, either by external provisioner \"com.tencent.cloud.csi.cbs\" or manually created"`)
	f.Add(`"a\\b\u00e9\x41\101\n\t" x`)
	f.Add("\"\xff\\\"\"")
	f.Add(`"unterminated \" x`)
	f.Add(`"trailing backslash\`)
	f.Add(`"a\\" "b"`)
	f.Fuzz(func(t *testing.T, s string) {
		got, n, ok := readQuoted(s)
		want, wn, wok := readQuotedReference(s)
		if got != want || n != wn || ok != wok {
			t.Fatalf("readQuoted(%q) = %q, %d, %v; with strconv.Unquote %q, %d, %v", s, got, n, ok, want, wn, wok)
		}
		// with an arena (Record.Arena), after what it holds already
		arena := []byte("before")
		ga, an, aok := readQuotedIn(s, &arena)
		if ga != want || an != wn || aok != wok || string(arena[:6]) != "before" {
			t.Fatalf("readQuotedIn(%q, arena) = %q, %d, %v; with strconv.Unquote %q, %d, %v", s, ga, an, aok, want, wn, wok)
		}
	})
}
