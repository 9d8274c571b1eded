// Package loggen generates large, realistic kube-controller-manager (and
// optionally kubelet) logs for benchmarks and end-to-end tests.
//
// The output is deterministic for a given Config (math/rand/v2 with a fixed
// PCG seed), streamed through a bufio.Writer in constant memory whatever the
// size, and shaped like a busy cluster: about 99% of the lines come from other
// controllers (events, replica sets, garbage collector, leader election,
// endpoint slices, node lifecycle, informers…), about 1% are healthy
// attach/detach traffic over tens of thousands of volumes, and a few incidents
// are planted at known times (see Manifest): the seed chain (ZoneNotMatch
// attach storm → attach elsewhere → late detach → device missing on the new
// node), a multi-attach resolved by a force detach, and a clean move that must
// produce no finding.
//
// The traffic shape (Shape) changes the volume traffic: the default pool
// above, a large cluster's churn (ShapeChurn: ~35k volumes per GiB, two
// events each), many nodes per volume (ShapeManyNodes), or the default
// traffic with an outage of the attach API that every attach in it retries
// until it ends (ShapeStorm; the manifest's Outage lists its volumes).
//
// Time advances monotonically from Config.Start; by default 1 GiB of log spans
// about a day (never less than two hours). Three line formats are supported
// (Era): klog printf of Kubernetes 1.19–1.21, contextual structured klog text
// of ≥1.28, and --logging-format=json.
//
// loggen owns no parsing: it only writes text. The manifest is the contract
// between the generator and whatever checks the analysis (Verify).
package loggen

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// Era selects the line format of the generated logs.
type Era string

// Supported eras.
const (
	Legacy     Era = "legacy"     // Kubernetes 1.19–1.21: printf volume lines, nestedpendingoperations.go:301 with %q errors
	Structured Era = "structured" // Kubernetes ≥1.28: contextual klog (logger=…), nestedpendingoperations.go:348 raw errors
	JSON       Era = "json"       // --logging-format=json (≥1.28): ts in epoch milliseconds
)

// Eras lists the supported eras.
var Eras = []Era{Legacy, Structured, JSON}

// DefaultStart is the first timestamp of a generated log.
var DefaultStart = time.Date(2024, 8, 12, 0, 0, 0, 0, time.UTC)

// GiB is 1<<30 bytes.
const GiB = 1 << 30

// Config says what to generate.
type Config struct {
	Size int64  // target size of the KCM log in bytes (the result is within a few KiB)
	Era  Era    // line format; empty means Legacy
	Seed uint64 // random seed; equal configs give identical bytes

	Shape Shape // traffic shape of the healthy volume lines; empty means ShapeDefault

	Start time.Time     // first timestamp; zero means DefaultStart
	Span  time.Duration // time covered; zero means 24h per GiB, at least 2h

	Volumes     int     // healthy volume pool; zero means 40000
	Nodes       int     // node pool; zero means 300
	VolumeShare float64 // share of KCM lines from reconciler.go/operation_generator.go/nestedpendingoperations.go; zero means 0.01

	// Kubelet, when set, receives the kubelet log of node B (the node of the
	// seed chain): its own noise, healthy mounts of volumes attached to B,
	// and the planted MountDevice failures.
	Kubelet      io.Writer
	KubeletShare float64 // kubelet bytes per KCM byte; zero means 1/32
}

// Manifest describes what was generated and which incidents were planted.
type Manifest struct {
	Schema       string     `json:"schema"` // "kcmgen/manifest/v1"
	Seed         uint64     `json:"seed"`
	Era          Era        `json:"era"`
	Shape        Shape      `json:"shape,omitempty"` // omitted for ShapeDefault
	Size         int64      `json:"size"`            // requested bytes
	Bytes        int64      `json:"bytes"`           // KCM bytes written
	Lines        int64      `json:"lines"`
	VolumeLines  int64      `json:"volume_lines"` // KCM lines from the three volume files
	KubeletBytes int64      `json:"kubelet_bytes,omitempty"`
	KubeletLines int64      `json:"kubelet_lines,omitempty"`
	Start        time.Time  `json:"start"`
	End          time.Time  `json:"end"`
	Lifecycles   int        `json:"healthy_lifecycles"` // healthy attach(/detach) cycles started
	Incidents    []Incident `json:"incidents"`
	// Outage is ShapeStorm's: the volumes whose attaches failed in it.
	Outage *Outage `json:"outage,omitempty"`
}

