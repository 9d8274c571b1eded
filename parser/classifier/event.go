package classifier

import (
	"math"
	"time"

	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

// Kind names what an event says happened. A Kind is one byte (events are
// many, see Event); its name (String) is kebab-case and stable: it is what
// `kcmtrace events` output and JSON show, and what MarshalText writes and
// UnmarshalText reads. The zero Kind has the name "" (no kind yet).
// Compare kinds by name, never by number, where order shows (sort by
// String): the numbers follow the vocabulary, the outputs are alphabetical.
type Kind uint8

// The event vocabulary (docs/DESIGN.md "Events"), plus a few extensions that the
// timeline needs (kubelet mount path starts, CSI sidecar/driver lines), in
// the order of Kinds.
const (
	AttachStarted Kind = iota + 1
	AttachSucceeded
	AttachFailed
	DetachRequested // "Set detach request time", ASW bookkeeping
	DetachStarted
	DetachVerifiedSafe
	DetachSucceeded
	DetachFailed
	ForceDetach
	MultiAttach
	DetachBlockedMounted
	MarkedDetached
	RetryScheduled // nestedpendingoperations line whose inner operation has no kind of its own

	VerifyAttachedStarted   // kubelet: VerifyControllerAttachedVolume started
	VerifyAttachedSucceeded // kubelet: "Controller attach succeeded"
	VerifyAttachedFailed    // kubelet: not attached according to node status / not in VolumesInUse
	MountStarted            // kubelet: operationExecutor.MountVolume started
	WaitForAttachSucceeded
	WaitForAttachFailed
	MountDeviceSucceeded
	MountDeviceFailed
	SetupSucceeded
	SetupFailed
	UnmountStarted // kubelet: UnmountVolume / UnmountDevice started
	TeardownSucceeded
	TeardownFailed
	UnmountDeviceSucceeded
	UnmountDeviceFailed
	KubeletVolumeDetached // kubelet bookkeeping "Volume detached"
	MountTimeout          // "Unable to attach or mount volumes"
	OwnershipChange       // kubelet: recursive fsGroup chown of a volume (Detail: started, progress N files, slow)

	CSIAttaching // external-attacher "Attaching" VolumeAttachment
	CSIAttached
	CSIDetaching
	CSIDetached
	CSIError // driver / sidecar / kubernetes.io/csi plugin error line

	ControllerStarted // attach/detach controller start, leader election
	// AttachStartFailed: "attacherDetacher.AttachVolume failed to start" — the
	// operation was never queued (usually "already executing"); no attach ran.
	AttachStartFailed
	// DetachStartFailed: "attacherDetacher.DetachVolume failed to start".
	DetachStartFailed
	// Bookkeeping: verbose cache/state lines that are understood but carry no
	// operation result (ASW updates, "Starting attacherDetacher.DetachVolume",
	// WaitForAttach entering, CSI driver progress lines). Detail says which.
	Bookkeeping

	Unknown // volume-looking line not understood; Reason says why
)

// kindNames are the names of the kinds, indexed by Kind.
var kindNames = [...]string{
	AttachStarted:           "attach-started",
	AttachSucceeded:         "attach-succeeded",
	AttachFailed:            "attach-failed",
	DetachRequested:         "detach-requested",
	DetachStarted:           "detach-started",
	DetachVerifiedSafe:      "detach-verified-safe",
	DetachSucceeded:         "detach-succeeded",
	DetachFailed:            "detach-failed",
	ForceDetach:             "force-detach",
	MultiAttach:             "multi-attach",
	DetachBlockedMounted:    "detach-blocked-mounted",
	MarkedDetached:          "marked-detached",
	RetryScheduled:          "retry-scheduled",
	VerifyAttachedStarted:   "verify-attached-started",
	VerifyAttachedSucceeded: "verify-attached-succeeded",
	VerifyAttachedFailed:    "verify-attached-failed",
	MountStarted:            "mount-started",
	WaitForAttachSucceeded:  "wait-for-attach-succeeded",
	WaitForAttachFailed:     "wait-for-attach-failed",
	MountDeviceSucceeded:    "mount-device-succeeded",
	MountDeviceFailed:       "mount-device-failed",
	SetupSucceeded:          "setup-succeeded",
	SetupFailed:             "setup-failed",
	UnmountStarted:          "unmount-started",
	TeardownSucceeded:       "teardown-succeeded",
	TeardownFailed:          "teardown-failed",
	UnmountDeviceSucceeded:  "unmount-device-succeeded",
	UnmountDeviceFailed:     "unmount-device-failed",
	KubeletVolumeDetached:   "kubelet-volume-detached",
	MountTimeout:            "mount-timeout",
	OwnershipChange:         "ownership-change",
	CSIAttaching:            "csi-attaching",
	CSIAttached:             "csi-attached",
	CSIDetaching:            "csi-detaching",
	CSIDetached:             "csi-detached",
	CSIError:                "csi-error",
	ControllerStarted:       "controller-started",
	AttachStartFailed:       "attach-start-failed",
	DetachStartFailed:       "detach-start-failed",
	Bookkeeping:             "bookkeeping",
	Unknown:                 "unknown",
}

// kinds gives Kind its names (String, ParseKind, MarshalText, UnmarshalText).
var kinds = newEnumNames[Kind]("event kind", kindNames[:])

// String is the kind's kebab-case name ("" for the zero Kind).
func (k Kind) String() string { return kinds.name(k, "Kind") }

// ParseKind returns the Kind named name; ok is false for a name that is no kind.
func ParseKind(name string) (k Kind, ok bool) { return kinds.parse(name) }

// MarshalText writes the kind's name, so JSON shows (and sorts map keys by)
// the name.
func (k Kind) MarshalText() ([]byte, error) { return kinds.marshal(k) }

// UnmarshalText reads a kind's name; a name that is no kind is an error.
func (k *Kind) UnmarshalText(b []byte) error { return kinds.unmarshal(b, k) }

// Error codes (Event.Code): a classification of the error text.
const (
	CodeZoneNotMatch     = "ZoneNotMatch" // also ZoneMismatch, "not in the same zone", node affinity zone conflicts
	CodeVolumeInUse      = "VolumeInUse"  // already attached elsewhere / in use by node
	CodeNotFound         = "NotFound"
	CodeDeadlineExceeded = "DeadlineExceeded" // timeouts of every kind
	CodeSerialNotFound   = "SerialNotFound"   // device not found on the node: by serial, VolumeDeviceNotFound, could not find device path
	CodeMultiAttach      = "MultiAttach"
	CodeNotAttached      = "NotAttached"       // kubelet: volume not attached according to node status
	CodeNotInUse         = "NotInVolumesInUse" // kubelet: not yet in node.status.volumesInUse
	CodeAlreadyExecuting = "AlreadyExecuting"
	CodeStillMounted     = "StillMounted"     // detach refused: still in use by node
	CodePermission       = "PermissionDenied" // also a mount's "permission denied" / "operation not permitted" (SELinux, root squash)
	CodeInternal         = "Internal"         // rpc Internal with no better class

	// The kubelet has no CSI node plugin for the driver: "driver name X not
	// found in the list of registered CSI drivers", "CSINode … does not
	// contain driver X".
	CodeDriverNotRegistered = "DriverNotRegistered"
	// Mount-side failures of a device that is present (mount(8), fsck, mkfs
	// output as mount-utils reports it).
	CodeWrongFSType         = "WrongFSType"         // "wrong fs type, bad option, bad superblock", unknown filesystem type, can't read superblock
	CodeFsckFailed          = "FsckFailed"          // "'fsck' found errors on device … but could not correct them"
	CodeMountOptionRejected = "MountOptionRejected" // unrecognized / invalid mount option
	CodeDeviceBusy          = "DeviceBusy"          // "already mounted or mount point busy", device or resource busy
	CodeFormatFailed        = "FormatFailed"        // mkfs failed: "format of disk … failed"
	CodeMountFailed         = "MountFailed"         // "mount failed: exit status N" with no recognised reason

	CodeAttachLimit      = "AttachLimit"      // attach refused: the node's volume limit is reached (max data disks, AttachmentLimitExceeded, …)
	CodeOperationPending = "OperationPending" // CSI Aborted: an earlier operation on the volume is still in flight
	CodeVolumeBusy       = "VolumeBusy"       // the cloud reports the disk busy while detaching (still in use on the instance)
	CodeNotAttachable    = "NotAttachable"    // the volume's plugin is not attachable (FindAttachablePluginBySpec failed)
	// The cloud API's rate limit refused the call: EC2's and Tencent
	// Cloud's RequestLimitExceeded, Azure's TooManyRequests (429), GCE's
	// rateLimitExceeded, Alibaba's Throttling, "Rate exceeded".
	CodeThrottled = "Throttled"
)

// MountCodes are the codes of a mount that failed with its device present
// (the mount-failed class).
func MountCodes() []string {
	return []string{CodeWrongFSType, CodeFsckFailed, CodeMountOptionRejected, CodeDeviceBusy,
		CodePermission, CodeFormatFailed, CodeMountFailed}
}

// Retry is the backoff a nestedpendingoperations/goroutinemap line carries.
type Retry struct {
	Backoff time.Duration // durationBeforeRetry
	// Until is the raw "No retries permitted until" Go time text; the
	// parser reads it while decoding (year and zone) and files its events
	// with it empty
	Until string
	Mono  float64 // m=+seconds of the deadline (0 when absent): seconds since process start
}

// Event is one typed fact read from one log entry.
//
// Memory: a 1 GiB log yields ~100k events, all kept until the report is
// written, so an Event is small (80 bytes on 64-bit platforms, pinned by
// TestEventSize; its time a Stamp, 8 bytes without a pointer) and its
// strings share memory. Its names are three
// immutable tuples referenced by pointer and embedded (Ident: the volume;
// Place: node and pod; Cause: error, code, detail, reason, VolumeAttachment, a row's age), so that
// ev.Volume, ev.Node, ev.Error read as fields; the parser interns each
// tuple per input (many events share one), and none is ever nil (an
// event without names points to a shared empty tuple). A fourth tuple,
// Repeat (span, count, retry, and two flags only such events set), is
// embedded the same way but not interned: few events have one, the rest
// point to the shared empty one. Because tuples are shared, never assign
// through a promoted name (ev.Node = n, ev.Count = n): build events from
// a Draft (Draft.Event), or use the setters (SetVolume, SetNode, SetPod,
// SetRepeat), which copy the tuple they change. The zero Event has no
// tuples: read names only of an Event made by Draft.Event or the parser.
// The closed sets are one byte each (Kind, Component, Origin), pids and
// line numbers four (Int32 saturates), the input's path a PathID of
// four; the fields go from the widest alignment to the narrowest (words,
// then the 32-bit fields, then the bytes) so that none is padded
// (TestEventHasNoPadding).
// Text is a reference to the entry's bytes in its file, or into a
// compressed block of texts (package textstore), and the parser interns
// the names it cuts from the entry (textstore.Names), so a name that many
// events carry is one string. Neither is ever a window of a read block.
type Event struct {
	Time Stamp // zero when unknown
	*Ident
	*Place
	*Cause
	*Repeat
	Text   textstore.Text // the entry as read (continuation lines joined with "\n"), wrapper removed
	Source Source
	PID    int32 // klog thread/process id; restarts show as a new pid or a smaller m=+
	// EchoOf is, for a Kubernetes Event echoed into a component log
	// (Origin=OriginEvent), the line of the same input that logged the
	// operation the Event repeats; 0 when it is not linked. timeline.Build
	// links them (same volume, node, kind and error class, close in time);
	// a linked echo is shown but never counted. (Not in Repeat: a third of
	// a large cluster's events are echoes.)
	EchoOf int32

	Kind      Kind
	Component Component
	Origin    Origin
	Level     byte // 'I','W','E','F' or 0
}

// Ident names the volume an event is about (an Event's first tuple).
// Its three names are the volume's own, so that every event of a volume
// named the same way shares one; the VolumeAttachment an event names is
// in its Cause (see there).
type Ident struct {
	Volume string // UniqueName when known
	PV     string // PV / volume display name ("pvc-…"); never "nil"
	Handle string // CSI volume handle or in-tree backend id (disk-…, vol-…)
}

// Place says where an event happened (an Event's second tuple).
type Place struct {
	Node   string
	Pod    string // "ns/name", or "name" when the namespace is unknown
	PodUID string
}

// Cause says why (an Event's third tuple), through which VolumeAttachment
// object, and for a describe row how long ago.
//
// Attachment is here rather than in Ident: few lines name the
// VolumeAttachment (the external-attacher's, the CSI attacher's errors),
// and those repeat an error with it, while every event has the names of
// its volume. In Ident it took 16 bytes of each volume tuple, which a
// large cluster has two or three of per volume (1 GiB of churn: 118k
// tuples, 1.9 MB).
type Cause struct {
	Error      string // error text, unquoted
	Code       string // classified error (Code* constants) or ""
	Detail     string // kind-specific extra: multi-attach blockers, force-detach cause, device path…
	Reason     string // for Unknown: why it was not understood; for events: the event reason
	Attachment string // VolumeAttachment name (csi-<sha256>)
	// Age is, for describe / get-events rows, how long before the snapshot the
	// event was last seen; Time = anchor - Age once anchored. (0 for a log
	// line: here it costs events nothing.)
	Age time.Duration
}

// Repeat says how an event repeats (an Event's fourth tuple, which few
// events carry: it is not interned, and the events without one point to
// the shared empty one): how often and over how long (folded repeats, a
// describe row), and for a retry line how long until the next try.
type Repeat struct {
	// Span is, for an event repeats were folded into or a describe row,
	// the time from the first occurrence to the last (Time).
	Span  time.Duration
	Retry *Retry // present on retry lines
	Count int32  // describe rows "(x35 over 77m)", repeats folded; 0 means 1
	// Relative: Time is derived from a describe row's relative age and
	// could not be anchored.
	Relative bool
	// RWXKey: Text has a nestedpendingoperations key that carries a node
	// (HasRWXKey; the key of a retry line), found by the parser while the
	// text is at hand.
	RWXKey bool
}

// The empty tuples every Event without names of a kind points to.
var (
	noIdent  Ident
	noPlace  Place
	noCause  Cause
	noRepeat Repeat
)

// Draft is an event being built: an Event whose names are fields of its
// own, which the classifier writes, and which becomes an Event once its
// names are known (Event, or the parser's interning).
type Draft struct {
	Time       Stamp
	Volume     string
	PV         string
	Handle     string
	Node       string
	Pod        string
	PodUID     string
	Error      string
	Code       string
	Detail     string
	Reason     string
	Attachment string
	Span       time.Duration
	Age        time.Duration
	Retry      *Retry
	Source     Source
	Text       textstore.Text
	Count      int32
	PID        int32
	EchoOf     int32
	Kind       Kind
	Component  Component
	Origin     Origin
	Level      byte
	Relative   bool
	RWXKey     bool
}

// Ident, Place, Cause and Repeat are the draft's tuples.
func (d *Draft) Ident() Ident   { return Ident{d.Volume, d.PV, d.Handle} }
func (d *Draft) Place() Place   { return Place{d.Node, d.Pod, d.PodUID} }
func (d *Draft) Cause() Cause   { return Cause{d.Error, d.Code, d.Detail, d.Reason, d.Attachment, d.Age} }
func (d *Draft) Repeat() Repeat { return Repeat{d.Span, d.Retry, d.Count, d.Relative, d.RWXKey} }

// Event is the draft as an Event whose tuples are its own (or the shared
// empty ones): for events made outside the parser, which interns them.
func (d Draft) Event() Event {
	return d.With(NewIdent(d.Ident()), NewPlace(d.Place()), NewCause(d.Cause()))
}

// With is the draft as an Event of the given tuples (the draft's own
// names, interned by the caller) and a Repeat of its own (or the shared
// empty one).
func (d *Draft) With(i *Ident, p *Place, c *Cause) Event {
	return Event{Time: d.Time, Ident: i, Place: p, Cause: c, Repeat: NewRepeat(d.Repeat()),
		Source: d.Source, Text: d.Text, PID: d.PID, EchoOf: d.EchoOf, Kind: d.Kind,
		Component: d.Component, Origin: d.Origin, Level: d.Level}
}

// Draft is the event with names of its own, to change and make an Event
// of again.
func (e *Event) Draft() Draft {
	return Draft{Time: e.Time, Volume: e.Volume, PV: e.PV, Handle: e.Handle, Attachment: e.Attachment,
		Node: e.Node, Pod: e.Pod, PodUID: e.PodUID, Error: e.Error, Code: e.Code, Detail: e.Detail,
		Reason: e.Reason, Span: e.Span, Age: e.Age, Retry: e.Retry, Source: e.Source, Text: e.Text,
		Count: e.Count, PID: e.PID, EchoOf: e.EchoOf, Kind: e.Kind, Component: e.Component,
		Origin: e.Origin, Level: e.Level, Relative: e.Relative, RWXKey: e.RWXKey}
}

// NewIdent, NewPlace, NewCause and NewRepeat return a tuple equal to t:
// the shared empty one, or a new one.
func NewIdent(t Ident) *Ident    { return newTuple(t, &noIdent) }
func NewPlace(t Place) *Place    { return newTuple(t, &noPlace) }
func NewCause(t Cause) *Cause    { return newTuple(t, &noCause) }
func NewRepeat(t Repeat) *Repeat { return newTuple(t, &noRepeat) }

func newTuple[T comparable](t T, empty *T) *T {
	if t == *empty {
		return empty
	}
	p := new(T) // not &t: t would be moved to the heap even when empty
	*p = t
	return p
}

// SetVolume sets the event's Volume and PV: a copy of its Ident, or
// when memo (nil for none) holds the copy an event of the same Ident got,
// that copy, so that events which shared a tuple share the changed one
// (memo is for one change: one volume and PV per old tuple).
func (e *Event) SetVolume(volume, pv string, memo map[*Ident]*Ident) {
	e.Ident = retuple(e.Ident, memo, &noIdent, func(t *Ident) { t.Volume, t.PV = volume, pv })
}

// SetNode sets the event's Node (a copy of its Place; memo as for
// SetVolume).
func (e *Event) SetNode(node string, memo map[*Place]*Place) {
	e.Place = retuple(e.Place, memo, &noPlace, func(t *Place) { t.Node = node })
}

// SetRepeat sets the event's Repeat to a tuple of its own equal to r, or
// the shared empty one: never write through ev.Repeat, which may be
// shared; to change a field, copy it (r := *ev.Repeat), change the copy
// and set it.
func (e *Event) SetRepeat(r Repeat) { e.Repeat = NewRepeat(r) }

// SetPod sets the event's Pod (a copy of its Place; memo as for
// SetVolume).
func (e *Event) SetPod(pod string, memo map[*Place]*Place) {
	e.Place = retuple(e.Place, memo, &noPlace, func(t *Place) { t.Pod = pod })
}

// retuple is a copy of old changed by set, the one memo holds for old
// if any (and then remembered there), or the empty tuple if it is one.
func retuple[T comparable](old *T, memo map[*T]*T, empty *T, set func(*T)) *T {
	if p, ok := memo[old]; ok {
		return p
	}
	t := *old
	set(&t)
	p := newTuple(t, empty)
	if memo != nil {
		memo[old] = p
	}
	return p
}

// Kinds lists every event kind, in the order of the vocabulary above.
func Kinds() []Kind {
	return []Kind{
		AttachStarted, AttachSucceeded, AttachFailed, DetachRequested, DetachStarted,
		DetachVerifiedSafe, DetachSucceeded, DetachFailed, ForceDetach, MultiAttach,
		DetachBlockedMounted, MarkedDetached, RetryScheduled,
		VerifyAttachedStarted, VerifyAttachedSucceeded, VerifyAttachedFailed, MountStarted,
		WaitForAttachSucceeded, WaitForAttachFailed, MountDeviceSucceeded, MountDeviceFailed,
		SetupSucceeded, SetupFailed, UnmountStarted, TeardownSucceeded, TeardownFailed,
		UnmountDeviceSucceeded, UnmountDeviceFailed, KubeletVolumeDetached, MountTimeout, OwnershipChange,
		CSIAttaching, CSIAttached, CSIDetaching, CSIDetached, CSIError,
		ControllerStarted, AttachStartFailed, DetachStartFailed, Bookkeeping, Unknown,
	}
}

// Int32 is n as an Event's 32-bit count or pid, saturated: a count or pid
// past 2³¹-1 (only hostile input has one) stays the largest, never wraps.
func Int32(n int) int32 {
	return int32(min(max(n, math.MinInt32), math.MaxInt32))
}
