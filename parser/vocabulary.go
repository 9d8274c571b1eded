package parser

import (
	"time"

	"github.com/kcmtrace/kcmtrace/parser/classifier"
	"github.com/kcmtrace/kcmtrace/parser/textstore"
)

// The event vocabulary is the message side's (package classifier); these
// names keep it reachable as parser.Event, parser.Kind and so on, so the
// packages that read events need not know where classification lives.
type (
	Event = classifier.Event
	// Draft is an event being built (its names fields of its own); the
	// parser makes an Event of it when it files it.
	Draft     = classifier.Draft
	Ident     = classifier.Ident
	Place     = classifier.Place
	Cause     = classifier.Cause
	Repeat    = classifier.Repeat
	Kind      = classifier.Kind
	Component = classifier.Component
	Origin    = classifier.Origin
	Retry     = classifier.Retry
	Source    = classifier.Source
	// Stamp is Event.Time: a UTC instant in 8 bytes, or none.
	Stamp = classifier.Stamp
	// PathID is Source.File: an input's path, interned (InternPath).
	PathID = classifier.PathID
	// Text is Event.Text: the entry text, kept compressed (package
	// textstore).
	Text = textstore.Text
)

// ErrorCode is the error class (a Code* constant, or "") of an error text
// that is not a log line's (a VolumeAttachment's status.attachError), as
// the parser classifies the errors it reads.
func ErrorCode(text string) string { return classifier.ClassifyCode(text) }

// TextOf makes the Text of an event made outside the parser (a test, the
// cluster state): it holds s.
func TextOf(s string) Text { return textstore.TextOf(s) }

// InternPath is the PathID of an input's path, for the Source of an event
// made outside the parser (see classifier.InternPath).
func InternPath(path string) PathID { return classifier.InternPath(path) }

// Kinds lists every event kind, in the order of the vocabulary.
func Kinds() []Kind { return classifier.Kinds() }

// ComponentOf returns the Component named name (see classifier.ComponentOf).
func ComponentOf(name string) Component { return classifier.ComponentOf(name) }

// Int32 is n saturated to an Event's Count or PID (see classifier.Int32).
func Int32(n int) int32 { return classifier.Int32(n) }

// ParseKind returns the Kind named name (see classifier.ParseKind).
func ParseKind(name string) (Kind, bool) { return classifier.ParseKind(name) }

// Event kinds, components, origins and error codes (see classifier).
const (
	AttachStarted           = classifier.AttachStarted
	AttachSucceeded         = classifier.AttachSucceeded
	AttachFailed            = classifier.AttachFailed
	DetachRequested         = classifier.DetachRequested
	DetachStarted           = classifier.DetachStarted
	DetachVerifiedSafe      = classifier.DetachVerifiedSafe
	DetachSucceeded         = classifier.DetachSucceeded
	DetachFailed            = classifier.DetachFailed
	ForceDetach             = classifier.ForceDetach
	MultiAttach             = classifier.MultiAttach
	DetachBlockedMounted    = classifier.DetachBlockedMounted
	MarkedDetached          = classifier.MarkedDetached
	RetryScheduled          = classifier.RetryScheduled
	VerifyAttachedStarted   = classifier.VerifyAttachedStarted
	VerifyAttachedSucceeded = classifier.VerifyAttachedSucceeded
	VerifyAttachedFailed    = classifier.VerifyAttachedFailed
	MountStarted            = classifier.MountStarted
	WaitForAttachSucceeded  = classifier.WaitForAttachSucceeded
	WaitForAttachFailed     = classifier.WaitForAttachFailed
	MountDeviceSucceeded    = classifier.MountDeviceSucceeded
	MountDeviceFailed       = classifier.MountDeviceFailed
	SetupSucceeded          = classifier.SetupSucceeded
	SetupFailed             = classifier.SetupFailed
	UnmountStarted          = classifier.UnmountStarted
	TeardownSucceeded       = classifier.TeardownSucceeded
	TeardownFailed          = classifier.TeardownFailed
	UnmountDeviceSucceeded  = classifier.UnmountDeviceSucceeded
	UnmountDeviceFailed     = classifier.UnmountDeviceFailed
	KubeletVolumeDetached   = classifier.KubeletVolumeDetached
	MountTimeout            = classifier.MountTimeout
	OwnershipChange         = classifier.OwnershipChange
	CSIAttaching            = classifier.CSIAttaching
	CSIAttached             = classifier.CSIAttached
	CSIDetaching            = classifier.CSIDetaching
	CSIDetached             = classifier.CSIDetached
	CSIError                = classifier.CSIError
	ControllerStarted       = classifier.ControllerStarted
	Unknown                 = classifier.Unknown
	ComponentKCM            = classifier.ComponentKCM
	ComponentKubelet        = classifier.ComponentKubelet
	ComponentCSI            = classifier.ComponentCSI
	ComponentEvents         = classifier.ComponentEvents
	ComponentMixed          = classifier.ComponentMixed
	OriginEvent             = classifier.OriginEvent
	OriginDescribe          = classifier.OriginDescribe
	CodeZoneNotMatch        = classifier.CodeZoneNotMatch
	CodeVolumeInUse         = classifier.CodeVolumeInUse
	CodeNotFound            = classifier.CodeNotFound
	CodeDeadlineExceeded    = classifier.CodeDeadlineExceeded
	CodeSerialNotFound      = classifier.CodeSerialNotFound
	CodeMultiAttach         = classifier.CodeMultiAttach
	CodeNotAttached         = classifier.CodeNotAttached
	CodeNotInUse            = classifier.CodeNotInUse
	CodeAlreadyExecuting    = classifier.CodeAlreadyExecuting
	CodeStillMounted        = classifier.CodeStillMounted
	CodePermission          = classifier.CodePermission
	CodeInternal            = classifier.CodeInternal
	CodeAttachLimit         = classifier.CodeAttachLimit
	CodeOperationPending    = classifier.CodeOperationPending
	CodeVolumeBusy          = classifier.CodeVolumeBusy
	CodeNotAttachable       = classifier.CodeNotAttachable
	CodeThrottled           = classifier.CodeThrottled
	CodeDriverNotRegistered = classifier.CodeDriverNotRegistered
	CodeWrongFSType         = classifier.CodeWrongFSType
	CodeFsckFailed          = classifier.CodeFsckFailed
	CodeMountOptionRejected = classifier.CodeMountOptionRejected
	CodeDeviceBusy          = classifier.CodeDeviceBusy
	CodeFormatFailed        = classifier.CodeFormatFailed
	CodeMountFailed         = classifier.CodeMountFailed
	AttachStartFailed       = classifier.AttachStartFailed
	DetachStartFailed       = classifier.DetachStartFailed
	Bookkeeping             = classifier.Bookkeeping
)

// StampOf is t as an Event's Time (classifier.StampOf).
func StampOf(t time.Time) Stamp { return classifier.StampOf(t) }
