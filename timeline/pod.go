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
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return false
	}
	for _, g := range [...][2]int{{0, 8}, {9, 13}, {14, 18}, {19, 23}, {24, 36}} {
		for i := g[0]; i < g[1]; i++ {
			if !hexByte[s[i]] {
				return false
			}
		}
	}
	return true
}

// hexByte: the lower-case hex digits.
var hexByte = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()
