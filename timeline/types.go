package timeline

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
)

// State is the attach/detach controller's belief about one (volume, node) pair,
// or a kubelet-side fact about it: a closed set, one byte (an Interval
// holds one; a large cluster has two intervals a volume), named by String
// ("attached", "mount-failing", …), which is also its text form (JSON,
// reports). The zero State is none ("").
type State uint8

// Controller-side states (the attach/detach controller's actual state of world).
const (
	Attaching State = iota + 1 // AttachVolume started, no result yet
	Attached                   // attach confirmed
	Uncertain                  // last attach (or, ≥1.28, detach) failed: still in ASW, skipped by the multi-attach check, detached later
	Detaching                  // DetachVolume started, no result yet
	Detached                   // detach succeeded, or marked detached by verification
)

// Kubelet-side states, kept in Volume.Kubelet.
const (
	Mounting     State = iota + Detached + 1 // VerifyControllerAttached / MountVolume started
	Mounted                                  // MountDevice / SetUp succeeded
	MountFailing                             // MountDevice / SetUp / WaitForAttach failing
	Unmounted
)

// stateNames are the States' names, by State.
var stateNames = [...]string{
	Attaching: "attaching", Attached: "attached", Uncertain: "uncertain", Detaching: "detaching", Detached: "detached",
	Mounting: "mounting", Mounted: "mounted", MountFailing: "mount-failing", Unmounted: "unmounted",
}

// String is the state's name ("" for none, "state(N)" for a byte no
// State is).
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// MarshalText is the state's name, so that a State is a string in JSON.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Interval is one stretch of one state on one node, from Start to End
// (zero: still open when the logs end).
type Interval struct {
	Node string
	From int32 // index into Volume.Events of the event that opened it; -1 if none
	To   int32 // index of the event that closed it; -1 if none
	// The times: those of the events From and To of *evs (To < 0: open)
	// for the intervals Build reconstructs, which need not hold them
	// (a large cluster's volumes have hundreds of thousands). Given times
	// (NewInterval, SetTimes) are the interval's own: *evs is then two
	// events of those times from input ownInput (ownTimes), which no
	// volume's events are, so that the interval needs no second pointer
	// (and reflect.DeepEqual still compares the times).
	evs   *[]parser.Event
	State State
}

// ownInput is the input of the events that hold an interval's own times:
// no input's index.
const ownInput = -2

// ownTimes is the evs of an interval of its own times (see Interval).
func ownTimes(start, end time.Time) *[]parser.Event {
	own := make([]parser.Event, 2)
	own[0].Time, own[1].Time = parser.StampOf(start), parser.StampOf(end)
	own[0].Source.Input, own[1].Source.Input = ownInput, ownInput
	return &own
}

// NewInterval is an interval with the given times (end zero: open).
func NewInterval(node string, s State, start, end time.Time, from, to int32) Interval {
	return Interval{Node: node, State: s, From: from, To: to, evs: ownTimes(start, end)}
}

// Start is when the interval began.
func (iv Interval) Start() time.Time { return iv.at(0, iv.From) }

// End is when the interval ended, zero while it is still open when the
// logs end.
func (iv Interval) End() time.Time { return iv.at(1, iv.To) }

// at is the own time k when given, else the time of event ev (-1: zero).
func (iv Interval) at(k int, ev int32) time.Time {
	if iv.evs == nil {
		return time.Time{}
	}
	switch evs := *iv.evs; {
	case len(evs) == 2 && evs[0].Source.Input == ownInput:
		return evs[k].Time.UTC()
	case ev >= 0:
		return evs[ev].Time.UTC()
	}
	return time.Time{}
}

// SetTimes gives the interval its own start and end.
func (iv *Interval) SetTimes(start, end time.Time) { iv.evs = ownTimes(start, end) }

// Overlap is a stretch during which the controller believed the volume
// attached, attaching or possibly attached (uncertain) on more than one node.
type Overlap struct {
	Start  time.Time
	End    time.Time // zero: open at the end of the logs
	Nodes  []string  // sorted
	States map[string]State
}

