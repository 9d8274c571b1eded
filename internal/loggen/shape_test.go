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
