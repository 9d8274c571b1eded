package parser

import (
	"os"
	"strings"
	"testing"
)

func TestMayMatterAgreesWithReference(t *testing.T) {
	lines := []string{"", "abc", "Volume", "olum", "xxolume", "No retries permitted", "successfully acquired lease kube-system/kcm",
		"count of accounts", "MountVolume", "can not find diskId disk-1 by serial", "Zone", "ZoneNotMatch"}
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(data), "\n")...)
	}
	for _, l := range lines {
		if got, want := mayMatter([]byte(l)), mayMatterSlow([]byte(l)); got != want {
			t.Errorf("mayMatter(%q) = %v, reference %v", l, got, want)
		}
	}
}

func FuzzMayMatter(f *testing.F) {
	f.Add([]byte("attach"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if mayMatter(b) != mayMatterSlow(b) {
			t.Fatalf("disagree on %q", b)
		}
	})
}
