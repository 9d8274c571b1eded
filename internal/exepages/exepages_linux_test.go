package exepages

import (
	"os"
	"reflect"
	"testing"
)

// codeRSS is the resident kB of the mapping holding this package's code.
func codeRSS(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	pc := reflect.ValueOf(Release).Pointer()
	for _, m := range parseSmaps(b) {
		if pc >= m.beg && pc < m.end {
			return m.rss
		}
	}
	t.Fatal("no mapping holds the code")
	return 0
}

// TestReleaseGivesBackCode: Release unmaps the test binary's resident code
// (what is read again after comes back, and runs unchanged).
func TestReleaseGivesBackCode(t *testing.T) {
	if traced() {
		t.Skip("a debugger traces the test: Release leaves the pages alone")
	}
	before := codeRSS(t)
	if n := Release(); n <= 0 {
		t.Fatalf("Release released %d bytes", n)
	}
	after := codeRSS(t)
	if after >= before {
		t.Errorf("code resident: %d kB before Release, %d after", before, after)
	}
	t.Logf("code resident: %d kB before Release, %d after", before, after)
	// the code still runs: parse the fixture again
	if len(parseSmaps([]byte(smapsFixture))) != 7 {
		t.Fatal("parseSmaps changed after Release")
	}
	// again (the mappings found the first time): what came back goes again
	again := codeRSS(t)
	if n := Release(); n <= 0 {
		t.Fatalf("second Release released %d bytes", n)
	}
	if after := codeRSS(t); after >= again {
		t.Errorf("code resident: %d kB before the second Release, %d after", again, after)
	}
}
