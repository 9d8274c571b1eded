package loggen

import (
	"bytes"
	"regexp"
	"testing"
)

func generateShape(t *testing.T, size int64, era Era, shape Shape) (generated, error) {
	t.Helper()
	return generateConfig(t, Config{Size: size, Era: era, Shape: shape, Seed: 5})
}

func generateConfig(t *testing.T, cfg Config) (generated, error) {
	t.Helper()
	var kcm, kl bytes.Buffer
	cfg.Kubelet = &kl
	m, err := Generate(&kcm, cfg)
	return generated{kcm.Bytes(), kl.Bytes(), m}, err
}

var (
	uniqueRe = regexp.MustCompile(`com\.tencent\.cloud\.csi\.cbs\^(disk-[a-z0-9]+)`)
	nodeRe   = regexp.MustCompile(`(?:node "|"nodeName"?[=:]"?|node="?)(10\.[0-9.]+)`)
)

// volumeStats counts, over the KCM volume lines, the lines per volume
// handle and the distinct nodes named.
func volumeStats(kcm []byte) (perVolume map[string]int, nodes map[string]bool) {
	perVolume, nodes = map[string]int{}, map[string]bool{}
	for _, l := range bytes.Split(kcm, []byte("\n")) {
		if !bytes.Contains(l, []byte("reconciler.go")) && !bytes.Contains(l, []byte("operation_generator.go")) {
			continue
		}
		if m := uniqueRe.FindSubmatch(l); m != nil {
			perVolume[string(m[1])]++
		}
		for _, m := range nodeRe.FindAllSubmatch(l, -1) {
			nodes[string(m[1])] = true
		}
	}
	return perVolume, nodes
}

func TestShapeChurn(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			const size = 4 << 20
			g, err := generateShape(t, size, era, ShapeChurn)
			if err != nil {
				t.Fatal(err)
			}
			if g.m.Shape != ShapeChurn || len(g.m.Incidents) != 3 {
				t.Fatalf("manifest shape %q, %d incidents", g.m.Shape, len(g.m.Incidents))
			}
			want := churnPerGiB * size / GiB
			if g.m.Lifecycles < want*9/10 || g.m.Lifecycles > want+1 {
				t.Errorf("%d lifecycles, want ≈%d", g.m.Lifecycles, want)
			}
			perVolume, _ := volumeStats(g.kcm)
			two := 0
			for _, n := range perVolume {
				if n == 2 {
					two++
				}
			}
			// every healthy volume: attach started + succeeded, nothing else
			if two < g.m.Lifecycles-3 {
				t.Errorf("%d volumes with exactly two volume lines, want ≥ %d (lifecycles)", two, g.m.Lifecycles-3)
			}
			d, _ := generateShape(t, size, era, ShapeDefault)
			if dv, _ := volumeStats(d.kcm); len(perVolume) < 2*len(dv) {
				t.Errorf("churn has %d volumes, default %d: want many more", len(perVolume), len(dv))
			}
		})
	}
}