// Outage is ShapeStorm's outage of the attach API: from Start to End every
// attach failed (Code) and was retried until it was over.
type Outage struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Code  string    `json:"code"` // the cloud's error code the attaches failed with
	// Volumes are the volumes whose attaches failed (handles), each with
	// how many times (Failures[i] for Volumes[i]).
	Volumes  []string `json:"volumes"`
	Failures []int    `json:"failures"`
	// ExpectRule must have a finding on every volume that failed at least
	// ExpectFrom times (the rule's default min-failures); OtherRules may
	// have findings on any of them too (not counted as false positives).
	ExpectRule string   `json:"expect_rule"`
	ExpectFrom int      `json:"expect_from"`
	OtherRules []string `json:"other_rules"`
}

// Incident is one planted scenario.
type Incident struct {
	Name   string    `json:"name"` // seed-chain, multi-attach-force-detach, clean-move
	Volume string    `json:"volume"`
	PV     string    `json:"pv"`
	Handle string    `json:"handle"`
	Pod    string    `json:"pod"`
	Nodes  []string  `json:"nodes"` // in scenario order (old node first)
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	// ExpectRules must each produce a finding on this volume.
	ExpectRules []string `json:"expect_rules"`
	// ExpectNone: the volume must produce no finding at all.
	ExpectNone bool   `json:"expect_none,omitempty"`
	Note       string `json:"note"`
}

const (
	kcmPID     = 1
	kubeletPID = 2783
	adcLogger  = "persistentvolume-attach-detach-controller"
	cbsDriver  = "com.tencent.cloud.csi.cbs"
	csiPrefix  = "kubernetes.io/csi/" + cbsDriver + "^"
)

// stream is one output file.
type stream struct {
	w         *bufio.Writer
	pid       int
	bytes     int64
	lines     int64
	volLines  int64
	lastT     int64
	procStart int64
	kubelet   bool
}

type volume struct {
	pv, handle, unique string
	ns, pod            string
}

type gen struct {
	cfg    Config
	era    Era
	modern bool
	json   bool
	r      *rand.Rand // KCM randomness
	kr     *rand.Rand // kubelet-only randomness: the KCM log is the same with or without -kubelet

	kcm, kl    *stream
	start, end int64
	span       int64

	q   opHeap
	seq uint64

	e       entry
	line    []byte
	msg     []byte
	scratch []byte

	vols       []volume
	busy       []bool
	nodes      []string
	pendingVol int64
	lifecycles int

	stormBeg, stormEnd int64    // ShapeStorm's outage
	stormLines         int64    // volume lines of its failed attaches (not the healthy share)
	stormVols          []string // the volumes whose attaches failed in it (handles)…
	stormFails         []int    // …and how many times
	cycleN             uint64

	noiseCum   []float64
	kNoiseCum  []float64
	multiJSON  []byte
	incidents  []Incident
	nodeB      string
	writeErr   error
	errStreams int
}

