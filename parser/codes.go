package parser

import "strings"

// classifyCode maps an error text to one of the Code* constants, or "" when
// nothing is recognised. It matches error codes and fixed phrases written by
// Kubernetes, cloud SDKs and drivers — never the free-form, service-provided
// Message of a cloud SDK error (it may be in Chinese and may mention anything):
// `[TencentCloudSDKError] Code=…, Message=…, RequestId=…` keeps only its Code.
//
// Order matters: the most specific classes come first (a CBS serial error is
// wrapped in `code = Internal`; a ZoneNotMatch message may say "not found").
func classifyCode(errText string) string {
	if errText == "" {
		return ""
	}
	s := stripSDKMessages(errText)
	l := strings.ToLower(s)
	switch {
	case strings.Contains(l, "has not been added to the list of volumesinuse"),
		strings.Contains(l, "has not yet been added to the list of volumesinuse"),
		strings.Contains(l, "volume not marked in-use"):
		return CodeNotInUse
	case strings.Contains(l, "not attached according to node status"),
		strings.Contains(l, "not yet attached according to node status"):
		return CodeNotAttached
	case strings.Contains(l, "can not find diskid"), strings.Contains(l, "cannot find diskid"),
		strings.Contains(l, "volumedevicenotfound"),
		strings.Contains(l, "could not find device path"),
		strings.Contains(l, "cbs block path") && strings.Contains(l, "not found"),
		strings.Contains(l, "not attached to node"),
		strings.Contains(l, "failed to find device path"),
		strings.Contains(l, "no device found"):
		return CodeSerialNotFound
	case strings.Contains(l, "multi-attach"), strings.Contains(l, "already exclusively attached"),
		strings.Contains(l, "waiting for detach"):
		return CodeMultiAttach
	case strings.Contains(l, "zonenotmatch"), strings.Contains(l, "zonemismatch"),
		strings.Contains(l, "zone mismatch"), strings.Contains(l, "not in the same zone"),
		strings.Contains(l, "node affinity conflict"),
		strings.Contains(l, "availability zone") && strings.Contains(l, "match"):
		return CodeZoneNotMatch
	case strings.Contains(l, "still in use by node"), strings.Contains(l, "still mounted by other references"):
		return CodeStillMounted
	case strings.Contains(l, "volumeinuse"), strings.Contains(l, "already attached to an instance"),
		strings.Contains(l, "is attach to another instance"), strings.Contains(l, "attached to another"),
		strings.Contains(l, "already attached to a different"), strings.Contains(l, "already attached to node"),
		strings.Contains(l, "already used by pod"):
		return CodeVolumeInUse
	case strings.Contains(l, "already executing"), strings.Contains(l, "alreadyexists desc = operation"):
		return CodeAlreadyExecuting
	case strings.Contains(l, "permissiondenied"), strings.Contains(l, "permission denied"),
		strings.Contains(l, "unauthorizedoperation"), strings.Contains(l, "authfailure"):
		return CodePermission
	case strings.Contains(l, "notfound"), strings.Contains(l, "not found"), strings.Contains(l, "does not exist"):
		return CodeNotFound
	case strings.Contains(l, "deadlineexceeded"), strings.Contains(l, "deadline exceeded"),
		strings.Contains(l, "timed out"), strings.Contains(l, "timeout"):
		return CodeDeadlineExceeded
	case strings.Contains(l, "code = internal"):
		return CodeInternal
	}
	return ""
}

// stripSDKMessages removes the service-provided `Message=…` part of cloud SDK
// errors (`Code=X, Message=…, RequestId=…`) so that only codes are matched.
func stripSDKMessages(s string) string {
	if !strings.Contains(s, "Message=") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "Message=")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len("Message="):]
		j := strings.Index(rest, "RequestId=")
		if j < 0 {
			return b.String()
		}
		s = rest[j:]
	}
}
