package earlyheap

import "testing"

// skip leaves the heap alone where huge pages are off or not 2 MiB, and
// goes ahead where the settings cannot be read.
func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		name, godebug, enabled, pmd string
		skipped                     bool
	}{
		{"madvise", "", "always [madvise] never\n", "2097152\n", false},
		{"always", "", "[always] madvise never\n", "2097152\n", false},
		{"unreadable settings", "", "", "", false},
		{"never", "", "always madvise [never]\n", "2097152\n", true},
		{"GODEBUG", "gctrace=1, disablethp=1", "always [madvise] never\n", "2097152\n", true},
		{"other GODEBUG", "disablethp=0", "always [madvise] never\n", "2097152\n", false},
		{"64 KiB base pages", "", "always [madvise] never\n", "536870912\n", true},
	} {
		if got := skip(tc.godebug, tc.enabled, tc.pmd); (got != "") != tc.skipped {
			t.Errorf("%s: skip = %q, want skipped %v", tc.name, got, tc.skipped)
		}
	}
}
