package timeline

import "strings"

// PodName is the name part of a pod reference "ns/name"; a reference
// without a namespace is its own name. A Kubernetes object name never
// holds a '/', so of "a/b/c" only "c" can be the name: PodName takes what
// follows the last '/' (a reference with more parts, such as a
// "cluster/ns/name" paste, still yields the pod's name, never "b/c").
func PodName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// isUID reports whether a pod string is only a UID, lower-case
// 8-4-4-4-12 hex (kubelet unmount lines name the pod by UID).
func isUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
