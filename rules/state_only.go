package rules

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/kcmtrace/kcmtrace/state"
	"github.com/kcmtrace/kcmtrace/timeline"
)

// unlogged is a VolumeAttachment of the cluster state for a volume no log
// given names, and when the dump it was read from was taken (zero when
// not known). A volume the logs do show is the log findings' to report,
// and their Verify reads the same object; one they do not is reported
// from the state alone (a pasted `kubectl describe volumeattachment` is
// often all a user has).
type unlogged struct {
	va    *state.VolumeAttachment
	taken time.Time
}

// unloggedAttachments are the VolumeAttachments of tl's cluster state (the
// one joined, or else the one read) whose volume no log names, in the
// state's order, and that state; nil without one.
func unloggedAttachments(tl *timeline.Timeline) (*state.Snapshot, []unlogged) {
	snap := tl.State
	if snap == nil {
		snap = tl.StateRead
	}
	if snap == nil || len(snap.VolumeAttachments) == 0 {
		return snap, nil
	}
	inLogs := map[string]bool{}
	for _, v := range tl.Volumes {
		// not append(v.Names(), …): Names may return the volume's own array
		for _, n := range v.Names() {
			inLogs[n] = true
		}
		for _, n := range v.Attachments() {
			inLogs[n] = true
		}
		inLogs[v.PV], inLogs[v.Handle], inLogs[v.UniqueName] = true, true, true
	}
	taken := map[string]time.Time{}
	for _, f := range snap.Files {
		taken[f.Path] = f.Taken
	}
	var out []unlogged
	for _, va := range snap.VolumeAttachments {
		if inLogs[va.Name] || va.PV != "" && inLogs[va.PV] || va.InlineHandle != "" && inLogs[va.InlineHandle] {
			continue
		}
		out = append(out, unlogged{va: va, taken: taken[va.Source.Path]})
	}
	return snap, out
}

// stateFinding is the frame of a finding about VolumeAttachment va made
// from the cluster state alone: its volume and node, the object as its
// evidence, at when — or at the time of err, va's error, when it has one.
func stateFinding(snap *state.Snapshot, va *state.VolumeAttachment, when time.Time, err *state.VolumeError) Finding {
	if err != nil && !err.Time.IsZero() {
		when = err.Time
	}
	return Finding{
		PV:       va.PV,
		Nodes:    []string{va.Node},
		Start:    when.UTC(),
		End:      when.UTC(),
		Count:    1,
		Evidence: []Evidence{stateEvidence(snap.AttachmentEvidence(va), "the VolumeAttachment")},
	}
}

// stateVolume names the volume of VolumeAttachment va in a sentence.
func stateVolume(va *state.VolumeAttachment) string {
	return cmp.Or(va.PV, va.InlineHandle, "the volume of VolumeAttachment "+va.Name)
}

// unloggedAttachFailures are the attaches of unlogged that failed or never
// finished, by the cluster state: a VolumeAttachment not attached, not
// being deleted (a detach is detach-failed's), with a status.attachError
// of class code (limit: only the AttachLimit class; else every other
// class), or — without limit — with no error but created at least
// stuckAfter before its dump was taken.
func unloggedAttachFailures(vas []unlogged, limit bool, stuckAfter time.Duration) []unlogged {
	var out []unlogged
	for _, u := range vas {
		va := u.va
		if va.Attached || va.Deleting() {
			continue
		}
		if va.AttachError != nil {
			if (parser.ErrorCode(va.AttachError.Message) == parser.CodeAttachLimit) == limit {
				out = append(out, u)
			}
			continue
		}
		if !limit && !va.Created.IsZero() && !u.taken.IsZero() && u.taken.Sub(va.Created) >= stuckAfter {
			out = append(out, u)
		}
	}
	return out
}

