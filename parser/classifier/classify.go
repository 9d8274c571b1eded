package classifier

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Message-side conventions (what classify puts where):
//
//   - Volume is the UniqueName; PV the displayed volume name unless "nil" (≤1.6
//     sentences: spec.Name; TearDown: InnerVolumeSpecName; UnmountVolume
//     started shows the pod's volume name, which goes to Detail instead).
//   - Handle: CSI handle after '^', or the in-tree backend id; for driver lines
//     without a unique name, the disk-…/vol-… id found in the text.
//   - Error is the text after " : " (or "with: " ≤1.6, "Error: " of retry
//     lines, err= of structured lines), unquoted; Code = classifyCode(Error).
//   - Detail: force-detach "timeout 6m0s" | "out-of-service"; multi-attach
//     "pods=ns/a,ns/b attachedTo=nodeA" (either part may be absent; the event
//     text form names no blockers); mount-timeout the volume lists
//     ("unmounted volumes=[…] unattached volumes=[…]"); device paths
//     ("device path csi-…", "device mount path /var/lib/…"); bookkeeping: what.
//   - Retry lines: the operation inside "Error:" decides the kind (failure
//     kinds), else RetryScheduled; Retry is always set.
//   - Events echoed in logs: Origin=OriginEvent, Reason = event reason, Pod
//     from the involved object; describe/get-events rows: Origin=OriginDescribe,
//     Component=ComponentEvents, Count from the row.

// Classify turns one record into an event. ok is false when the record is not
// about a volume operation at all (irrelevant); a record that looks volume
// related but is not understood returns an Unknown event with Reason set.
// The envelope side fills Time, Source, Text, PID and Level afterwards.
//
// classify never panics on any input; it uses no regular expressions.
func Classify(rec *Record) (ev Draft, ok bool) {
	if rec == nil {
		return Draft{}, false
	}
	if rec.Table != nil {
		return classifyTable(rec.Table)
	}
	if recordDecodesPairs(rec) {
		// the pairs of a structured line: klog lines rarely have more,
		// and classifyMessage keeps none of them, so they stay on the
		// stack (zeroed only here: a printf line has none to decode)
		var buf [16]kv
		msg, kvs := recordMessage(rec, buf[:0])
		return classifyNonEmpty(rec.File, msg, kvs, rec.Arena)
	}
	msg, kvs := recordMessage(rec, nil)
	return classifyNonEmpty(rec.File, msg, kvs, rec.Arena)
}

// ClassifyPairs is Classify for a record that is neither a table row nor
// klog text (no Rest): a JSON line's, of caller file, message and pairs.
// It keeps no pointer to kvs (only to the strings in it), so a caller can
// decode the pairs into a buffer on its own stack, which a *Record holding
// them would not allow: the strings Classify keeps make everything a
// record points at escape.
func ClassifyPairs(file, msg string, kvs []KV) (Draft, bool) {
	return classifyNonEmpty(file, strings.TrimSpace(msg), kvs, nil)
}

// classifyNonEmpty is classifyMessage for a trimmed message, no event when
// there is neither a message nor a pair.
func classifyNonEmpty(file, msg string, kvs []kv, arena *[]byte) (Draft, bool) {
	if msg == "" && len(kvs) == 0 {
		return Draft{}, false
	}
	return classifyMessage(file, msg, kvs, arena)
}

// recordDecodesPairs reports whether recordMessage decodes the pairs of
// rec (a structured klog line's: its rest starts with a quote).
func recordDecodesPairs(rec *Record) bool {
	return rec.Rest != "" && rec.Rest[0] == '"' // never logrus text (time="…)
}

// recordMessage returns the message of a record that is not a table row,
// trimmed, and its pairs (appended to dst when decoded here).
func recordMessage(rec *Record, dst []kv) (msg string, kvs []kv) {
	switch {
	case rec.Rest != "" && rec.Msg != "" && strings.HasPrefix(rec.Rest, `time="`):
		// logrus text: the envelope side decoded msg="…" (CSI drivers).
		msg = rec.Msg
	case rec.Rest != "":
		msg = rec.Rest
		if rec.Rest[0] == '"' {
			if m, pairs, sok := appendStructuredIn(dst, rec.Rest, rec.Arena); sok {
				msg, kvs = m, pairs
			}
		}
	default:
		msg, kvs = rec.Msg, rec.KV
	}
	return strings.TrimSpace(msg), kvs
}

// classifyMessage classifies a printf message or a structured message with
// its pairs (klog text or JSON alike). arena, when not nil, takes what it
// unquotes (Record.Arena).
func classifyMessage(file, msg string, kvs []kv, arena *[]byte) (Draft, bool) {
	if IsInformerPlumbing(file) {
		// Cache/watch bookkeeping ("Watch close - *v1.VolumeAttachment …",
		// "Caches are synced for attach detach"): names volume types, never
		// an operation on a volume.
		return Draft{}, false
	}
	switch {
	case msg == "Event occurred" || strings.HasPrefix(msg, "Event(v1.ObjectReference{") ||
		strings.HasPrefix(msg, "Event(api.ObjectReference{"):
		return classifyEventLine(msg, kvs)
	case strings.HasPrefix(msg, "Operation for ") && strings.Contains(msg, "No retries permitted until"):
		return classifyRetry(msg, arena)
	}
	var ev Draft
	// Structured/contextual fields first; sentence fields override where both exist.
	applyKV(&ev, kvs)
	first := firstLine(msg) // what the ways below read of a message of several lines
	if done := classifySpecial(&ev, file, first, msg, kvs); done {
		return finish(ev)
	}
	if done := classifySentenceFirst(&ev, first, msg, kvs); done {
		return finish(ev)
	}
	related := volumeRelated(msg) || kvVolumeRelated(kvs)
	// The error class of the whole message, computed once: limitRefusal
	// reads it, and a related message's node-side class below. Neither
	// needs it for a message that is not related and cannot be a volume
	// limit (limitMayMatch), which most ignored lines are.
	var code string
	if related || limitMayMatch(msg) {
		code = classifyCode(msg)
	}
	if limitRefusal(&ev, msg, code) || driverAttachProgress(&ev, first) {
		return finish(ev)
	}
	// Not understood.
	if !related {
		return Draft{}, false
	}
	if isNodeSideCode(code) {
		// A driver's or mount-utils' own line about a mount that failed
		// ("Mount failed: exit status 32 … already mounted or mount point
		// busy", "NodeStageVolume: err: …", "lvm: failed to mount volume …").
		ev.Kind, ev.Component, ev.Code = CSIError, ComponentCSI, code
		ev.Error = strings.TrimSpace(msg)
		ev.Detail = "mount"
		if ev.PV == "" && ev.Volume == "" {
			ev.PV = pvInPath(msg)
		}
		return finish(ev)
	}
	ev.Kind = Unknown
	ev.Reason = "unrecognised volume message: " + clip(first, 80)
	if c, cok := parseClause(msg); cok {
		c.apply(&ev)
	}
	return finish(ev)
}

// finish fills derived fields (handle, code) and returns ok.
func finish(ev Draft) (Draft, bool) {
	if ev.PV == "nil" {
		ev.PV = ""
	}
	if ev.Handle == "" && ev.Volume != "" {
		ev.Handle = handleOf(ev.Volume)
	}
	if ev.Code == "" && ev.Error != "" {
		ev.Code = classifyCode(ev.Error)
	}
	if ev.Handle == "" && ev.Code == CodeSerialNotFound {
		// "can not find diskId disk-… by serial": the error names the disk,
		// which joins an event that carries only a (possibly redacted) PV
		// name — a describe row, an Event echo — to its volume.
		ev.Handle = backendID(ev.Error)
		if ev.Handle == "" {
			// Cinder's node plugin: `Failed to find device for the
			// volumeID: "<uuid>" within the alloted time` (real-logs/060)
			ev.Handle = quotedAfter(ev.Error, "volumeID: ")
		}
	}
	return ev, true
}

// applyKV copies the well-known structured keys into ev.
func applyKV(ev *Draft, kvs []kv) {
	if len(kvs) == 0 {
		return
	}
	for _, p := range kvs {
		switch p.Key {
		case "volumeName", "VolumeName":
			if p.Value != "" {
				ev.Volume = p.Value
			}
		case "nodeName", "node", "NodeName":
			if n := kobjName(p.Value); n != "" {
				ev.Node = n
			}
		case "pod":
			if n := kobjName(p.Value); n != "" {
				ev.Pod = n
			}
		case "podUID":
			ev.PodUID = p.Value
		case "err":
			ev.Error = strings.TrimSpace(p.Value)
		case "scheduledPods":
			if ev.Pod == "" {
				if pods := listValues(p.Value); len(pods) > 0 {
					ev.Pod = strings.Join(pods, ",")
				}
			}
		case "VolumeAttachment", "volumeattachment", "attachment":
			ev.Attachment = p.Value
		case "volume":
			v := p.Value
			switch {
			case strings.HasPrefix(v, "{\""):
				// ≥1.28: JSON of cache.VolumeToAttach / AttachedVolume (maybe truncated).
				if vn := jsonStringField(v, "VolumeName"); vn != "" {
					ev.Volume = vn
				}
				if nn := jsonStringField(v, "NodeName"); nn != "" {
					ev.Node = nn
				}
			case strings.HasPrefix(v, "{"):
				// 1.24–1.27: %+v dump, unquoted values.
				if vn := dumpField(v, "VolumeName", "VolumeSpec"); vn != "" {
					ev.Volume = vn
				}
				if nn := dumpField(v, "NodeName", ""); nn != "" {
					ev.Node = nn
				}
				if ev.Pod == "" {
					if pod := podFromDump(v); pod != "" {
						ev.Pod = pod
					}
				}
			default:
				if looksUnique(v) {
					ev.Volume = v
				}
			}
		}
	}
}