// Volume is one volume under every name it was seen with. Its slices
// may share memory with other volumes' (Events and Intervals are windows
// of larger arrays; volumes seen on one node alone share one Nodes):
// replace them, never write into them.
type Volume struct {
	UniqueName string
	PV         string
	Handle     string
	// lists are three lists in one window (one slice header, not three,
	// and one cut from the slabs the volumes' strings are cut from):
	//   - lists[:nodesAt], the volume's Names but for UniqueName, PV and
	//     Handle where they are among them (namePos says where): most
	//     volumes' names are those three and a VolumeAttachment name, so
	//     that a large cluster's volumes do not hold three of their four
	//     names twice;
	//   - lists[nodesAt:podsAt], the Nodes;
	//   - lists[podsAt:], the Pods.
	lists     []string
	Events    []parser.Event
	Intervals []Interval // controller view, per node, in time order
	// The span (First, Last): the times of Events[first-1] and
	// Events[last-1] (0: zero) as Build finds them, or rare.span when
	// given (SetSpan).
	first, last int32
	// where the nodes and the pods start in lists
	nodesAt, podsAt int32
	// rare holds what few volumes have (Kubelet, Overlaps, Objects, a
	// given span): nil for most, so that a large cluster's many plain
	// volumes do not each carry three empty slices and a pointer. It is
	// never written through: the setters replace it, so a copy of a
	// Volume can be changed on its own.
	rare *volumeRare
	// vaNodes, when not 0, holds the VolumeAttachment names computed for
	// the volume's UniqueName on its nodes, which are then not in lists
	// but made when asked (computedAttachments): bit i for Nodes()[i].
	// A large cluster's volumes each have one (4 GiB of churn: 140k
	// names, 9 MB at the build's peak, that only the report reads).
	vaNodes uint64
	// keyBy says which name is the Key (SetKey)
	keyBy   keyName
	namePos namePos
	Multi   bool // legitimately attached to many nodes (RWX/ROX evidence)
}

// namePos is where in a Volume's Names its UniqueName, PV and Handle
// are, position+1 (0: not there, or past maxNamePos).
type namePos [3]uint8

const maxNamePos = 254

// Nodes are the nodes the volume was seen on, sorted (a window of the
// volume's lists: capped, so that an append copies; never write into it).
func (v *Volume) Nodes() []string { return v.lists[v.nodesAt:v.podsAt:v.podsAt] }

// Pods are the pods that used the volume, sorted ("ns/name", or "name"
// when no namespaced form of it is known), a window as Nodes is.
func (v *Volume) Pods() []string { return v.lists[v.podsAt:len(v.lists):len(v.lists)] }

// names is the first of the volume's lists (see lists).
func (v *Volume) names() []string { return v.lists[:v.nodesAt:v.nodesAt] }

// SetNodes gives the volume its nodes (Nodes): sorted, as Build gives
// them. The lists are copied.
func (v *Volume) SetNodes(nodes []string) {
	if v.vaNodes != 0 { // the names computed on the nodes it had become names of its own
		v.SetNames(v.Names())
	}
	v.setLists(v.names(), nodes, v.Pods())
}

// SetPods gives the volume its pods (Pods), as SetNodes its nodes.
func (v *Volume) SetPods(pods []string) { v.setLists(v.names(), v.Nodes(), pods) }

// setLists makes the volume's lists of names (see lists), nodes and pods
// one new window.
func (v *Volume) setLists(names, nodes, pods []string) {
	v.lists, v.nodesAt, v.podsAt = joinLists(nil, names, nodes, pods)
}

// joinLists appends names, nodes and pods to dst (empty) and returns it
// with where the nodes and the pods start.
func joinLists(dst, names, nodes, pods []string) (lists []string, nodesAt, podsAt int32) {
	if len(names)+len(nodes)+len(pods) == 0 {
		return nil, 0, 0
	}
	dst = slices.Grow(dst, len(names)+len(nodes)+len(pods))
	dst = append(dst, names...)
	nodesAt = int32(len(dst))
	dst = append(dst, nodes...)
	podsAt = int32(len(dst))
	return append(dst, pods...), nodesAt, podsAt
}

// Names are the names linked into the volume (UniqueName, PV, handle,
// VolumeAttachment names, pod volume names), sorted by Build: those
// SetNames gave, in their order, the volume's UniqueName, PV and Handle
// where SetNames found them (changing one of those later changes Names
// with it, as it does the Key), and the VolumeAttachment names Build
// computed for its UniqueName on its Nodes, which are made when asked
// (they follow the UniqueName too; SetNames and SetNodes make them names
// of the volume's own). A volume whose names are none of these returns
// its own slice; others a new one.
func (v *Volume) Names() []string {
	if v.namePos == (namePos{}) && v.vaNodes == 0 {
		return v.names()
	}
	return v.AppendNames(make([]string, 0, len(v.names())+v.namePos.count()+bits.OnesCount64(v.vaNodes)))
}

