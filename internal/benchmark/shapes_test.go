package benchmark

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/rules"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// TestShapesFound runs the whole pipeline over a small generated log of
// every traffic shape in every era and checks that every planted incident
// is found and that the healthy traffic yields no finding.
func TestShapesFound(t *testing.T) {
	for _, shape := range loggen.Shapes {
		for _, era := range loggen.Eras {
			t.Run(string(shape)+"/"+string(era), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				kcmPath, klPath := filepath.Join(dir, "kcm.log"), filepath.Join(dir, "kubelet.log")
				kcm, err := os.Create(kcmPath)
				if err != nil {
					t.Fatal(err)
				}
				kl, err := os.Create(klPath)
				if err != nil {
					t.Fatal(err)
				}
				m, err := loggen.Generate(kcm, loggen.Config{Size: 3 << 20, Era: era, Shape: shape, Seed: 2, Kubelet: kl})
				kcm.Close()
				kl.Close()
				if err != nil {
					t.Fatal(err)
				}
				results, errs := parser.ParseAll([]string{kcmPath, klPath}, parser.Options{})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				res, err := rules.Run(timeline.Build(results, timeline.Options{}), rules.Config{})
				if err != nil {
					t.Fatal(err)
				}
				rep := &loggen.Report{}
				for _, f := range res.Findings {
					rep.Findings = append(rep.Findings, loggen.ReportFinding{Rule: f.Rule, Volume: f.Volume, PV: f.PV})
				}
				v := loggen.Verify(m, rep)
				for _, c := range v.Checks {
					if !c.OK {
						t.Errorf("incident %s: found %v, missing %v, unexpected %v", c.Incident, c.Found, c.Missing, c.Extra)
					}
				}
				if len(v.Other) > 0 {
					t.Errorf("findings on healthy volumes: %v", v.Other)
				}
			})
		}
	}
}
