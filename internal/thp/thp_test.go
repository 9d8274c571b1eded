package thp

import (
	"strings"
	"testing"
)

func TestDisabled(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    bool
	}{
		{godebug: "", want: false},
		{godebug: "disablethp=1", want: true},
		{godebug: "gctrace=1, disablethp=1", want: true},
		{godebug: "disablethp=0", want: false},
		{godebug: "xdisablethp=1", want: false},
	} {
		if got := Disabled(tc.godebug); got != tc.want {
			t.Errorf("Disabled(%q) = %v, want %v", tc.godebug, got, tc.want)
		}
	}
}

func TestUsable(t *testing.T) {
	for _, tc := range []struct {
		enabled string
		want    bool
	}{
		{enabled: "always [madvise] never", want: true},
		{enabled: "[always] madvise never\n", want: true},
		{enabled: "always madvise [never]", want: false},
		{enabled: "always madvise [never]\n", want: false},
		{enabled: "", want: true},
	} {
		if got := Usable(tc.enabled); got != tc.want {
			t.Errorf("Usable(%q) = %v, want %v", tc.enabled, got, tc.want)
		}
	}
}

// fields splits at the separator, trims blanks and drops empty parts.
func TestFields(t *testing.T) {
	for _, tc := range []struct {
		s    string
		sep  byte
		want string
	}{
		{"always [madvise] never\n", ' ', "always|[madvise]|never"},
		{" a=1, b=2 ,,c\t", ',', "a=1|b=2|c"},
		{"", ',', ""},
		{"2097152\n", ' ', "2097152"},
	} {
		var got []string
		for f := range fields(tc.s, tc.sep) {
			got = append(got, f)
		}
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("fields(%q, %q) = %q, want %q", tc.s, tc.sep, s, tc.want)
		}
	}
}
