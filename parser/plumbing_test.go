package parser

import "github.com/kcmtrace/kcmtrace/parser/classifier"

// informerPlumbing is classifier's list of plumbing files as a set, for the
// references of the tests.
var informerPlumbing = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range classifier.InformerPlumbingFiles() {
		m[f] = true
	}
	return m
}()