// podFromDump extracts "ns/name" from the first `&Pod{ObjectMeta:{name gen ns …`
// in a 1.24–1.26 VolumeToAttach dump.
func podFromDump(v string) string {
	i := strings.Index(v, "&Pod{ObjectMeta:{")
	if i < 0 {
		return ""
	}
	f := strings.Fields(v[i+len("&Pod{ObjectMeta:{"):])
	// ObjectMeta %v: {Name GenerateName Namespace SelfLink UID …}; empty
	// GenerateName collapses, so the namespace is the field before the UID.
	if len(f) < 3 {
		return ""
	}
	name := f[0]
	for k := 1; k < len(f) && k < 5; k++ {
		if isUID(f[k]) && k >= 2 {
			return f[k-1] + "/" + name
		}
	}
	return name
}

func isUID(s string) bool {
	return len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-'
}

// classifySpecial handles messages that are not operation-executor sentences:
// structured ADC messages (≥1.24), controller start, CSI plugin/driver/sidecar
// lines, ASW bookkeeping, in-tree plugin lines. It reports whether it set a
// kind. first is firstLine(msg).
func classifySpecial(ev *Draft, file, first, msg string, kvs []kv) bool {
	if !specialMayMatch(first) {
		return false // no case of specialCases can match
	}
	return specialCases(ev, file, first, msg, kvs)
}