func TestShapeManyNodes(t *testing.T) {
	// ten times the volume traffic, so that 8 MiB has ~1000 lifecycles
	g, err := generateConfig(t, Config{Size: 8 << 20, Shape: ShapeManyNodes, Seed: 5, VolumeShare: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	perVolume, nodes := volumeStats(g.kcm)
	if g.m.Lifecycles < 600 {
		t.Fatalf("only %d lifecycles", g.m.Lifecycles)
	}
	if len(nodes) < 400 {
		t.Errorf("%d distinct nodes in the volume lines, want > 300 (the default pool)", len(nodes))
	}
	if len(perVolume) > manyNodesVolumes+3 {
		t.Errorf("%d volumes, want ≤ %d", len(perVolume), manyNodesVolumes+3)
	}
	if g.m.Shape != ShapeManyNodes {
		t.Errorf("manifest shape %q", g.m.Shape)
	}
}

func TestShapeDefaultUnchanged(t *testing.T) {
	a, err := generateShape(t, 1<<20, Structured, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := generateShape(t, 1<<20, Structured, ShapeDefault)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.kcm, b.kcm) || a.m.Shape != "" || b.m.Shape != "" {
		t.Error("the empty shape and ShapeDefault differ, or the manifest names the default shape")
	}
	if _, err := generateShape(t, 1<<20, Legacy, "bogus"); err == nil {
		t.Error("unknown shape accepted")
	}
}

func TestShapeStorm(t *testing.T) {
	for _, era := range Eras {
		t.Run(string(era), func(t *testing.T) {
			g, err := generateShape(t, 8<<20, era, ShapeStorm)
			if err != nil {
				t.Fatal(err)
			}
			o := g.m.Outage
			if g.m.Shape != ShapeStorm || o == nil || len(g.m.Incidents) != 3 {
				t.Fatalf("manifest shape %q, outage %v, %d incidents", g.m.Shape, o, len(g.m.Incidents))
			}
			if len(o.Volumes) < 3 || len(o.Failures) != len(o.Volumes) || !o.End.After(o.Start) {
				t.Fatalf("outage %+v", o)
			}
			// every failure is one attempt of four lines, each naming the
			// throttling error but the reconciler's "started"
			failures := 0
			for _, n := range o.Failures {
				failures += n
			}
			errLines := bytes.Count(g.kcm, []byte("Code=RequestLimitExceeded"))
			if errLines != 3*failures {
				t.Errorf("%d lines with the error, want 3 per failure (%d failures)", errLines, failures)
			}
			ids := map[string]bool{} // (of the throttling errors: the seed chain's have ids too)
			for _, m := range regexp.MustCompile(`RequestLimitExceeded[^\n]*?RequestId=([0-9a-f-]{36})`).FindAllSubmatch(g.kcm, -1) {
				ids[string(m[1])] = true
			}
			if len(ids) != failures {
				t.Errorf("%d distinct request ids, want one per failure (%d)", len(ids), failures)
			}
			// the healthy traffic is the default shape's: the retries come
			// on top of its share of the lines (the file's size is the
			// same: they take some of the noise's room, and of its lines)
			d, _ := generateShape(t, 8<<20, era, ShapeDefault)
			if g.m.Lifecycles < d.m.Lifecycles*8/10 {
				t.Errorf("%d healthy lifecycles, the default shape %d", g.m.Lifecycles, d.m.Lifecycles)
			}
			if d.m.Outage != nil {
				t.Error("the default shape has an outage")
			}
		})
	}
}

func TestVerifyOutage(t *testing.T) {
	m := &Manifest{Outage: &Outage{Volumes: []string{"disk-a", "disk-b", "disk-c"}, Failures: []int{5, 1, 3},
		ExpectRule: RuleAttachRetryStorm, ExpectFrom: 3, OtherRules: []string{RuleSlowAttach}}}
	f := func(rule, handle string) ReportFinding {
		return ReportFinding{Rule: rule, Volume: csiPrefix + handle}
	}
	rep := &Report{Findings: []ReportFinding{f(RuleAttachRetryStorm, "disk-a"), f(RuleSlowAttach, "disk-b"), f(RuleMultiAttach, "disk-a")}}
	v := Verify(m, rep)
	if v.OK || len(v.Checks) != 1 || len(v.Checks[0].Missing) != 1 || v.Checks[0].Missing[0] != "attach-retry-storm on 1 volumes" {
		t.Fatalf("disk-c (3 failures) has no storm finding: %+v", v)
	}
	if v.Other[RuleMultiAttach] != 1 || v.Other[RuleSlowAttach] != 0 {
		t.Errorf("other findings %v: want the multi-attach only", v.Other)
	}
	rep.Findings = append(rep.Findings, f(RuleAttachRetryStorm, "disk-c"))
	if v := Verify(m, rep); !v.OK {
		t.Errorf("every volume that failed 3 times has its finding: %+v", v)
	}
}
