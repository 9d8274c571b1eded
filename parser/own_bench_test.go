package parser

import (
	"bytes"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

// churnDrafts classifies the candidate lines of size bytes of a generated
// churn log (legacy era, seed 1) and returns the events' results in order.
func churnDrafts(tb testing.TB, size int64) []emitResult {
	tb.Helper()
	var buf bytes.Buffer
	if _, err := loggen.Generate(&buf, loggen.Config{Size: size, Era: loggen.Legacy, Seed: 1, Shape: loggen.ShapeChurn}); err != nil {
		tb.Fatal(err)
	}
	var rs []emitResult
	for _, line := range bytes.Split(buf.Bytes(), []byte("\n")) {
		if !mayMatter(line) {
			continue
		}
		if r := klogEmit(line); r.ok {
			rs = append(rs, r)
		}
	}
	return rs
}

// BenchmarkOwnChurn files the events of 64 MiB of generated churn log,
// their names interned as addEvent interns them, into a new input each
// time round: ns/op is per event. own is all of it; filing is what is
// left to the filing goroutine of an event prepared ahead (ownPrepared).
func BenchmarkOwnChurn(b *testing.B) {
	rs := churnDrafts(b, 64<<20)
	for _, prepared := range []bool{false, true} {
		name := "own"
		if prepared {
			name = "filing"
			for i := range rs {
				rs[i].prepare()
			}
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var st *inputState
			i := len(rs)
			for b.Loop() {
				if i == len(rs) {
					st, i = &inputState{}, 0
				}
				d := rs[i].ev
				if prepared {
					st.ownPrepared(&d, rs[i].text, &rs[i].prep)
				} else {
					st.own(&d, rs[i].text)
				}
				i++
			}
		})
	}
}