// specialCases is classifySpecial for a message whose first line is first.
func specialCases(ev *Draft, file, first, msg string, kvs []kv) bool {
	switch {
	// --- controller start / leader election
	case strings.EqualFold(first, "Starting attach detach controller"):
		ev.Kind, ev.Component, ev.Detail = ControllerStarted, ComponentKCM, "attach detach controller starting"
		return true
	case first == "Starting controller" || first == "Started controller":
		c, _ := lookup(kvs, "controller")
		lg, _ := lookup(kvs, "logger")
		if c == "persistentvolume-attach-detach-controller" || (c == "" && lg == "persistentvolume-attach-detach-controller") {
			ev.Kind, ev.Component = ControllerStarted, ComponentKCM
			ev.Detail = "attach detach controller: " + strings.ToLower(first)
			return true
		}
		return false
	case file == "controllermanager.go" && strings.HasPrefix(first, `Started "`):
		// A controller manager that just became leader starts every
		// controller, one line each; any of them dates the restart (the
		// timeline collapses the burst into one).
		ev.Kind, ev.Component = ControllerStarted, ComponentKCM
		ev.Detail = "controller manager starting controllers: " + clip(first, 60)
		if strings.HasPrefix(first, `Started "attachdetach"`) {
			ev.Detail = "attach detach controller: started controller"
		}
		return true
	case strings.HasPrefix(first, `Started "attachdetach"`):
		ev.Kind, ev.Component, ev.Detail = ControllerStarted, ComponentKCM, "attach detach controller: started controller"
		return true
	case strings.HasPrefix(first, "successfully acquired lease "):
		lease := strings.TrimSpace(strings.TrimPrefix(first, "successfully acquired lease "))
		ev.Kind, ev.Detail = ControllerStarted, "leader election: acquired lease "+lease
		ev.Component = ComponentKCM
		if !strings.Contains(lease, "controller-manager") {
			ev.Component = ComponentCSI
		}
		return true
	case strings.EqualFold(first, "Shutting down attach detach controller") ||
		(first == "Shutting down controller" && hasKV(kvs, "controller", "persistentvolume-attach-detach-controller")):
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentKCM, "attach detach controller shutting down"
		return true

	// --- structured ADC messages (1.24+): the message is a bare prefix
	case strings.HasPrefix(first, "attacherDetacher.DetachVolume started: "):
		ev.Kind, ev.Component = ForceDetach, ComponentKCM
		if strings.Contains(first, "out-of-service") {
			ev.Detail = "out-of-service"
		} else {
			d, _ := lookup(kvs, "duration")
			ev.Detail = strings.TrimSpace("timeout " + d)
		}
		return true
	case strings.HasPrefix(first, "Multi-Attach error: ") || strings.HasPrefix(first, "Waiting for detach: "):
		ev.Kind, ev.Component, ev.Code = MultiAttach, ComponentKCM, CodeMultiAttach
		ev.Detail = multiAttachDetailKV(kvs)
		ev.Error = ""
		return true

	// --- CSI plugin lines (csi_attacher.go, in KCM or kubelet)
	case strings.HasPrefix(first, "kubernetes.io/csi: "):
		classifyCSIPlugin(ev, strings.TrimPrefix(msg, "kubernetes.io/csi: "))
		return true

	// --- CSI driver / sidecar lines
	case strings.HasPrefix(first, "GRPC error: "):
		ev.Kind, ev.Component = CSIError, ComponentCSI
		ev.Error = strings.TrimSpace(strings.TrimPrefix(msg, "GRPC error: "))
		ev.Handle = grpcErrorVolume(ev.Error)
		if strings.Contains(strings.ToLower(ev.Error), "detach") {
			ev.Detail = "detach"
		}
		return true
	case strings.HasPrefix(first, "GRPC request: {"):
		// The request of the call logged just before: its volume_id joins
		// the call and its error to the volume (the rest — secrets stripped
		// by the sidecar, paths, capabilities — is not kept).
		id := quotedAfter(first, `"volume_id":`)
		if id == "" {
			return false
		}
		ev.Kind, ev.Component, ev.Handle, ev.Detail = Bookkeeping, ComponentCSI, id, "GRPC request"
		return true
	case strings.HasPrefix(first, "GRPC call: "):
		method := strings.TrimSpace(strings.TrimPrefix(first, "GRPC call: "))
		ev.Component, ev.Detail = ComponentCSI, method
		switch {
		case strings.HasSuffix(method, "/ControllerPublishVolume"):
			ev.Kind = CSIAttaching
		case strings.HasSuffix(method, "/ControllerUnpublishVolume"):
			ev.Kind = CSIDetaching
		case strings.Contains(method, "Volume"):
			ev.Kind = Bookkeeping
		default:
			return false
		}
		return true
	case first == "Attaching" || first == "Attached" || first == "Detaching" || first == "Detached":
		if va, ok := lookup(kvs, "VolumeAttachment"); ok {
			ev.Attachment = va
		}
		ev.Component = ComponentCSI
		ev.Kind = sidecarKind(first)
		return true
	case strings.HasPrefix(first, "Attaching \"csi-") || strings.HasPrefix(first, "Attached \"csi-") ||
		strings.HasPrefix(first, "Detaching \"csi-") || strings.HasPrefix(first, "Detached \"csi-"):
		verb, rest, _ := strings.Cut(first, " ")
		va, n, _ := readQuoted(rest)
		ev.Attachment = va
		ev.Component = ComponentCSI
		ev.Kind = sidecarKind(verb)
		if e, ok := strings.CutPrefix(rest[n:], " with error "); ok && verb == "Detached" {
			// external-attacher ≤v2: the driver said detached but returned
			// an error; the VolumeAttachment is marked detached anyway.
			_, e, _ = strings.Cut(msg, " with error ")
			ev.Error = strings.TrimSpace(e)
			ev.Detail = "detached with error"
		}
		return true
	case strings.HasPrefix(first, "Error processing \"csi-") || (first == "Error processing" && hasKey(kvs, "VolumeAttachment")):
		ev.Kind, ev.Component = CSIError, ComponentCSI
		if first == "Error processing" {
			ev.Attachment, _ = lookup(kvs, "VolumeAttachment")
		} else {
			va, n, _ := readQuoted(strings.TrimPrefix(msg, "Error processing "))
			ev.Attachment = va
			ev.Error = strings.TrimSpace(strings.TrimPrefix(msg[len("Error processing ")+n:], ":"))
		}
		if strings.HasPrefix(ev.Error, "failed to attach: ") {
			ev.Detail = "attach"
			ev.Error = strings.TrimPrefix(ev.Error, "failed to attach: ")
		} else if strings.HasPrefix(ev.Error, "failed to detach: ") {
			ev.Detail = "detach"
			ev.Error = strings.TrimPrefix(ev.Error, "failed to detach: ")
		}
		ev.Handle = backendID(ev.Error)
		return true

	// --- cloud detach progress (in-tree AWS attacher.go/aws.go in the KCM,
	// aws-ebs-csi-driver cloud.go): the poll of the disk's state and the
	// detach that gives up on it.
	case strings.HasPrefix(first, "Error detaching volumeID "):
		ev.Kind, ev.Component = DetachFailed, ComponentKCM
		rest := strings.TrimPrefix(msg, "Error detaching volumeID ")
		h, n, _ := readQuoted(rest)
		ev.Handle = h
		ev.Error = strings.TrimSpace(strings.TrimPrefix(rest[n:], ":"))
		return true
	case strings.HasPrefix(first, "Waiting for volume ") && strings.Contains(first, "actual="):
		ev.Kind, ev.Component = Bookkeeping, ComponentCSI
		if file == "aws.go" {
			ev.Component = ComponentKCM
		}
		ev.Handle = quotedAfter(first, "Waiting for volume ")
		_, state, _ := strings.Cut(first, "actual=")
		ev.Detail = "cloud volume state actual=" + state
		if strings.HasPrefix(state, "busy") {
			ev.Code = CodeVolumeBusy
		}
		return true
	case first == "Waiting for volume state" && hasKey(kvs, "actual"):
		ev.Kind, ev.Component = Bookkeeping, ComponentCSI
		ev.Handle, _ = lookup(kvs, "volumeID")
		actual, _ := lookup(kvs, "actual")
		desired, _ := lookup(kvs, "desired")
		ev.Detail = "cloud volume state actual=" + actual + ", desired=" + desired
		if actual == "busy" {
			ev.Code = CodeVolumeBusy
		}
		return true

	// --- Tencent CBS driver (catalog §9)
	case strings.HasPrefix(first, "can not find diskId "):
		ev.Kind, ev.Component, ev.Code = CSIError, ComponentCSI, CodeSerialNotFound
		ev.Error = first
		ev.Handle = backendID(first)
		return true
	case strings.HasPrefix(first, "NodeStageVolume: findCBSVolume error"):
		ev.Kind, ev.Component = CSIError, ComponentCSI
		ev.Error = strings.TrimPrefix(first, "NodeStageVolume: ")
		ev.Handle = backendID(first)
		return true
	case strings.HasPrefix(first, "cbs block path ") && strings.Contains(first, "We will get device from serial"):
		// Only a warning: the driver falls back to the serial scan, which may
		// succeed. The error (if any) follows as "can not find diskId".
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentCSI, "device path missing, trying serial fallback"
		ev.Handle = backendID(first)
		return true
	case strings.HasPrefix(first, "cbs block path ") && strings.Contains(first, "not found"):
		ev.Kind, ev.Component, ev.Error = CSIError, ComponentCSI, first
		ev.Handle = backendID(first)
		return true
	case strings.HasPrefix(first, "NodeUnstageVolume: volume ") || strings.HasPrefix(first, "NodeStageVolume: volume "):
		// Driver progress ("… unmounting on <path>", "… mounting …").
		_, rest, _ := strings.Cut(first, ": volume ")
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentCSI, clip(first, 120)
		ev.Handle, _, _ = strings.Cut(rest, " ")
		return true
	case strings.HasPrefix(first, "Successfully get device(") || (strings.HasPrefix(first, "NodeStageVolume: volume ") && strings.HasSuffix(first, " finished")):
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentCSI, clip(first, 120)
		ev.Handle = backendID(first)
		return true
	case strings.HasPrefix(first, "disk ") && strings.Contains(first, " is already attached to node ") && strings.Contains(first, "assuming the disk is detached"):
		// ≥ v2.3.2 ownership check: the unpublish for node A is skipped.
		ev.Kind, ev.Component = CSIDetached, ComponentCSI
		ev.Handle = backendID(first)
		if i := strings.LastIndex(first, " from node "); i >= 0 {
			ev.Node = strings.TrimSpace(first[i+len(" from node "):])
		} else if i := strings.LastIndex(first, " form node "); i >= 0 {
			ev.Node = strings.TrimSpace(first[i+len(" form node "):])
		}
		ev.Detail = "skipped: " + clip(first, 160)
		return true
	case strings.HasPrefix(first, "detach disk ") && strings.Contains(first, "assuming the disk is detached"):
		ev.Kind, ev.Component, ev.Detail = CSIDetached, ComponentCSI, clip(first, 160)
		ev.Handle = backendID(first)
		return true

	// --- in-tree plugin lines (cinder attacher.go etc.): the plugin layer
	// below the operation executor, mapped to the CSI* kinds (which stand for
	// "driver/plugin level"); component kcm because they run inside the KCM.
	case strings.HasPrefix(first, "Attach operation successful: volume "):
		ev.Kind, ev.Component = CSIAttached, ComponentKCM
		rest := strings.TrimPrefix(first, "Attach operation successful: volume ")
		ev.Handle, _, _ = readQuoted(rest)
		// The "node" here is the OpenStack instance id, not the node name.
		if inst := quotedAfter(rest, " attached to node "); inst != "" {
			ev.Detail = "instance " + inst
		}
		return true
	case strings.HasPrefix(first, "detached volume \"") && strings.Contains(first, " from node \""):
		ev.Kind, ev.Component = CSIDetached, ComponentKCM
		rest := strings.TrimPrefix(first, "detached volume ")
		ev.Handle, _, _ = readQuoted(rest)
		ev.Node = quotedAfter(rest, " from node ")
		return true
	case strings.HasPrefix(first, "Attach volume \"") && strings.Contains(first, " failed with "):
		ev.Kind, ev.Component = CSIError, ComponentKCM
		rest := strings.TrimPrefix(first, "Attach volume ")
		ev.Handle, _, _ = readQuoted(rest)
		if inst := quotedAfter(rest, " to instance "); inst != "" {
			ev.Detail = "attach to instance " + inst
		}
		_, e, _ := strings.Cut(msg, " failed with ")
		ev.Error = strings.TrimSpace(e)
		if strings.Contains(ev.Error, " is not attached to ") {
			ev.Code = CodeNotAttached
		}
		return true

	// --- ASW / DSW bookkeeping (catalog §3.8)
	case strings.HasPrefix(first, "Set detach request time to current time for volume "):
		ev.Kind, ev.Component = DetachRequested, ComponentKCM
		rest := strings.TrimPrefix(first, "Set detach request time to current time for volume ")
		if v, _, _ := strings.Cut(rest, " on node "); v != "" && !strings.HasPrefix(rest, "on node") {
			ev.Volume = strings.Trim(v, `"`)
		}
		if n := quotedAfter(rest, " on node "); n != "" {
			ev.Node = n
		}
		return true
	case strings.HasPrefix(first, "Set detach request time"):
		ev.Kind, ev.Component = DetachRequested, ComponentKCM
		return true
	case strings.HasPrefix(first, "SetVolumeMountedByNode volume "):
		ev.Kind, ev.Component = Bookkeeping, ComponentKCM
		rest := strings.TrimPrefix(first, "SetVolumeMountedByNode volume ")
		if v, _, ok := strings.Cut(rest, " to the node "); ok {
			ev.Volume = strings.Trim(v, `"`)
		}
		ev.Node = quotedAfter(rest, " to the node ")
		ev.Detail = "mounted-by-node " + lastWord(first)
		return true
	case strings.HasPrefix(first, "RemoveVolumeFromReportAsAttached failed"):
		ev.Kind, ev.Component = Bookkeeping, ComponentKCM
		ev.Volume = quotedAfter(first, " removing volume ")
		ev.Node = quotedAfter(first, " from node ")
		if _, e, ok := strings.Cut(msg, " with: "); ok {
			ev.Detail = "remove from report-as-attached failed: " + clip(e, 160)
		}
		return true
	case strings.HasPrefix(first, "Report volume ") && strings.Contains(first, " as attached to node "):
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentKCM, "report as attached"
		ev.Volume = quotedAfter(first, "Report volume ")
		ev.Node = quotedAfter(first, " as attached to node ")
		return true
	case strings.HasPrefix(first, "error removing node ") && strings.Contains(first, "desired-state-of-world"):
		ev.Kind, ev.Component = Bookkeeping, ComponentKCM
		ev.Node = quotedAfter(first, "error removing node ")
		ev.Detail = "node kept in desired state: " + clip(first, 200)
		return true
	case strings.HasPrefix(first, "Failed to update statusUpdateNeeded field"):
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentKCM, "statusUpdateNeeded update failed"
		if ev.Node == "" {
			if i := strings.Index(ev.Error, `nodeName="`); i >= 0 {
				ev.Node, _, _ = readQuoted(ev.Error[i+len("nodeName="):])
			} else if i := strings.Index(msg, `nodeName=`); i >= 0 {
				ev.Node, _, _ = readQuoted(msg[i+len("nodeName="):])
			}
		}
		return true
	case strings.HasPrefix(first, "Volume attached--touching") || strings.HasPrefix(first, "Volume detached--skipping") ||
		strings.HasPrefix(first, "Starting reconciling attached volumes still attached"):
		ev.Kind, ev.Component = Bookkeeping, ComponentKCM
		ev.Detail, _, _ = strings.Cut(first, " for volume")
		if c, ok := parseClause(msg); ok {
			c.apply(ev)
		}
		return true
	case strings.HasPrefix(first, "Volume ") && strings.Contains(first, " is already added to attachedVolume list"):
		ev.Kind, ev.Component, ev.Detail = Bookkeeping, ComponentKCM, "already in attached list"
		ev.Volume = quotedAfter(first, "Volume ")
		ev.Node = quotedAfter(first, " to node ")
		if ev.Node == "" {
			ev.Node = quotedAfter(first, " to the node ")
		}
		return true
	case strings.HasPrefix(first, "Operation for volume ") && strings.Contains(first, "already running"):
		ev.Kind, ev.Component, ev.Code = Bookkeeping, ComponentKCM, CodeAlreadyExecuting
		ev.Detail = "operation already running or in backoff"
		ev.Volume = quotedAfter(first, "Operation for volume ")
		return true

	// --- kubelet fsGroup ownership change (volume_linux.go, VolumePermissionChangeInProgress)
	case strings.HasPrefix(first, "Setting volume ownership for "):
		classifyOwnership(ev, first)
		return true

	// --- kubelet pod-level wait (catalog §5.3)
	case strings.HasPrefix(first, "Unable to attach or mount volumes") ||
		strings.HasPrefix(first, "unable to attach or mount volumes") ||
		strings.HasPrefix(first, "Unable to mount volumes for pod") ||
		strings.HasPrefix(first, "timeout expired waiting for volumes to attach"):
		classifyMountTimeout(ev, msg)
		return true
	}
	_ = file
	return false
}

