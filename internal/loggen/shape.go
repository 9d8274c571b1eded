package loggen

import (
	"fmt"
	"time"
)

// Shape selects the traffic shape of the volume lines: how many volumes,
// how many nodes and how many events each volume gets, and (ShapeStorm)
// an outage their attaches retry through. The planted incidents and the
// noise are the same in every shape.
type Shape string

// Supported shapes.
const (
	// ShapeDefault: a pool of 40000 volumes and 300 nodes, about 1% of the
	// KCM lines are attach/detach traffic, each lifecycle attaches and (most
	// of the time) detaches again: ~9.5k volumes, ~63k events per GiB.
	ShapeDefault Shape = "default"
	// ShapeChurn is a large cluster's steady churn: tens of thousands of
	// volumes (churnPerGiB per GiB of KCM log), each attached once and never
	// detached — two healthy KCM volume lines per volume (started,
	// succeeded). It stresses everything that grows with the number of
	// volumes: the timeline's groups, the report's volumes[].
	ShapeChurn Shape = "churn"
	// ShapeManyNodes spreads the default traffic over manyNodes nodes and a
	// pool of only manyNodesVolumes volumes, so that each volume visits tens
	// of nodes over the span: it stresses what grows with the nodes of one
	// volume (per-node intervals, hand-overs).
	ShapeManyNodes Shape = "many-nodes"
	// ShapeStorm is the default traffic with an outage of the cloud's
	// attach API over a tenth of the span (stormFrom to stormFrom +
	// stormShare of it): every attach that starts in the outage fails with
	// a throttling error that carries a request id of its own, and the
	// controller retries it with its exponential backoff (500 ms doubling
	// to 2m2s) until the outage is over, when it succeeds — four lines an
	// attempt (the reconciler's attach started, the CSI attacher's error,
	// nestedpendingoperations' backoff, the FailedAttachVolume event), on
	// the ~1000 volumes a GiB attaches in that time. It is the shape of the
	// log an incident leaves, where the default shape is a quiet day's: it
	// stresses what grows with failures (distinct error texts, retries,
	// folded repeats, findings).
	ShapeStorm Shape = "storm"
)

// Shapes lists the supported shapes.
var Shapes = []Shape{ShapeDefault, ShapeChurn, ShapeManyNodes, ShapeStorm}

// The sizes of the shapes.
const (
	churnPerGiB      = 35000 // volumes (lifecycles) per GiB of KCM log in ShapeChurn
	manyNodes        = 5000
	manyNodesVolumes = 1000
	stormFrom        = 0.35 // ShapeStorm's outage starts this far into the span…
	stormShare       = 0.10 // …and lasts this share of it
)

// applyShape fills the shape's defaults into cfg (fields the caller set win)
// and reports an unknown shape.
func applyShape(cfg *Config) error {
	switch cfg.Shape {
	case "":
		cfg.Shape = ShapeDefault
	case ShapeDefault, ShapeStorm:
	case ShapeChurn:
		if cfg.Volumes <= 0 {
			cfg.Volumes = int(float64(churnPerGiB)*float64(cfg.Size)/GiB) + 16
		}
	case ShapeManyNodes:
		if cfg.Nodes <= 0 {
			cfg.Nodes = manyNodes
		}
		if cfg.Volumes <= 0 {
			cfg.Volumes = manyNodesVolumes
		}
	default:
		return fmt.Errorf("loggen: unknown shape %q (want default, churn, many-nodes or storm)", cfg.Shape)
	}
	return nil
}

// lifecycleDue says whether a new healthy lifecycle should start now: in
// ShapeChurn when the lifecycles are behind churnPerGiB per GiB written, in
// the other shapes when the volume lines are behind their share.
func (g *gen) lifecycleDue() bool {
	if g.cfg.Shape == ShapeChurn {
		want := float64(churnPerGiB) * float64(g.kcm.bytes) / GiB
		return float64(g.lifecycles) < want && g.lifecycles < len(g.vols)
	}
	want := g.cfg.VolumeShare * float64(g.kcm.lines+1)
	// (ShapeStorm's retries come on top of the healthy traffic)
	return float64(g.kcm.volLines-g.stormLines+g.pendingVol) < want
}

// inStorm reports whether an attach that starts at t fails in
// ShapeStorm's outage.
func (g *gen) inStorm(t int64) bool {
	return g.cfg.Shape == ShapeStorm && t >= g.stormBeg && t < g.stormEnd
}

// stormAttach plays the attaches of v to node that fail in the outage,
// from t (the first attempt), and returns when the attempt that succeeds
// starts: the first one the backoff lets start after the outage.
func (g *gen) stormAttach(t int64, v *volume, node, uid string) int64 {
	s, bo := t, 500*time.Millisecond
	g.stormVols = append(g.stormVols, v.handle)
	g.stormFails = append(g.stormFails, 0)
	throttled := func() string { return g.throttleErr(v.handle) }
	counted := func() { g.stormLines++ }
	for {
		g.stormFails[len(g.stormFails)-1]++
		f := g.failedAttempt(s, v, node, uid, bo, throttled, counted)
		s = f + int64(bo) + g.uniform(10*time.Millisecond, 100*time.Millisecond)
		if s >= g.stormEnd {
			return s
		}
		bo = nextBackoff(bo)
	}
}

// throttleErr is the error of an attach the cloud refused in the outage:
// its API's rate limit, with a request id of its own.
func (g *gen) throttleErr(handle string) string {
	core := "[TencentCloudSDKError] Code=RequestLimitExceeded, Message=Your current request times exceeds the frequency limit., RequestId=" + randUUID(g.r)
	if g.modern {
		return "rpc error: code = Aborted desc = attachVolume " + handle + " failed, err: [rpc error: code = Internal desc = " + core + "]"
	}
	return "rpc error: code = Internal desc = " + core
}

// pickVolume returns the volume of a new lifecycle, or -1 when none is free:
// in ShapeChurn the next never-used one, otherwise a random idle one.
func (g *gen) pickVolume() int {
	if g.cfg.Shape == ShapeChurn {
		return g.lifecycles
	}
	for try := 0; try < 8; try++ {
		i := g.r.IntN(len(g.vols))
		if !g.busy[i] {
			return i
		}
	}
	return -1
}

// nodeName draws a node address: 10.0.x.y for pools that fit (the default
// shape's 300), 10.a.x.y for ShapeManyNodes' thousands.
func (g *gen) nodeName() string {
	if g.cfg.Nodes <= 2000 {
		return "10.0." + itoa(1+g.r.IntN(12)) + "." + itoa(2+g.r.IntN(250))
	}
	return "10." + itoa(1+g.r.IntN(60)) + "." + itoa(1+g.r.IntN(12)) + "." + itoa(2+g.r.IntN(250))
}