// AppendNames appends the volume's Names to dst: what Names returns,
// without making a slice of them (a renderer's scratch takes them).
func (v *Volume) AppendNames(dst []string) []string { return v.AppendNamesIn(dst, nil) }

// AppendNamesIn is AppendNames with the computed VolumeAttachment names
// (see Attachments) written in *room, grown when it is short, instead of
// memory of their own: a renderer reuses one room for every volume, the
// names it got valid until it passes the room again. A nil room makes
// new memory.
func (v *Volume) AppendNamesIn(dst []string, room *[]byte) []string {
	if v.vaNodes == 0 {
		return v.appendListed(dst)
	}
	// the computed VolumeAttachment names among the others, sorted, each
	// once (an event may have given one of them)
	start := len(dst)
	dst = v.computedAttachments(v.appendListed(dst), room)
	slices.Sort(dst[start:])
	return dst[:start+len(slices.Compact(dst[start:]))]
}

// computedAttachments appends the VolumeAttachment names vaNodes holds,
// in *room (see AppendNamesIn), or memory of their own when room is nil.
func (v *Volume) computedAttachments(dst []string, room *[]byte) []string {
	const n = state.AttachmentNameLen
	driver, handle, _ := ParseUniqueName(v.UniqueName)
	nodes := v.Nodes()
	size := bits.OnesCount64(v.vaNodes) * n
	var buf []byte
	if room == nil || cap(*room) < size {
		buf = make([]byte, size)
		if room != nil {
			*room = buf
		}
	} else {
		buf = (*room)[:size]
	}
	for m := v.vaNodes; m != 0; m &= m - 1 {
		name := (*[n]byte)(buf[:n])
		state.PutAttachmentName(name, handle, driver, nodes[bits.TrailingZeros64(m)])
		dst = append(dst, unsafe.String(&name[0], n))
		buf = buf[n:]
	}
	return dst
}

// HasName reports whether n is one of the volume's Names, without
// computing any name unless n has the form of a computed one.
func (v *Volume) HasName(n string) bool {
	if n == "" {
		return false
	}
	if slices.Contains(v.names(), n) {
		return true
	}
	for i, f := range [...]string{v.UniqueName, v.PV, v.Handle} {
		if v.namePos[i] > 0 && f == n {
			return true
		}
	}
	return v.vaNodes != 0 && isAttachmentName(n) && slices.Contains(v.computedAttachments(nil, nil), n)
}

// appendListed appends the names of the volume's lists, with UniqueName,
// PV and Handle where they were among them (namePos): its Names but for
// the VolumeAttachment names vaNodes holds.
func (v *Volume) appendListed(dst []string) []string {
	names := v.names()
	if v.namePos == (namePos{}) {
		return append(dst, names...)
	}
	fields := [...]string{v.UniqueName, v.PV, v.Handle}
	total := len(names) + v.namePos.count()
	j := 0
	for p := 1; p <= total; p++ {
		if i := slices.Index(v.namePos[:], uint8(p)); p <= maxNamePos+1 && i >= 0 {
			dst = append(dst, fields[i])
		} else {
			dst = append(dst, names[j])
			j++
		}
	}
	return dst
}

func (n namePos) count() int {
	c := 0
	for _, p := range n {
		if p > 0 {
			c++
		}
	}
	return c
}

// SetNames gives the volume its names (Names): set UniqueName, PV and
// Handle first. The names are copied (into the volume's lists, with its
// nodes and pods).
func (v *Volume) SetNames(names []string) {
	var pos namePos
	if pos = namePositions(names, v.UniqueName, v.PV, v.Handle); pos != (namePos{}) {
		names = dropPositions(make([]string, 0, len(names)-pos.count()), names, pos)
	}
	v.setLists(names, v.Nodes(), v.Pods())
	v.namePos, v.vaNodes = pos, 0
}

// namePositions finds fields (UniqueName, PV, Handle) among names: each
// at the first position the ones before it did not take, within
// maxNamePos.
func namePositions(names []string, fields ...string) namePos {
	var pos namePos
	for i, f := range fields {
		if f == "" {
			continue
		}
		for j, n := range names[:min(len(names), maxNamePos+1)] {
			if n == f && !slices.Contains(pos[:], uint8(j+1)) {
				pos[i] = uint8(j + 1)
				break
			}
		}
	}
	return pos
}

// dropPositions appends to dst the names not at pos.
func dropPositions(dst, names []string, pos namePos) []string {
	for j, n := range names {
		if !slices.Contains(pos[:], uint8(j+1)) || j > maxNamePos {
			dst = append(dst, n)
		}
	}
	return dst
}