// specialMayMatch reports whether a case of specialCases may match a
// message whose first line is first: it starts with one of specialStems or
// with a non-ASCII byte. Most lines that are not special fail it at their
// first byte or two.
func specialMayMatch(first string) bool {
	if first == "" {
		return false
	}
	if first[0] >= utf8.RuneSelf {
		return true
	}
	for _, s := range specialStemsBy[first[0]] {
		if strings.HasPrefix(first, s) {
			return true
		}
	}
	return false
}

// sidecarKind maps an external-attacher verb to its kind.
func sidecarKind(verb string) Kind {
	switch verb {
	case "Attaching":
		return CSIAttaching
	case "Attached":
		return CSIAttached
	case "Detaching":
		return CSIDetaching
	}
	return CSIDetached
}

// classifyCSIPlugin handles `kubernetes.io/csi: …` lines of csi_attacher.go.
func classifyCSIPlugin(ev *Draft, s string) {
	first := firstLine(s)
	ev.Kind, ev.Component = CSIError, ComponentKCM
	switch {
	case strings.HasPrefix(first, "attachment for ") && strings.Contains(first, " failed: "):
		h, e, _ := strings.Cut(strings.TrimPrefix(s, "attachment for "), " failed: ")
		ev.Handle, ev.Error, ev.Detail = h, strings.TrimSpace(e), "attach"
	case strings.HasPrefix(first, "Attach timeout after ") || strings.HasPrefix(first, "Detach timeout after ") ||
		strings.HasPrefix(first, "detacher.WaitForDetach timeout after ") ||
		strings.HasPrefix(first, "attachdetacher.WaitForDetach timeout after "):
		ev.Handle = bracketField(first, "volume=")
		ev.Attachment = bracketField(first, "attachment.ID=")
		ev.Error = first
		ev.Code = CodeDeadlineExceeded
		ev.Detail = "attach"
		if first[0] != 'A' {
			ev.Detail = "detach"
		}
	case strings.HasPrefix(first, "attacher.MountDevice failed"):
		ev.Component, ev.Detail = ComponentKubelet, "mount-device"
		ev.Error = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(s, "attacher.MountDevice failed"), ":"))
		ev.Handle = backendID(ev.Error)
	case strings.HasPrefix(first, "mounter.SetUpAt failed") || strings.HasPrefix(first, "mounter.SetupAt failed"):
		ev.Component, ev.Detail = ComponentKubelet, "setup"
		_, e, _ := strings.Cut(s, "failed")
		ev.Error = strings.TrimSpace(strings.TrimLeft(e, ": "))
	case strings.HasPrefix(first, "detachment for VolumeAttachment for volume ["):
		rest := strings.TrimPrefix(s, "detachment for VolumeAttachment for volume [")
		h, e, _ := strings.Cut(rest, "]")
		ev.Handle, ev.Detail = h, "detach"
		ev.Error = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(e), "failed:"))
	case strings.HasPrefix(first, "detacher.Detach failed to delete VolumeAttachment ["):
		rest := strings.TrimPrefix(s, "detacher.Detach failed to delete VolumeAttachment [")
		a, e, _ := strings.Cut(rest, "]")
		ev.Attachment, ev.Detail = a, "detach"
		ev.Error = strings.TrimSpace(strings.TrimPrefix(e, ":"))
	case strings.HasPrefix(first, "attacher.Attach failed"):
		ev.Detail = "attach"
		ev.Error = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(s, "attacher.Attach failed"), ": "))
	case strings.HasPrefix(first, "VolumeAttachment [") && strings.Contains(first, "deletion timestamp"):
		ev.Attachment = between(first, "VolumeAttachment [", "]")
		ev.Error, ev.Detail = first, "attach"
	case strings.Contains(first, "failed") || strings.Contains(first, "error"):
		ev.Error = strings.TrimSpace(s)
		ev.Handle = backendID(s)
	default:
		// V4 progress lines: attachment created, attach finished, skip MountDevice…
		ev.Kind, ev.Detail = Bookkeeping, clip(first, 120)
		if a := between(first, "[csi-", "]"); a != "" {
			ev.Attachment = "csi-" + a
		}
		if strings.Contains(first, "MountDevice") {
			ev.Component = ComponentKubelet
		}
	}
}

// classifyOwnership handles the kubelet's recursive fsGroup ownership change:
// "Setting volume ownership for DIR and fsGroup set. If the volume has a lot
// of files then setting volume ownership could be slow, see …/69699" (the
// change starts), "Setting volume ownership for DIR, processed N files."
// (still running after 30s) and the VolumePermissionChangeInProgress event
// "Setting volume ownership for DIR is taking longer than expected, consider
// using OnRootMismatch - …". DIR is the pod's volume directory
// (/var/lib/kubelet/pods/UID/volumes/PLUGIN/NAME[/mount]).
func classifyOwnership(ev *Draft, first string) {
	ev.Kind, ev.Component = OwnershipChange, ComponentKubelet
	rest := strings.TrimPrefix(first, "Setting volume ownership for ")
	dir, tail := rest, ""
	for _, sep := range [...]string{" and fsGroup set", " is taking longer", ", processed "} {
		if i := strings.Index(rest, sep); i >= 0 {
			dir, tail = rest[:i], rest[i:]
			break
		}
	}
	switch {
	case strings.HasPrefix(tail, " is taking longer"):
		ev.Detail = "slow"
	case strings.HasPrefix(tail, ", processed "):
		ev.Detail = "progress " + strings.TrimSuffix(strings.TrimPrefix(tail, ", "), ".")
	default:
		ev.Detail = "started"
	}
	if i := strings.Index(dir, "/pods/"); i >= 0 {
		uid, _, _ := strings.Cut(dir[i+len("/pods/"):], "/")
		if isUID(uid) {
			ev.PodUID = uid
		}
	}
	if i := strings.Index(dir, "/volumes/"); i >= 0 {
		plugin, name, _ := strings.Cut(dir[i+len("/volumes/"):], "/")
		name, _, _ = strings.Cut(name, "/")
		ev.Detail += " " + plugin + "/" + name
		if plugin == "kubernetes.io~csi" || !nonAttachablePlugin(plugin) {
			ev.PV = name
		}
	}
}

// nonAttachablePlugin reports the in-tree plugins (as pod volume directory
// names) whose volumes are never attached or mounted from a device.
func nonAttachablePlugin(dir string) bool {
	switch dir {
	case "kubernetes.io~secret", "kubernetes.io~configmap", "kubernetes.io~projected",
		"kubernetes.io~downward-api", "kubernetes.io~empty-dir", "kubernetes.io~git-repo":
		return true
	}
	return false
}

// isNodeSideCode reports the codes of a mount that failed on the node
// (MountCodes), a missing device or an unregistered driver: the classes a
// driver's own mount line is read for.
func isNodeSideCode(code string) bool {
	switch code {
	case "":
		return false
	case CodeSerialNotFound, CodeDriverNotRegistered:
		return true
	}
	for _, c := range MountCodes() {
		if c == code {
			return true
		}
	}
	return false
}

// pvInPath returns the PV name in a kubelet mount path of s
// (".../kubernetes.io/csi/pv/NAME/globalmount",
// ".../volumes/kubernetes.io~csi/NAME/mount"), or "".
func pvInPath(s string) string {
	for _, key := range [...]string{"/kubernetes.io/csi/pv/", "/volumes/kubernetes.io~csi/"} {
		if i := strings.Index(s, key); i >= 0 {
			name := s[i+len(key):]
			if j := strings.IndexAny(name, "/ \n\"'"); j >= 0 {
				name = name[:j]
			}
			if name != "" {
				return name
			}
		}
	}
	return ""
}