// stateAttachFinding reports the attach of VolumeAttachment va that failed
// (status.attachError) or had not finished stuckAfter after it was made
// when the state was dumped at taken; no log names the volume
// (unloggedAttachFailures). Its class's mechanics and steps are the
// attach storms' (classMechanics, classSteps).
func stateAttachFinding(snap *state.Snapshot, va *state.VolumeAttachment, taken time.Time) Finding {
	vol, node := stateVolume(va), nodeOr(va.Node)
	f := stateFinding(snap, va, va.Created, va.AttachError)
	var what string
	if e := va.AttachError; e != nil {
		f.Code = parser.ErrorCode(e.Message)
		what = "has status.attachError " + strconv.Quote(e.Message)
		f.Summary = fmt.Sprintf("attach of %s to %s failed%s: its VolumeAttachment %s %s (only the cluster state shows it; no log names the volume)", vol, node, withCode(f.Code), va.Name, errorHeadline("attachError", e.Message))
	} else {
		since := dur(taken.Sub(va.Created))
		what = "is not attached " + since + " after it was created, without an attachError"
		f.Summary = fmt.Sprintf("attach of %s to %s not finished %s after its VolumeAttachment %s was created (only the cluster state shows it; no log names the volume)", vol, node, since, va.Name)
	}
	var ex strings.Builder
	fmt.Fprintf(&ex, "The attach/detach controller made VolumeAttachment %s to have the external-attacher attach %s to %s (ControllerPublishVolume); it %s. Until status.attached is true the volume is not in %s's node.status.volumesAttached: the kubelet waits in VerifyControllerAttachedVolume and the pod stays ContainerCreating, while the external-attacher retries with backoff. ", va.Name, vol, node, what, node)
	if m := classMechanics(f.Code); m != "" {
		ex.WriteString(m + " ")
	} else if va.AttachError == nil {
		ex.WriteString("No error means the external-attacher has not heard back from the driver (or is not running, or does not watch this driver's attachments). ")
	}
	ex.WriteString("No log given here names the volume, so when the attach began and what the controller did since is not known.")
	f.Explanation = ex.String()
	steps := []Step{{Confirm, fmt.Sprintf("Read the external-attacher's and the CSI controller plugin's logs%s for ControllerPublishVolume of %s on %s (kubectl describe volumeattachment %s shows the error and when it was last tried).", driverNote(va.Attacher), vol, nodeHere(va.Node), va.Name)}}
	if f.Code != "" {
		steps = append(steps, classSteps(f.Code, va.Attacher)...)
	} else if va.AttachError == nil {
		steps = append(steps, Step{Confirm, fmt.Sprintf("Check that the external-attacher%s runs and leads (its Lease in the driver's namespace), and the disk's state in the cloud (stuck attaching).", driverNote(va.Attacher))})
	}
	f.SetNext(steps...)
	return f
}

// stateLimitFinding reports the attach of VolumeAttachment va refused for
// the node's volume limit (its status.attachError); no log names the
// volume (unloggedAttachFailures).
func stateLimitFinding(snap *state.Snapshot, va *state.VolumeAttachment) Finding {
	vol, node := stateVolume(va), nodeOr(va.Node)
	what, limit, fix := limitWording(va.AttachError.Message)
	f := stateFinding(snap, va, va.Created, va.AttachError)
	f.Code = parser.CodeAttachLimit
	f.Summary = fmt.Sprintf("attach of %s to %s refused: %s%s; its VolumeAttachment %s has an attachError (only the cluster state shows it; no log names the volume)", vol, node, what, limit, va.Name)
	f.Explanation = fmt.Sprintf("ControllerPublishVolume for %s on %s, which the external-attacher calls for VolumeAttachment %s, was refused by the cloud (status.attachError %s): %s%s. The scheduler placed the pod there, so the node's CSINode allocatable count is higher than what the instance takes (disks or ENIs attached outside Kubernetes, a wrong volume attach limit, or attachments leaked by earlier detaches); the external-attacher retries with backoff and every retry fails the same way until a disk leaves the node or the pod moves. No log given here names the volume.", vol, node, va.Name, strconv.Quote(va.AttachError.Message), what, limit)
	f.SetNext(limitSteps(va.Node, fix)...)
	return f
}

// withCode is " with <code>" for an error class, "" for none.
func withCode(code string) string {
	if code == "" {
		return ""
	}
	return " with " + code
}

// headlineError is the longest error text a finding's summary quotes;
// a longer one is in its explanation and evidence only.
const headlineError = 160

// errorHeadline names a VolumeAttachment's error field in a summary: with
// its text quoted when that is short, else pointing to the evidence.
func errorHeadline(field, msg string) string {
	if len(msg) > headlineError {
		return "has a long status." + field + ", quoted in the evidence"
	}
	return "has status." + field + " " + strconv.Quote(msg)
}