// Generate writes a KCM log of about cfg.Size bytes to kcm (and the kubelet
// log of node B to cfg.Kubelet when set) and returns the manifest.
func Generate(kcm io.Writer, cfg Config) (*Manifest, error) {
	if cfg.Size <= 0 {
		return nil, errors.New("loggen: size must be positive")
	}
	switch cfg.Era {
	case "":
		cfg.Era = Legacy
	case Legacy, Structured, JSON:
	default:
		return nil, fmt.Errorf("loggen: unknown era %q (want legacy, structured or json)", cfg.Era)
	}
	if err := applyShape(&cfg); err != nil {
		return nil, err
	}
	if cfg.Start.IsZero() {
		cfg.Start = DefaultStart
	}
	if cfg.Span == 0 {
		cfg.Span = time.Duration(float64(24*time.Hour) * float64(cfg.Size) / GiB)
	}
	if cfg.Span < 2*time.Hour {
		cfg.Span = 2 * time.Hour
	}
	if cfg.Volumes <= 0 {
		cfg.Volumes = 40000
	}
	if cfg.Nodes < 8 {
		cfg.Nodes = 300
	}
	if cfg.VolumeShare <= 0 {
		cfg.VolumeShare = 0.01
	}
	if cfg.KubeletShare <= 0 {
		cfg.KubeletShare = 1.0 / 32
	}
	g := &gen{
		cfg:    cfg,
		era:    cfg.Era,
		modern: cfg.Era != Legacy,
		json:   cfg.Era == JSON,
		r:      rand.New(rand.NewPCG(cfg.Seed, 0x6b636d7472616365)), // "kcmtrace"
		kr:     rand.New(rand.NewPCG(cfg.Seed, 0x6b7562656c657421)), // "kubelet!"
		start:  cfg.Start.UnixNano(),
		span:   int64(cfg.Span),
	}
	g.end = g.start + g.span
	g.stormBeg = g.start + int64(stormFrom*float64(g.span))
	g.stormEnd = g.stormBeg + int64(stormShare*float64(g.span))
	g.kcm = &stream{w: bufio.NewWriterSize(kcm, 256<<10), pid: kcmPID, procStart: g.start - int64(312*time.Millisecond)}
	if cfg.Kubelet != nil {
		g.kl = &stream{w: bufio.NewWriterSize(cfg.Kubelet, 64<<10), pid: kubeletPID, procStart: g.start - int64(10*24*time.Hour) + int64(3*time.Hour), kubelet: true}
	}
	g.buildPools()
	g.buildNoiseTables()
	g.plant()
	g.startup()
	g.run()
	for _, s := range []*stream{g.kcm, g.kl} {
		if s != nil {
			if err := s.w.Flush(); err != nil && g.writeErr == nil {
				g.writeErr = err
			}
		}
	}
	if g.writeErr != nil {
		return nil, fmt.Errorf("loggen: write: %w", g.writeErr)
	}
	m := &Manifest{
		Schema:      "kcmgen/manifest/v1",
		Seed:        cfg.Seed,
		Era:         cfg.Era,
		Size:        cfg.Size,
		Bytes:       g.kcm.bytes,
		Lines:       g.kcm.lines,
		VolumeLines: g.kcm.volLines,
		Start:       cfg.Start.UTC(),
		End:         time.Unix(0, g.end).UTC(),
		Lifecycles:  g.lifecycles,
		Incidents:   g.incidents,
	}
	if cfg.Shape != ShapeDefault {
		m.Shape = cfg.Shape
	}
	if g.kl != nil {
		m.KubeletBytes, m.KubeletLines = g.kl.bytes, g.kl.lines
	}
	if cfg.Shape == ShapeStorm {
		m.Outage = &Outage{Start: ts(g.stormBeg), End: ts(g.stormEnd), Code: "RequestLimitExceeded",
			Volumes: g.stormVols, Failures: g.stormFails,
			ExpectRule: RuleAttachRetryStorm, ExpectFrom: 3, OtherRules: []string{RuleSlowAttach}}
	}
	return m, nil
}

// run is the main loop: the clock follows the bytes written, scheduled
// volume lines are flushed in time order before each noise line.
func (g *gen) run() {
	size := float64(g.cfg.Size)
	for g.kcm.bytes < g.cfg.Size && g.writeErr == nil {
		t := g.start + int64(float64(g.span)*float64(g.kcm.bytes)/size)
		if t < g.kcm.lastT {
			t = g.kcm.lastT
		}
		g.flush(t)
		g.maybeLifecycle(t)
		if g.kl != nil && float64(g.kl.bytes) < g.cfg.KubeletShare*float64(g.kcm.bytes) {
			g.kub(func() { g.kubeletNoise(t) })
		}
		g.noise(t)
	}
	g.flush(g.end)
}

// write renders the current entry to s at time t.
func (g *gen) write(s *stream, t int64) {
	if t < s.lastT {
		t = s.lastT // never go back in time within one stream
	}
	e := &g.e
	if g.json {
		g.line = appendJSON(g.line[:0], t, e)
	} else {
		g.line = appendText(g.line[:0], t, s.pid, e, g.modern)
	}
	g.line = append(g.line, '\n')
	if _, err := s.w.Write(g.line); err != nil && g.writeErr == nil {
		g.writeErr = err
	}
	s.bytes += int64(len(g.line))
	s.lines++
	s.lastT = t
	if !s.kubelet {
		switch e.file {
		case "reconciler.go", "operation_generator.go", "nestedpendingoperations.go":
			s.volLines++
		}
	}
}