// classifyMountTimeout handles "Unable to attach or mount volumes" (all eras).
func classifyMountTimeout(ev *Draft, msg string) {
	ev.Kind, ev.Component = MountTimeout, ComponentKubelet
	if i := strings.Index(msg, `for pod "`); i >= 0 && ev.Pod == "" {
		// ≤1.9: `for pod "ns"/"name"`.
		ns, n, ok := readQuoted(msg[i+len("for pod "):])
		if r := msg[i+len("for pod ")+n:]; ok && strings.HasPrefix(r, `/"`) {
			if name, _, ok := readQuoted(r[1:]); ok && !strings.Contains(ns, "_") {
				ev.Pod = ns + "/" + name
			}
		}
	}
	if p := quotedAfter(msg, "for pod "); p != "" && ev.Pod == "" {
		// "name_ns(uid)"
		if i := strings.LastIndexByte(p, '('); i > 0 && strings.HasSuffix(p, ")") {
			ev.PodUID = p[i+1 : len(p)-1]
			p = p[:i]
		}
		if name, ns, ok := strings.Cut(p, "_"); ok {
			p = ns + "/" + name
		}
		ev.Pod = p
	}
	text := msg
	if ev.Error != "" { // structured: err="unmounted volumes=[…], …: timed out …"
		text = ev.Error
	} else if i := strings.Index(msg, `": `); i >= 0 {
		text = msg[i+3:]
	} else if _, e, ok := strings.Cut(msg, "volumes: "); ok {
		text = e
	}
	text = strings.TrimSuffix(strings.TrimSpace(text), "; skipping pod")
	// Volume lists → Detail; the tail after the last "]: " is the error.
	var lists []string
	keys := []string{"unmounted volumes=", "unattached volumes=", "failed to process volumes="}
	if strings.Contains(text, "unattached/unmounted volumes=") {
		keys = []string{"unattached/unmounted volumes="}
	}
	for _, key := range keys {
		if i := strings.Index(text, key); i >= 0 {
			if j := strings.IndexByte(text[i:], ']'); j >= 0 {
				lists = append(lists, text[i:i+j+1])
			}
		}
	}
	ev.Detail = strings.Join(lists, " ")
	if i := strings.LastIndex(text, "]: "); i >= 0 {
		ev.Error = strings.TrimSpace(text[i+3:])
	} else {
		ev.Error = text
	}
	ev.Code = classifyCode(ev.Error)
	if ev.Code == "" {
		ev.Code = CodeDeadlineExceeded
	}
}

// opRule maps an operation prefix (the text before `for volume "`) to a kind.
type opRule struct {
	prefix string
	kind   Kind
	comp   Component
}

// opRules is checked in order with strings.HasPrefix; specific entries first.
var opRules = []opRule{
	{"attacherDetacher.AttachVolume started", AttachStarted, ComponentKCM},
	{"attacherDetacher.AttachVolume failed to start", AttachStartFailed, ComponentKCM},
	{"Started AttachVolume", AttachStarted, ComponentKCM},
	{"operationExecutor.AttachVolume failed to start", AttachStartFailed, ComponentKCM},
	{"operationExecutor.AttachVolume started", AttachStarted, ComponentKubelet},
	{"attacherDetacher.DetachVolume started", DetachStarted, ComponentKCM},
	{"attacherDetacher.DetachVolume failed to start", DetachStartFailed, ComponentKCM},
	{"Started DetachVolume", DetachStarted, ComponentKCM},
	{"operationExecutor.DetachVolume failed to start", DetachStartFailed, ComponentKCM},
	{"operationExecutor.DetachVolume started", DetachStarted, ComponentKubelet},
	{"Starting attacherDetacher.", Bookkeeping, ComponentKCM},
	{"Starting operationExecutor.", Bookkeeping, ComponentKubelet},
	{"AttachVolume.Attach succeeded", AttachSucceeded, ComponentKCM},
	// Logged only when marking the (already failed) operation uncertain fails;
	// the failure itself is reported by nestedpendingoperations.
	{"AttachVolume.MarkVolumeAsUncertain", Bookkeeping, ComponentKCM},
	{"DetachVolume.MarkVolumeAsUncertain", Bookkeeping, ComponentKCM},
	{"AttachVolume.", AttachFailed, ComponentKCM}, // every AttachVolume.* sentence is a failure
	{"Failed to attach", AttachFailed, ComponentKCM},
	{"DetachVolume.Detach succeeded", DetachSucceeded, ComponentKCM},
	{"DetachVolume", DetachFailed, ComponentKCM}, // DetachVolume.Detach failed, DetachVolume failed …
	{"Failed to detach", DetachFailed, ComponentKCM},
	{"Verified volume is safe to detach", DetachVerifiedSafe, ComponentKCM},
	{"Node not found on API server. DetachVolume will skip safe to detach check", DetachVerifiedSafe, ComponentKCM},
	{"Cannot detach volume because it is still mounted", DetachBlockedMounted, ComponentKCM},
	{"Multi-Attach error", MultiAttach, ComponentKCM},
	{"Waiting for detach", MultiAttach, ComponentKCM},
	{"VerifyVolumesAreAttached determined", MarkedDetached, ComponentKCM},
	{"operationExecutor.VerifyControllerAttachedVolume started", VerifyAttachedStarted, ComponentKubelet},
	{"VerifyControllerAttachedVolume operation started", VerifyAttachedStarted, ComponentKubelet},
	{"operationExecutor.VerifyControllerAttachedVolume failed", VerifyAttachedFailed, ComponentKubelet},
	{"Controller attach succeeded", VerifyAttachedSucceeded, ComponentKubelet},
	{"Volume not attached according to node status", VerifyAttachedFailed, ComponentKubelet},
	{"Volume has not been added to the list of VolumesInUse", VerifyAttachedFailed, ComponentKubelet},
	{"operationExecutor.MountVolume started", MountStarted, ComponentKubelet},
	{"MountVolume operation started", MountStarted, ComponentKubelet},
	{"operationExecutor.MountVolume failed", SetupFailed, ComponentKubelet},
	{"MountVolume.WaitForAttach entering", Bookkeeping, ComponentKubelet},
	{"MountVolume.WaitForAttach succeeded", WaitForAttachSucceeded, ComponentKubelet},
	{"MountVolume.WaitForAttach failed", WaitForAttachFailed, ComponentKubelet},
	{"MountVolume.MountDevice succeeded", MountDeviceSucceeded, ComponentKubelet},
	{"MountVolume.MountDevice failed", MountDeviceFailed, ComponentKubelet},
	{"MountVolume.MarkDeviceAsMounted failed", MountDeviceFailed, ComponentKubelet},
	{"MountVolume.GetDeviceMountPath failed", MountDeviceFailed, ComponentKubelet},
	{"MountVolume.SetUp succeeded", SetupSucceeded, ComponentKubelet},
	{"MountVolume.SetUp failed", SetupFailed, ComponentKubelet},
	{"MountVolume.", SetupFailed, ComponentKubelet}, // NewMounter/FindPluginBySpec/NodeAffinity/Setup … failed
	{"MountVolume failed", SetupFailed, ComponentKubelet},
	{"MapVolume.WaitForAttach succeeded", WaitForAttachSucceeded, ComponentKubelet},
	{"MapVolume.WaitForAttach failed", WaitForAttachFailed, ComponentKubelet},
	{"MapVolume.SetUpDevice succeeded", MountDeviceSucceeded, ComponentKubelet},
	{"MapVolume.SetUpDevice failed", MountDeviceFailed, ComponentKubelet},
	{"MapVolume.MapPodDevice succeeded", SetupSucceeded, ComponentKubelet},
	{"MapVolume.", SetupFailed, ComponentKubelet},
	{"operationExecutor.UnmountVolume started", UnmountStarted, ComponentKubelet},
	{"operationExecutor.UnmountDevice started", UnmountStarted, ComponentKubelet},
	{"operationExecutor.UnmapVolume started", UnmountStarted, ComponentKubelet},
	{"operationExecutor.UnmapDevice started", UnmountStarted, ComponentKubelet},
	{"operationExecutor.UnmountVolume failed", TeardownFailed, ComponentKubelet},
	{"operationExecutor.UnmountDevice failed", UnmountDeviceFailed, ComponentKubelet},
	{"UnmountVolume.TearDown succeeded", TeardownSucceeded, ComponentKubelet},
	{"UnmountVolume.", TeardownFailed, ComponentKubelet},
	{"UnmapVolume.UnmapVolume succeeded", TeardownSucceeded, ComponentKubelet},
	{"UnmapVolume.", TeardownFailed, ComponentKubelet},
	{"UnmountDevice succeeded", UnmountDeviceSucceeded, ComponentKubelet},
	{"UnmapDevice succeeded", UnmountDeviceSucceeded, ComponentKubelet},
	{"UnmountDevice", UnmountDeviceFailed, ComponentKubelet},
	{"UnmapDevice", UnmountDeviceFailed, ComponentKubelet},
	{"GetDeviceMountRefs check failed", UnmountDeviceFailed, ComponentKubelet},
	{"Volume detached", KubeletVolumeDetached, ComponentKubelet},
}