// keyName is the field a Volume's Key is: most volumes' is one of their
// names, so that a large cluster's volumes do not each hold it twice.
type keyName uint8

const (
	keyNone   keyName = iota // ""
	keyUnique                // UniqueName
	keyPV                    // PV
	keyHandle                // Handle
	keyOwn                   // rare.key
)

// Key is the volume's stable identity: its UniqueName when known, else
// the best other name.
func (v *Volume) Key() string {
	switch v.keyBy {
	case keyUnique:
		return v.UniqueName
	case keyPV:
		return v.PV
	case keyHandle:
		return v.Handle
	case keyOwn:
		return v.rare.key
	}
	return ""
}

// SetKey makes k the volume's Key: the name among UniqueName, PV and
// Handle (in that order) that equals k, which the Key then follows, or k
// itself. Set the names first.
func (v *Volume) SetKey(k string) {
	by := keyOwn
	switch k {
	case "":
		by = keyNone
	case v.UniqueName:
		by = keyUnique
	case v.PV:
		by = keyPV
	case v.Handle:
		by = keyHandle
	}
	v.keyBy = by
	if by == keyOwn || v.rare != nil && v.rare.key != "" { // most volumes: no side record to touch
		v.setRare(func(r *volumeRare) {
			r.key = ""
			if by == keyOwn {
				r.key = k
			}
		})
	}
}

// Driver is the volume's driver ("com.tencent.cloud.csi.cbs",
// "kubernetes.io/aws-ebs", …): the one SetDriver gave, else its
// UniqueName's.
func (v *Volume) Driver() string {
	if v.rare != nil && v.rare.driver != "" {
		return v.rare.driver
	}
	d, _, _ := ParseUniqueName(v.UniqueName)
	return d
}

// SetDriver gives the volume a driver other than its UniqueName's ("":
// its UniqueName's).
func (v *Volume) SetDriver(d string) {
	if own, _, _ := ParseUniqueName(v.UniqueName); d == own {
		d = ""
	}
	if d != "" || v.rare != nil && v.rare.driver != "" {
		v.setRare(func(r *volumeRare) { r.driver = d })
	}
}

// First is the time of the volume's earliest event with a time.
func (v *Volume) First() time.Time { return v.spanAt(0, v.first) }

// Last is the time of the volume's latest event with a time.
func (v *Volume) Last() time.Time { return v.spanAt(1, v.last) }

// spanAt is the given span's time k when there is one, else the time of
// Events[ev-1] (0: zero).
func (v *Volume) spanAt(k int, ev int32) time.Time {
	switch {
	case v.rare != nil && v.rare.span != nil:
		return v.rare.span[k]
	case ev > 0:
		return v.Events[ev-1].Time.UTC()
	}
	return time.Time{}
}

// SetSpan gives the volume its own First and Last.
func (v *Volume) SetSpan(first, last time.Time) {
	v.first, v.last = 0, 0
	v.setRare(func(r *volumeRare) { r.span = &[2]time.Time{first, last} })
}

// Attachments are the VolumeAttachment names seen or computed: those of
// Names (a window of it when they are consecutive there, as they mostly
// are), unless given (SetAttachments: Build does when they are not
// consecutive, or when the cluster state names more).
func (v *Volume) Attachments() []string {
	if v.rare != nil && v.rare.ownAttachments {
		return v.rare.attachments
	}
	// UniqueName, PV and Handle are not VolumeAttachment names but for one
	// of that form, and the names computed when asked are not in lists
	full := v.vaNodes != 0
	for i, f := range [...]string{v.UniqueName, v.PV, v.Handle} {
		full = full || v.namePos[i] > 0 && isAttachmentName(f)
	}
	names := v.names()
	if full {
		names = v.Names()
	}
	a, _ := attachmentsOf(names, nil)
	return a
}

// AttachmentsIn is Attachments for a caller that has the volume's Names
// already (names: what Names or AppendNames gave), so that the names
// computed on demand are not computed again: a window of names (capped)
// when they are consecutive there.
func (v *Volume) AttachmentsIn(names []string) []string {
	if v.rare != nil && v.rare.ownAttachments {
		return v.rare.attachments
	}
	a, _ := attachmentsOf(names, nil)
	return a
}

// SetAttachments replaces the VolumeAttachment names.
func (v *Volume) SetAttachments(a []string) {
	v.setRare(func(r *volumeRare) { r.attachments, r.ownAttachments = a, true })
}

