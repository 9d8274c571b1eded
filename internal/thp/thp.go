// Package thp reads the settings that decide whether kcmtrace asks for
// transparent huge pages: the kernel's (its THP mode, the size of its huge
// page, its overcommit mode) and the runtime's own switch,
// GODEBUG=disablethp=1. internal/earlyheap and internal/hugeheap ask it.
//
// It imports only syscall: earlyheap's initialiser asks it, and an import
// of strings or os would order that initialiser after half the others
// (see earlyheap).
package thp

// The kernel's settings files.
const (
	EnabledPath    = "/sys/kernel/mm/transparent_hugepage/enabled"
	PMDSizePath    = "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"
	OvercommitPath = "/proc/sys/vm/overcommit_memory"
)

// Disabled reports whether godebug ($GODEBUG) turns huge pages off
// (disablethp=1, the runtime's own switch).
func Disabled(godebug string) bool {
	for kv := range fields(godebug, ',') {
		if kv == "disablethp=1" {
			return true
		}
	}
	return false
}

// Usable reports whether the THP mode (the enabled file, e.g. "always
// [madvise] never") gives huge pages to memory marked for them. An
// unreadable setting ("") is tried: the advice is harmless.
func Usable(enabled string) bool {
	for w := range fields(enabled, ' ') {
		if w == "[never]" {
			return false
		}
	}
	return true
}

// Trim returns s without blanks (spaces, tabs, newlines) around it.
func Trim(s string) string {
	for len(s) > 0 && blank(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && blank(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// fields yields the parts of s between seps, trimmed, empty ones left
// out.
func fields(s string, sep byte) func(func(string) bool) {
	return func(yield func(string) bool) {
		for len(s) > 0 {
			i := 0
			for i < len(s) && s[i] != sep {
				i++
			}
			part := Trim(s[:i])
			if i < len(s) {
				i++
			}
			s = s[i:]
			if part != "" && !yield(part) {
				return
			}
		}
	}
}

func blank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