// opRulesByFirst holds opRules by the first byte of their prefix, each list
// in opRules order: a rule can only match an op that starts with that byte.
var opRulesByFirst = func() (t [256][]opRule) {
	for _, r := range opRules {
		t[r.prefix[0]] = append(t[r.prefix[0]], r)
	}
	return t
}()

// opKind looks op up in opRules. A rule whose prefix ends in "." (a family)
// only matches ops that mention a failure, so unknown successes stay unknown.
func opKind(op string) (Kind, Component, bool) {
	if op == "" {
		return 0, 0, false
	}
	for _, r := range opRulesByFirst[op[0]] {
		if r.matches(op) {
			return r.kind, r.comp, true
		}
	}
	return 0, 0, false
}

// opMayMatch reports whether s starts with the prefix of a rule of opRules:
// opKind(op) is false for every op that s does not start with.
func opMayMatch(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range opRulesByFirst[s[0]] {
		if strings.HasPrefix(s, r.prefix) {
			return true
		}
	}
	return false
}

// matches reports whether rule r applies to op (see opKind).
func (r *opRule) matches(op string) bool {
	if !strings.HasPrefix(op, r.prefix) {
		return false
	}
	last := r.prefix[len(r.prefix)-1]
	if (last == '.' || r.prefix == "DetachVolume" || r.prefix == "UnmountDevice" || r.prefix == "UnmapDevice") &&
		!strings.Contains(op, "fail") && !strings.Contains(op, "Fail") && r.kind != Bookkeeping {
		return false
	}
	return r.prefix != "Volume detached" || op == "Volume detached"
}

// classifySentence handles the operation executor sentences (catalog §2) and
// their ≥1.24 InfoS forms whose message is a bare prefix.
func classifySentence(ev *Draft, msg string, kvs []kv) bool {
	return classifySentenceFirst(ev, firstLine(msg), msg, kvs)
}

// classifySentenceFirst is classifySentence for a message whose first
// line (firstLine) is known.
func classifySentenceFirst(ev *Draft, first, msg string, kvs []kv) bool {
	c, cok := parseClause(msg)
	var op string
	if cok {
		op = c.op
	} else {
		op = first
	}
	// 1.3 kubelet: `Volume "V" (spec.Name: …) pod … has not yet been added …`.
	if cok && op == "" {
		switch {
		case strings.Contains(c.rest, "added to the list of VolumesInUse"):
			c.apply(ev)
			ev.Kind, ev.Component, ev.Code = VerifyAttachedFailed, ComponentKubelet, CodeNotInUse
			ev.Error = strings.TrimSuffix(c.rest, ".")
			return true
		case strings.Contains(c.rest, "attached according to node status"):
			c.apply(ev)
			ev.Kind, ev.Component, ev.Code = VerifyAttachedFailed, ComponentKubelet, CodeNotAttached
			ev.Error = strings.TrimSuffix(c.rest, ".")
			return true
		}
	}
	kind, comp, ok := opKind(op)
	if !ok {
		return false
	}
	if cok {
		c.apply(ev)
	}
	ev.Kind, ev.Component = kind, comp
	suffix := ""
	if cok && !c.hasErr {
		suffix = c.rest
	}
	switch kind {
	case DetachStarted:
		if strings.Contains(suffix, "maxWaitForUnmountDuration") && strings.Contains(suffix, "force detaching") {
			ev.Kind = ForceDetach
			ev.Detail = "timeout"
			if d := between(suffix, "maxWaitForUnmountDuration ", " expired"); d != "" {
				ev.Detail = "timeout " + d
			}
		} else if strings.Contains(suffix, "out-of-service") {
			ev.Kind, ev.Detail = ForceDetach, "out-of-service"
		}
	case MultiAttach:
		ev.Code = CodeMultiAttach
		ev.Error = ""
		if d := multiAttachDetailText(suffix); d != "" {
			ev.Detail = d
		} else {
			ev.Detail = multiAttachDetailKV(kvs)
		}
	case VerifyAttachedFailed:
		switch {
		case strings.HasPrefix(op, "Volume not attached"):
			ev.Code = CodeNotAttached
		case strings.HasPrefix(op, "Volume has not been added"):
			ev.Code = CodeNotInUse
		}
		if ev.Error == "" && suffix != "" {
			ev.Error = suffix
		} else if ev.Error == "" {
			ev.Error = op
		}
	case VerifyAttachedSucceeded, WaitForAttachSucceeded, KubeletVolumeDetached, Bookkeeping:
		dp := quotedAfter(suffix, "device path: ")
		if dp == "" {
			dp = quotedAfter(suffix, "DevicePath ")
		}
		if dp != "" {
			ev.Detail = "device path " + dp
			if strings.HasPrefix(dp, "csi-") && len(dp) == 68 {
				ev.Attachment = dp
			}
		}
		if kind == Bookkeeping && ev.Detail == "" {
			ev.Detail = clip(op, 80)
		} else if kind == Bookkeeping {
			ev.Detail = clip(op, 80) + ", " + ev.Detail
		}
	case MarkedDetached:
		if n := quotedAfter(suffix, "attached to node "); n != "" {
			ev.Node = n
		}
	case UnmountStarted:
		if strings.Contains(op, "Device") {
			ev.Detail = "device"
		} else if cok && c.unique != "" && ev.PV != "" {
			// MountedVolume sentences show the pod's volume name, not the PV.
			ev.Detail = "pod volume " + ev.PV
			ev.PV = ""
		}
	case MountDeviceSucceeded:
		if p := quotedAfter(suffix, "device mount path "); p != "" {
			ev.Detail = "device mount path " + p
		}
	case DetachVerifiedSafe:
		if strings.HasPrefix(op, "Node not found") {
			ev.Detail = "safe-to-detach check skipped: node not found"
		}
	case AttachStartFailed, DetachStartFailed:
		if ev.Error != "" && strings.Contains(ev.Error, "already executing") {
			ev.Code = CodeAlreadyExecuting
		}
	}
	// ≤1.6 sentences: "Started AttachVolume for volume V to node N".
	if !cok {
		// Bare structured prefix; fields came from kvs.
		return true
	}
	return true
}

// multiAttachDetailText extracts the blockers from a printf Multi-Attach suffix.
func multiAttachDetailText(s string) string {
	switch {
	case strings.HasPrefix(s, "Volume is already exclusively attached to node "):
		n := strings.TrimPrefix(s, "Volume is already exclusively attached to node ")
		n, _, _ = strings.Cut(n, " and can't")
		return "attachedTo=" + n
	case strings.HasPrefix(s, "Volume is already used by pods "):
		r := strings.TrimPrefix(s, "Volume is already used by pods ")
		pods, node, _ := strings.Cut(r, " on node ")
		out := "pods=" + strings.ReplaceAll(pods, ", ", ",")
		if node != "" {
			out += " attachedTo=" + node
		}
		return out
	case strings.HasPrefix(s, "Volume is already used by pod(s) "):
		r := strings.TrimPrefix(s, "Volume is already used by pod(s) ")
		return "pods=" + strings.ReplaceAll(r, ", ", ",")
	case strings.HasPrefix(s, "Volume is already used by "):
		return "pods=" + strings.TrimPrefix(s, "Volume is already used by ")
	}
	return ""
}

// multiAttachDetailKV renders pods=/attachedTo= pairs of structured Multi-Attach lines.
func multiAttachDetailKV(kvs []kv) string {
	var parts []string
	if v, ok := lookup(kvs, "pods"); ok {
		if l := listValues(v); len(l) > 0 {
			parts = append(parts, "pods="+strings.Join(l, ","))
		}
	}
	if v, ok := lookup(kvs, "attachedTo"); ok {
		if l := listValues(v); len(l) > 0 {
			parts = append(parts, "attachedTo="+strings.Join(l, ","))
		}
	}
	return strings.Join(parts, " ")
}