// attachmentsOf returns the VolumeAttachment names among names (sorted):
// a window of names (capped: an append copies) when they are consecutive
// there, else a copy (in tmp's array when it has room; tmp is empty).
func attachmentsOf(names, tmp []string) (a []string, window bool) {
	lo, hi, n := -1, -1, 0
	for i, s := range names {
		if isAttachmentName(s) {
			if lo < 0 {
				lo = i
			}
			hi = i + 1
			n++
		}
	}
	switch {
	case n == 0:
		return nil, false
	case hi-lo == n:
		return names[lo:hi:hi], true
	}
	for _, s := range names[lo:hi] {
		if isAttachmentName(s) {
			tmp = append(tmp, s)
		}
	}
	return tmp, false
}

// isAttachmentName reports whether s has the form of a computed
// VolumeAttachment name: "csi-" and 64 hex digits.
func isAttachmentName(s string) bool {
	return len(s) == state.AttachmentNameLen && strings.HasPrefix(s, "csi-")
}

// volumeRare is the part of a Volume most volumes do not have.
type volumeRare struct {
	kubelet  []Interval
	overlaps []Overlap
	objects  []Object
	span     *[2]time.Time // given by SetSpan
	// attachments when given (ownAttachments; see Attachments)
	attachments    []string
	ownAttachments bool
	// key when the Key is none of the volume's names (SetKey), driver
	// when given (SetDriver)
	key, driver string
}

// Kubelet is the kubelet view, per node, in time order.
func (v *Volume) Kubelet() []Interval {
	if v.rare == nil {
		return nil
	}
	return v.rare.kubelet
}

// Overlaps are the stretches during which more than one node held the
// volume (see Overlap), in time order.
func (v *Volume) Overlaps() []Overlap {
	if v.rare == nil {
		return nil
	}
	return v.rare.overlaps
}

// Objects are the cluster-state objects about the volume (PV, claim,
// VolumeAttachments, pods), when Options.State was given.
func (v *Volume) Objects() []Object {
	if v.rare == nil {
		return nil
	}
	return v.rare.objects
}

// SetKubelet replaces the kubelet view.
func (v *Volume) SetKubelet(iv []Interval) { v.setRare(func(r *volumeRare) { r.kubelet = iv }) }

// SetOverlaps replaces the overlaps.
func (v *Volume) SetOverlaps(o []Overlap) { v.setRare(func(r *volumeRare) { r.overlaps = o }) }

// SetObjects replaces the cluster-state objects.
func (v *Volume) SetObjects(o []Object) { v.setRare(func(r *volumeRare) { r.objects = o }) }

// setRare applies set to a copy of v.rare and keeps the copy, or nil when
// it holds nothing.
func (v *Volume) setRare(set func(*volumeRare)) {
	var r volumeRare
	if v.rare != nil {
		r = *v.rare
	}
	set(&r)
	if r.kubelet == nil && r.overlaps == nil && r.objects == nil && r.span == nil && !r.ownAttachments && r.key == "" && r.driver == "" {
		v.rare = nil
		return
	}
	v.rare = &r
}

// Restart marks a point after which the controller's memory was rebuilt.
type Restart struct {
	Time   time.Time
	Source parser.Source
	Reason string // "controller-started", "leader-elected", "monotonic-clock-reset", "pid-changed"
	// Component is the restarted process: "kcm", or "kubelet" for a kubelet
	// whose m=+ clock went down (its volume manager state is rebuilt too).
	Component string
	Node      string // for kubelet restarts, the kubelet's node when known
}

// Skew is the estimated (or given) clock offset of one input against the KCM.
// Add Offset to the input's times to put them on the KCM's clock.
type Skew struct {
	Path   string
	Offset time.Duration
	Pairs  int    // ordered pairs the estimate rests on
	From   string // "estimated", "flag", "none"
	Note   string // set when the clock looks skewed beyond what the estimate corrects
}

// Timeline is every input merged into one time order and grouped per volume.
type Timeline struct {
	Inputs   []parser.Input
	Volumes  []*Volume // ordered by first event time, then Key
	Other    []parser.Event
	Restarts []Restart
	Skews    []Skew
	Start    time.Time
	End      time.Time
	Dupes    int // identical lines dropped because they were read twice, and describe rows an Event object repeats
	Ignored  int // events of secret/configmap/projected/empty-dir/downward-api volumes (kept in Other)
	// State is the cluster state read with the logs (Options.State), nil
	// when none was given or it shares no volume with the logs; StateRead
	// is what was read either way (for the inputs list).
	State     *state.Snapshot
	StateRead *state.Snapshot
}
