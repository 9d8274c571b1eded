package parser

import (
	"regexp"
	"testing"
)

var rwxKeyRE = regexp.MustCompile(`Operation for "\{volumeName:\S+ podName:\S* nodeName:[^}\s]`)

func rwxCases() []string {
	lead := `Operation for "{volumeName:`
	cases := []string{"", lead, lead + "kubernetes.io/csi/x^v podName: nodeName:}",
		lead + "kubernetes.io/csi/x^v podName: nodeName:node-1}",
		"x " + lead + "v podName:p nodeName:n} y",
		lead + " podName: nodeName:n}",
		lead + "v\tpodName: nodeName:n}",
		lead + "v podName:\tnodeName:n}",
		lead + "v podName: nodeName:\f",
		lead + "v podName: nodeName:",
		lead + "v podName: nodeName:\xff",
		lead + "v\xff podName:\xfe nodeName:é}",
		lead + "v podName: nodeName:} " + lead + "w podName: nodeName:n2}",
		lead + lead + "v podName: nodeName:n}",
		lead + "v podName:a b nodeName:n}",
		lead + "v  podName: nodeName:n}",
	}
	return cases
}

func TestHasRWXKeyMatchesRegexp(t *testing.T) {
	for _, c := range rwxCases() {
		if got, want := HasRWXKey(c), rwxKeyRE.MatchString(c); got != want {
			t.Errorf("HasRWXKey(%q) = %v, regexp says %v", c, got, want)
		}
	}
}

func FuzzHasRWXKey(f *testing.F) {
	for _, c := range rwxCases() {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := HasRWXKey(s), rwxKeyRE.MatchString(s); got != want {
			t.Errorf("HasRWXKey(%q) = %v, regexp says %v", s, got, want)
		}
	})
}