// classifyRetry handles the nestedpendingoperations / goroutinemap line:
//
//	Operation for "<key>" failed. No retries permitted until <time> (durationBeforeRetry <d>). Error: <err>
//
// The operation inside the error decides the kind; the key gives the volume
// when the error does not. A quoted error (klog printf's %q) is unquoted
// into arena when not nil: an error storm's lines each have one.
func classifyRetry(msg string, arena *[]byte) (Draft, bool) {
	var ev Draft
	key, n, ok := readQuoted(msg[len("Operation for "):])
	rest := msg
	if ok {
		rest = msg[len("Operation for ")+n:]
	}
	r := &Retry{}
	if i := strings.Index(rest, "No retries permitted until "); i >= 0 {
		t := rest[i+len("No retries permitted until "):]
		if j := strings.Index(t, " (durationBeforeRetry "); j >= 0 {
			r.Until = t[:j]
			d := t[j+len(" (durationBeforeRetry "):]
			if k := strings.IndexByte(d, ')'); k >= 0 {
				if dur, err := time.ParseDuration(d[:k]); err == nil {
					r.Backoff = dur
				}
			}
			if k := strings.Index(r.Until, " m=+"); k >= 0 {
				if f, err := strconv.ParseFloat(r.Until[k+4:], 64); err == nil {
					r.Mono = f
				}
			} else if k := strings.Index(r.Until, " m=-"); k >= 0 {
				if f, err := strconv.ParseFloat(r.Until[k+3:], 64); err == nil {
					r.Mono = f
				}
			}
		}
	}
	ev.Retry = r
	errText := ""
	for _, sep := range [...]string{"). Error: ", "). error: "} {
		if i := strings.Index(rest, sep); i >= 0 {
			errText = rest[i+len(sep):]
			break
		}
	}
	errText = strings.TrimSpace(errText)
	if len(errText) >= 2 && errText[0] == '"' {
		if v, m, qok := readQuotedIn(errText, arena); qok && m == len(errText) {
			errText = v
		}
	}
	// Volume/pod/node from the key.
	keyVolume, keyPod, keyNode := parseOpKey(key)

	inner := Draft{}
	innerOK := false
	if errText != "" {
		innerOK = classifySentence(&inner, errText, nil)
	}
	if innerOK && isFailureKind(inner.Kind) {
		inner.Retry = r
		ev = inner
		if ev.Error == "" {
			ev.Error = errText
		}
	} else {
		if innerOK {
			ev = inner
			ev.Retry = r
		}
		ev.Kind = RetryScheduled
		ev.Error = errText
		ev.Detail = ""
		if ev.Component == 0 && (keyPod != "" || strings.Contains(errText, "Mount") || strings.Contains(errText, "pod \"")) {
			ev.Component = ComponentKubelet
		}
	}
	if ev.Volume == "" {
		ev.Volume = keyVolume
	}
	if ev.Node == "" {
		ev.Node = keyNode
	}
	if ev.PodUID == "" && keyPod != "" {
		ev.PodUID = keyPod
	}
	return finish(ev)
}

// parseOpKey decodes the operation key after its outer %q unquoting:
// `"V"`, `"V" ("podUID")`, `{volumeName:V podName:P nodeName:N}` or a bare V.
func parseOpKey(key string) (volume, pod, node string) {
	switch {
	case strings.HasPrefix(key, "{volumeName:"):
		body := strings.TrimSuffix(strings.TrimPrefix(key, "{"), "}")
		pi := strings.Index(body, " podName:")
		ni := strings.Index(body, " nodeName:")
		if pi < 0 || ni < 0 || ni < pi {
			return strings.TrimPrefix(body, "volumeName:"), "", ""
		}
		return body[len("volumeName:"):pi], body[pi+len(" podName:") : ni], body[ni+len(" nodeName:"):]
	case strings.HasPrefix(key, `"`):
		v, n, ok := readQuoted(key)
		if !ok {
			return key, "", ""
		}
		rest := strings.TrimSpace(key[n:])
		if strings.HasPrefix(rest, `("`) {
			p, _, _ := readQuoted(rest[1:])
			pod = p
		}
		return v, pod, ""
	}
	return key, "", ""
}

// isFailureKind reports whether k is a failed-operation kind that a retry line may carry.
func isFailureKind(k Kind) bool {
	switch k {
	case AttachFailed, DetachFailed, VerifyAttachedFailed, WaitForAttachFailed, MountDeviceFailed,
		SetupFailed, TeardownFailed, UnmountDeviceFailed:
		return true
	}
	return false
}

// classifyEventLine handles Kubernetes events echoed into a component log:
// `Event(v1.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"n", UID:"u", …}): type: 'Warning' reason: 'R' msg`
// and `"Event occurred" object="ns/n" kind="Pod" … reason="R" message="…"` (text or JSON).
// The involved object is read only for an event it understands.
func classifyEventLine(msg string, kvs []kv) (Draft, bool) {
	reason, text, ref := eventReason(msg, kvs)
	ev, ok := classifyEventText(reason, text)
	if !ok {
		return Draft{}, false
	}
	var objKind, obj, uid string
	if msg == "Event occurred" {
		objKind, _ = lookup(kvs, "kind")
		o, _ := lookup(kvs, "object")
		obj = kobjName(o)
	} else {
		objKind = quotedAfter(ref, "Kind:")
		ns := quotedAfter(ref, "Namespace:")
		name := quotedAfter(ref, "Name:")
		uid = quotedAfter(ref, "UID:")
		obj = name
		if ns != "" {
			obj = ns + "/" + name
		}
	}
	ev.Origin = OriginEvent
	switch objKind {
	case "Pod", "":
		if obj != "" {
			ev.Pod = obj
		}
		if uid != "" {
			ev.PodUID = uid
		}
	case "Node":
		if ev.Node == "" {
			ev.Node = obj
		}
	}
	return ev, true
}

// eventReason returns the reason and message of an event line (see
// classifyEventLine) and, for the ObjectReference form, the reference's
// text.
func eventReason(msg string, kvs []kv) (reason, text, ref string) {
	if msg == "Event occurred" {
		reason, _ = lookup(kvs, "reason")
		text, _ = lookup(kvs, "message")
		return reason, text, ""
	}
	ref, tail, _ := strings.Cut(msg, "}): ")
	// type: 'Warning' reason: 'R' text
	if _, r, ok := strings.Cut(tail, "reason: '"); ok {
		reason, text, _ = strings.Cut(r, "' ")
		reason = strings.TrimSuffix(reason, "'")
	}
	return reason, text, ref
}

// classifyEventText classifies an event by reason and message; shared by
// event log lines and describe/get-events tables. Most events in a log are
// about anything but volumes (ScalingReplicaSet, SuccessfulCreate,
// ExternalProvisioning …): eventMayClassify turns them away before the
// message is classified.
func classifyEventText(reason, text string) (Draft, bool) {
	text = eventMessage(text)
	if !eventMayClassify(reason, text) {
		return Draft{}, false // what classifyEventMessage says, found cheaply
	}
	return classifyEventMessage(reason, text)
}

// eventMessage is an event's message as classifyEventMessage reads it.
func eventMessage(text string) string {
	text = strings.TrimSpace(text)
	text = strings.TrimPrefix(text, "(combined from similar events): ")
	if strings.Contains(text, "\n") && (strings.HasPrefix(text, "Unable to") || strings.HasPrefix(text, "unable to")) {
		// A pod-level mount timeout has no newline of its own: a terminal
		// wrapped the row ("Unable to\n attach or mount …", "def\nault-token").
		text = strings.ReplaceAll(text, "\n", "")
	}
	return text
}

// classifyEventMessage is classifyEventText for the message as
// eventMessage returns it, without the gate.
func classifyEventMessage(reason, text string) (Draft, bool) {
	ev, ok := classifyMessage("", doubleQuoteVolume(text), nil, nil)
	if ok && ev.Kind == Unknown {
		// Reason-only fallbacks.
		switch reason {
		case "SuccessfulAttachVolume":
			ev.Kind, ev.Reason = AttachSucceeded, ""
		case "FailedAttachVolume":
			ev.Kind, ev.Reason = AttachFailed, ""
			ev.Error = text
			ev.Code = classifyCode(text)
		case "FailedMount", "FailedMapVolume":
			ev.Kind, ev.Reason = SetupFailed, ""
			ev.Error = text
			ev.Code = classifyCode(text)
		}
	}
	if !ok {
		if !volumeEventReason(reason) {
			return Draft{}, false
		}
		ev, ok = Draft{Kind: Unknown}, true
	}
	if ev.Kind == Unknown {
		ev.Reason = "unrecognised " + reason + " event: " + clip(firstLine(text), 80)
		return ev, true
	}
	// Component from the reason (the event's source).
	switch reason {
	case "SuccessfulAttachVolume", "FailedAttachVolume", "SuccessfulDetachVolume", "FailedDetachVolume":
		ev.Component = ComponentKCM
	case "FailedMount", "FailedMapVolume", "SuccessfulMountVolume", "FailedUnMount", "FailedUnmount":
		ev.Component = ComponentKubelet
	}
	ev.Reason = reason
	return ev, true
}

// doubleQuoteVolume is text with a volume name in single quotes (`for
// volume 'pvc-…'`, as some pastes of events have it: an AKS describe)
// double-quoted, as the controllers write it, so that the sentence is
// read; text as it is otherwise, or when the name holds a double quote or
// does not end on its line.
func doubleQuoteVolume(text string) string {
	i := strings.Index(text, "volume '")
	if i < 0 || i > 0 && text[i-1] != ' ' && text[i-1] != '\n' || strings.Contains(text, `volume "`) {
		return text
	}
	start := i + len("volume '")
	n := strings.IndexAny(text[start:], "'\n\"")
	if n <= 0 || text[start+n] != '\'' {
		return text
	}
	return text[:start-1] + `"` + text[start:start+n] + `"` + text[start+n+1:]
}

// volumeEventReason reports the reasons of the events about a volume
// operation: an event with one is never ignored, understood or not.
func volumeEventReason(reason string) bool {
	switch reason {
	case "SuccessfulAttachVolume", "FailedAttachVolume", "FailedMount", "FailedMapVolume",
		"SuccessfulDetachVolume", "FailedDetachVolume", "SuccessfulMountVolume", "FailedUnMount", "FailedUnmount":
		return true
	}
	return false
}

