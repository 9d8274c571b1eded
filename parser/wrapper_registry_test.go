package parser

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestWrapperClaims holds every registered wrapper to what it claims, which
// the fast path relies on (claimedBy): each line of every test input that a
// wrapper's decoder takes (or marks broken) starts with one of its firsts
// and passes its claims test.
func TestWrapperClaims(t *testing.T) {
	lines := [][]byte{[]byte(`{"log":"x`), []byte("Jun  7 05:19:34 host kubelet[1]: x"),
		[]byte("7/29/2016 7:38:17 PME0729 17:38:17.1 1 a.go:1] x"), []byte("2024-08-12T03:14:11.301223Z stderr F x")}
	for _, f := range testInputs(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	for _, f := range wrapperFixtures(t) {
		lines = append(lines, bytes.Split(f.data, []byte("\n"))...)
	}
	taken := make([]int, numWraps)
	for _, line := range lines {
		if len(line) == 0 {
			continue
		}
		for k := wrapJournald; k < numWraps; k++ {
			var u unwrapper
			var out unwrapped
			if !wrappers[k].decode(&u, line, &out) && !out.broken {
				continue
			}
			taken[k]++
			if !strings.Contains(wrappers[k].firsts, string(line[:1])) || !wrappers[k].claims(line) {
				t.Errorf("%s decodes %q but does not claim it", wrapNames[k], line)
			}
		}
	}
	for k := wrapJournald; k < numWraps; k++ {
		if taken[k] == 0 {
			t.Errorf("no test line for %s", wrapNames[k])
		}
	}
}

// TestClaimedBy checks the registry's answers that the fast path's proofs
// stand on: only docker-json claims a line starting with "{", nothing but
// journald one starting with a month name, a CRI line is no UI line, and
// no wrapper claims what the envelopes read (aws logs tail, logcli).
func TestClaimedBy(t *testing.T) {
	for _, c := range []struct {
		line string
		k    wrapKind
		want bool
	}{
		{`{"ts":1,"msg":"x"}`, wrapNone, false},
		{`{"log":"x\n"}`, wrapNone, true},
		{"Jun  7 05:19:34 host kubelet[1]: x", wrapJournald, false},
		{"2024-08-12T03:14:11.301223Z stderr F x", wrapCRI, false},
		{"2024-08-12T03:14:11.301223Z stderr F x", wrapKubectlTS, false},
		{"7/29/2016 7:38:17 PM x", wrapCRI, true},
		{"Aug 12 03:14:11.301223 host kubelet[1]: x", wrapJournald, false},
		{"Mon 2024-08-12 03:14:11 UTC host kubelet.service[1]: x", wrapJournald, false},
		{"1723432451.301223 host kubelet[1]: x", wrapCRI, true},
		{"[pod-1] I0812 03:10:00.612388 1 r.go:1] m", wrapNone, true},
		{"│ Events: │", wrapNone, true},
		// the envelopes' lines (parser/envelope: cloudwatch tail-detailed,
		// loki logcli default) are no wrapper's, so detection gets them
		{"2024-08-12T03:10:00.612000+00:00 kube-controller-manager-1234567890abcdef01234567890abcde I0812 11:10:00.612388 1 r.go:1] m", wrapNone, false},
		{"2024-08-12T03:10:00 I0812 11:10:00.612388 1 r.go:1] m", wrapNone, false},
		{`2024-08-12T03:10:00Z {container="kube-controller-manager", namespace="kube-system"} I0812 11:10:00.612388 1 r.go:1] m`, wrapNone, false},
	} {
		if got := claimedBy([]byte(c.line), c.k); got != c.want {
			t.Errorf("claimedBy(%q, %s) = %v, want %v", c.line, wrapNames[c.k], got, c.want)
		}
	}
}