// ---- scheduling -------------------------------------------------------------

type opKind uint8

const (
	opFunc opKind = iota
	opAttachStart
	opAttachOK
	opDetachStart
	opVerifySafe
	opDetachOK
	opKVerify
	opKCtrlAttached
	opKWaitOK
	opKMountDevOK
	opKSetupOK
	opKUnmountVol
	opKTeardownOK
	opKUnmountDevStart
	opKUnmountDevOK
	opKVolDetached
)

type op struct {
	at    int64
	seq   uint64
	kind  opKind
	vol   int32
	node  int32
	cycle uint64
	fn    func(at int64)
}

type opHeap []op

func (h opHeap) Len() int { return len(h) }
func (h opHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h opHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *opHeap) Push(x any)   { *h = append(*h, x.(op)) }
func (h *opHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (g *gen) schedule(o op) {
	g.seq++
	o.seq = g.seq
	heap.Push(&g.q, o)
}

// at schedules a planted line.
func (g *gen) at(t int64, fn func(at int64)) { g.schedule(op{at: t, kind: opFunc, fn: fn}) }

func (g *gen) flush(t int64) {
	for len(g.q) > 0 && g.q[0].at <= t {
		o := heap.Pop(&g.q).(op)
		g.do(o)
	}
}

func dur(d time.Duration) int64 { return int64(d) }

// uniform returns a random duration in [lo, hi).
func (g *gen) uniform(lo, hi time.Duration) int64 {
	return int64(lo) + g.r.Int64N(int64(hi-lo))
}

// maybeLifecycle starts a healthy attach→detach cycle when volume lines are
// behind their share.
func (g *gen) maybeLifecycle(now int64) {
	if !g.lifecycleDue() {
		return
	}
	ta := now + g.uniform(50*time.Millisecond, 2*time.Second)
	// CSI attach: the external-attacher round trip, usually a few seconds.
	attach := g.uniform(700*time.Millisecond, 3*time.Second)
	if g.r.IntN(10) == 0 {
		attach += g.uniform(2*time.Second, 25*time.Second)
	}
	ts := ta + attach
	if ts > g.end-dur(2*time.Minute) {
		return
	}
	vi := g.pickVolume()
	if vi < 0 {
		return
	}
	ni := g.r.IntN(len(g.nodes))
	g.busy[vi] = true
	g.lifecycles++
	g.cycleN++
	c := g.cycleN
	base := op{vol: int32(vi), node: int32(ni), cycle: c}
	sched := func(t int64, k opKind) {
		o := base
		o.at, o.kind = t, k
		g.schedule(o)
	}
	if g.inStorm(ta) {
		// the attaches fail until the outage is over; the next one succeeds
		ta = g.stormAttach(ta, &g.vols[vi], g.nodes[ni], g.podUID(base))
		ts = ta + attach
	}
	sched(ta, opAttachStart)
	sched(ts, opAttachOK)
	g.pendingVol += 2
	onB := g.kl != nil && g.nodes[ni] == g.nodeB
	if onB {
		g.kub(func() {
			tv := ta + g.uniform(0, time.Duration(attach))
			sched(tv, opKVerify)
			tc := ts + g.uniform(200*time.Millisecond, 1500*time.Millisecond)
			sched(tc, opKCtrlAttached)
			sched(tc+g.uniform(time.Millisecond, 20*time.Millisecond), opKWaitOK)
			tm := tc + g.uniform(300*time.Millisecond, 2*time.Second)
			sched(tm, opKMountDevOK)
			sched(tm+g.uniform(20*time.Millisecond, 200*time.Millisecond), opKSetupOK)
		})
	}
	if g.cfg.Shape == ShapeChurn {
		return // attached for good: two KCM volume lines per volume
	}
	// Pods live from minutes to many hours; some volumes stay attached past the end.
	hold := dur(2*time.Minute) + int64(g.r.ExpFloat64()*float64(50*time.Minute))
	td := ts + hold
	if td > g.end-dur(3*time.Minute) {
		return
	}
	if onB {
		g.kub(func() {
			tu := td - g.uniform(15*time.Second, 60*time.Second)
			sched(tu, opKUnmountVol)
			sched(tu+g.uniform(50*time.Millisecond, 300*time.Millisecond), opKTeardownOK)
			tud := tu + g.uniform(400*time.Millisecond, 900*time.Millisecond)
			sched(tud, opKUnmountDevStart)
			sched(tud+g.uniform(100*time.Millisecond, 800*time.Millisecond), opKUnmountDevOK)
		})
	}
	tv := td + g.uniform(5*time.Millisecond, 30*time.Millisecond)
	tok := td + g.uniform(1500*time.Millisecond, 12*time.Second)
	sched(td, opDetachStart)
	sched(tv, opVerifySafe)
	sched(tok, opDetachOK)
	g.pendingVol += 3
	if onB {
		g.kub(func() { sched(tok+g.uniform(500*time.Millisecond, 3*time.Second), opKVolDetached) })
	}
}

func (g *gen) do(o op) {
	if o.kind == opFunc {
		o.fn(o.at)
		return
	}
	v := &g.vols[o.vol]
	node := g.nodes[o.node]
	switch o.kind {
	case opAttachStart:
		g.pendingVol--
		g.attachStarted(o.at, v, node)
	case opAttachOK:
		g.pendingVol--
		g.attachSucceeded(o.at, v, node)
		g.podEvent(g.kcm, o.at+g.uniform(50*time.Microsecond, 400*time.Microsecond), v.ns, v.pod, g.podUID(o), "Normal", "SuccessfulAttachVolume",
			`AttachVolume.Attach succeeded for volume "`+v.pv+`" `)
	case opDetachStart:
		g.pendingVol--
		g.detachStarted(o.at, v, node)
	case opVerifySafe:
		g.pendingVol--
		g.verifiedSafe(o.at, v, node)
	case opDetachOK:
		g.pendingVol--
		g.detachSucceeded(o.at, v, node)
		g.busy[o.vol] = false
	case opKVerify:
		g.kVerifyStarted(o.at, v, g.podUID(o))
	case opKCtrlAttached:
		g.kControllerAttached(o.at, v, g.podUID(o), node)
	case opKWaitOK:
		g.kWaitForAttach(o.at, v, g.podUID(o), node)
	case opKMountDevOK:
		g.kMountDeviceOK(o.at, v, g.podUID(o))
	case opKSetupOK:
		g.kSetUpOK(o.at, v, g.podUID(o))
	case opKUnmountVol:
		g.kUnmountVolume(o.at, v, g.podUID(o))
	case opKTeardownOK:
		g.kTearDownOK(o.at, v, g.podUID(o))
	case opKUnmountDevStart:
		g.kUnmountDevice(o.at, v, node, false)
	case opKUnmountDevOK:
		g.kUnmountDevice(o.at, v, node, true)
	case opKVolDetached:
		g.kVolumeDetached(o.at, v, node)
	}
}

// kub runs f with the kubelet's random source, so that the KCM log does not
// depend on whether a kubelet log is written.
func (g *gen) kub(f func()) {
	r := g.r
	g.r = g.kr
	f()
	g.r = r
}

func (g *gen) podUID(o op) string { return hashUUID(g.cfg.Seed, uint64(o.vol), o.cycle) }

// ---- pools ------------------------------------------------------------------

func (g *gen) buildPools() {
	g.nodes = make([]string, 0, g.cfg.Nodes)
	g.nodes = append(g.nodes, nodeA, nodeB)
	g.nodeB = nodeB
	seen := map[string]bool{nodeA: true, nodeB: true, nodeC: true, nodeD: true, nodeE: true, nodeF: true}
	for len(g.nodes) < g.cfg.Nodes {
		n := g.nodeName()
		if !seen[n] {
			seen[n] = true
			g.nodes = append(g.nodes, n)
		}
	}
	g.vols = make([]volume, g.cfg.Volumes)
	g.busy = make([]bool, g.cfg.Volumes)
	for i := range g.vols {
		h := "disk-" + randString(g.r, lowerAlnum, 8)
		ns := pick(g.r, namespaces)
		sts := pick(g.r, apps) + "-" + randString(g.r, safeAlphabet, 4)
		g.vols[i] = volume{
			pv:     "pvc-" + randUUID(g.r),
			handle: h,
			unique: csiPrefix + h,
			ns:     ns,
			pod:    sts + "-" + itoa(g.r.IntN(3)),
		}
	}
}
