package textdist

import "testing"

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{a: "", b: "", want: 0},
		{a: "multi-attach", b: "multi-attach", want: 0},
		{a: "multi-atach", b: "multi-attach", want: 1},
		{a: "atach-before-detach", b: "attach-before-detach", want: 1},
		{a: "kitten", b: "sitting", want: 3},
		{a: "节点", b: "节点a", want: 1},
	} {
		if got := Levenshtein(tc.a, tc.b); got != tc.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestSubstring(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{a: "7x9qk2mz", b: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz", want: 0},
		{a: "7x9qk2mx", b: "kubernetes.io/csi/com.tencent.cloud.csi.cbs^disk-7x9qk2mz", want: 1},
		{a: "", b: "anything", want: 0},
		{a: "zzzz", b: "ab", want: 4},
	} {
		if got := Substring(tc.a, tc.b); got != tc.want {
			t.Errorf("Substring(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