// eventMayClassify reports whether classifyEventMessage may understand an
// event with this reason and message (as eventMessage returns it): false
// only when it returns not-ok. That is when the reason is not
// volumeEventReason and classifyMessage("", text, nil) is not-ok, which
// needs each of classifyMessage's ways to an event to fail; each needs
// what one of these cheap tests looks for:
//
//   - an event line in the message (classifyEventLine again): text starts
//     with "Event(" (an "Event occurred" without pairs has no reason and
//     no message);
//   - a retry line (classifyRetry): text starts with "Operation for ";
//   - classifySpecial: specialMayMatch(first line);
//   - classifySentence: its op (the first line, or the trimmed text before
//     `volume "`) starts with a prefix of opRules (opMayMatch of the text
//     without leading blanks); its sentences without op say "added to the
//     list of VolumesInUse" or "attached according to node status" after
//     `volume "` (volumeRelated);
//   - limitRefusal: limitMayMatch;
//   - driverAttachProgress: "Attaching volume " or "Call IaaS AttachVolume
//     request volume id: " (volumeRelated);
//   - an Unknown or node-side CSIError event: volumeRelated (no pairs).
func eventMayClassify(reason, text string) bool {
	return volumeEventReason(reason) || volumeRelated(text) || specialMayMatch(firstLine(text)) ||
		opMayMatch(strings.TrimLeftFunc(text, unicode.IsSpace)) ||
		strings.HasPrefix(text, "Event(") || strings.HasPrefix(text, "Operation for ") ||
		limitMayMatch(text)
}

// classifyTable handles one `kubectl describe` / `kubectl get events` row.
func classifyTable(t *tableRow) (Draft, bool) {
	ev, ok := classifyEventText(t.Reason, t.Message)
	if !ok {
		return Draft{}, false
	}
	if ev.Kind != Unknown {
		ev.Reason = t.Reason
	}
	ev.Origin = OriginDescribe
	ev.Component = ComponentEvents
	ev.Count = Int32(t.Count)
	if o := t.Object; o != "" {
		kind, name, found := strings.Cut(o, "/")
		switch {
		case !found:
			ev.Pod = o
		case strings.EqualFold(kind, "pod"):
			if ev.Pod == "" || !strings.Contains(ev.Pod, "/") {
				ev.Pod = name
			}
		case strings.EqualFold(kind, "node"):
			if ev.Node == "" {
				ev.Node = name
			}
		}
	}
	// ≤1.19 From: "kubelet, <node>"; 1.4: "{kubelet ip-…}".
	from := strings.Trim(strings.TrimSpace(t.From), "{}")
	if c, host, found := strings.Cut(from, ", "); found && c == "kubelet" && ev.Node == "" {
		ev.Node = strings.TrimSpace(host)
	} else if c, host, found := strings.Cut(from, " "); found && c == "kubelet" && ev.Node == "" {
		ev.Node = strings.TrimSpace(host)
	}
	return ev, true
}

// volumeRelated reports whether text mentions a volume operation (so that
// an unrecognised line becomes Unknown instead of being ignored): one of
// volumeTokens, or "volume" together with "attach", "detach" or "mount" in
// any letter case.
//
// It reads every third byte of s: a word (five bytes or more) starting at
// p has its three bytes at the first multiple of three i ≥ p, so only where
// those three bytes are a three-byte piece of a word (volumeGrams) does it
// check the words that may start at i-2, i-1 and i. Letter case is folded
// for ASCII letters only, which is what strings.ToLower does for these
// words: no other rune lowers to one of their letters
// (TestVolumeWordsFoldASCII).
func volumeRelated(s string) bool {
	volume, op := false, false
	for i := 0; i+2 < len(s); i += 3 {
		if volumeGrams[0][s[i]]&volumeGrams[1][s[i+1]]&volumeGrams[2][s[i+2]] == 0 {
			continue
		}
		for p := max(i-2, 0); p <= i; p++ {
			r := s[p:]
			c := r[0]
			for _, w := range volumeTokensBy[c] {
				if strings.HasPrefix(r, w) {
					return true
				}
			}
			switch c | 0x20 { // lower case
			case 'a':
				op = op || hasPrefixFold(r, "attach")
			case 'd':
				op = op || hasPrefixFold(r, "detach")
			case 'm':
				op = op || hasPrefixFold(r, "mount")
			case 'v':
				volume = volume || hasPrefixFold(r, "volume")
			}
			if volume && op {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case ASCII word w,
// ignoring the case of ASCII letters.
func hasPrefixFold(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := s[i]; c != w[i] && c|0x20 != w[i] {
			return false
		}
	}
	return true
}

// kvVolumeRelated reports whether structured pairs name a volume.
func kvVolumeRelated(kvs []kv) bool {
	for _, p := range kvs {
		switch p.Key {
		case "volumeName", "volume", "VolumeAttachment", "volumeHandle":
			return true
		}
	}
	return false
}

func hasKV(kvs []kv, key, val string) bool {
	v, ok := lookup(kvs, key)
	return ok && v == val
}

func hasKey(kvs []kv, key string) bool {
	_, ok := lookup(kvs, key)
	return ok
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// lastWord returns the last blank-separated word of s.
func lastWord(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

// between returns the text between the first a and the following b, or "".
func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	r := s[i+len(a):]
	j := strings.Index(r, b)
	if j < 0 {
		return ""
	}
	return r[:j]
}

// bracketField returns the value of "key" inside "[k1=v1; key=v2]".
func bracketField(s, key string) string {
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	r := s[i+len(key):]
	if j := strings.IndexAny(r, ";]"); j >= 0 {
		return strings.TrimSpace(r[:j])
	}
	return strings.TrimSpace(r)
}

// clip shortens s to at most n bytes (on a rune boundary), adding "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// limitRefusal classifies a line no case understood whose text says the
// node's volume limit refused an attach (CodeAttachLimit): a cloud API error
// logged by a controller plugin or cloud client (Azure's 409 "maximum number
// of data disks", with its JSON body on continuation lines), or the
// scheduler's "node(s) exceed max volume count". It reports whether it set
// a kind. code is classifyCode(msg), or "" when that cannot be
// CodeAttachLimit.
func limitRefusal(ev *Draft, msg, code string) bool {
	if code != CodeAttachLimit {
		return false
	}
	ev.Code = CodeAttachLimit
	if strings.Contains(msg, "nodes are available") {
		// The scheduler never placed the pod: no attach was tried.
		ev.Kind, ev.Detail = Bookkeeping, "scheduler: node(s) exceed max volume count"
		return true
	}
	ev.Kind, ev.Component, ev.Detail = CSIError, ComponentCSI, "attach"
	if ev.Error == "" {
		ev.Error = strings.TrimSpace(msg)
	}
	if ev.Handle == "" {
		ev.Handle = backendID(msg)
	}
	if i := strings.Index(msg, "/virtualMachines/"); i >= 0 && ev.Node == "" {
		// Azure resource id: …/virtualMachines/<vm name>?api-version=…
		vm := msg[i+len("/virtualMachines/"):]
		if j := strings.IndexAny(vm, "?/, \n\""); j >= 0 {
			vm = vm[:j]
		}
		ev.Node = vm
	}
	return true
}

// grpcErrorVolume finds the volume a CSI error names: a disk-…/vol-… id,
// the id of "An operation with the given Volume ID X already exists", or the
// name of Longhorn's "The volume X is attaching".
func grpcErrorVolume(e string) string {
	if id := backendID(e); id != "" {
		return id
	}
	if _, r, ok := strings.Cut(e, "with the given Volume ID "); ok {
		id, _, _ := strings.Cut(r, " ")
		return id
	}
	if _, r, ok := strings.Cut(e, "desc = The volume "); ok {
		if id, tail, ok := strings.Cut(r, " is "); ok && !strings.Contains(id, " ") && tail != "" {
			return id
		}
	}
	return ""
}

// driverAttachProgress classifies a CSI controller plugin's own progress
// lines for an attach that name the volume and the instance — QingCloud's
// "<request hash>: Attaching volume vol-… to instance i-… in zone …" and
// "Call IaaS AttachVolume request volume id: vol-…, instance id: i-…" —
// which tie a later error of the same call (a volume limit, say) to its
// volume. It reports whether it set a kind.
func driverAttachProgress(ev *Draft, first string) bool {
	if h, rest, ok := strings.Cut(first, ": "); ok && len(h) == 8 && isHex(h) {
		first = rest // request hash prefix
	}
	switch {
	case strings.HasPrefix(first, "Attaching volume ") && strings.Contains(first, " to instance "):
		rest := strings.TrimPrefix(first, "Attaching volume ")
		vol, inst, _ := strings.Cut(rest, " to instance ")
		inst, _, _ = strings.Cut(inst, " ")
		ev.Kind, ev.Component, ev.Handle, ev.Detail = CSIAttaching, ComponentCSI, vol, "instance "+inst
		return true
	case strings.HasPrefix(first, "Call IaaS AttachVolume request volume id: "):
		rest := strings.TrimPrefix(first, "Call IaaS AttachVolume request volume id: ")
		vol, _, _ := strings.Cut(rest, ",")
		ev.Kind, ev.Component, ev.Handle, ev.Detail = Bookkeeping, ComponentCSI, vol, "cloud attach request"
		return true
	}
	return false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
