//go:build linux && (amd64 || arm64)

package earlyheap

import (
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/smapstest"
)

// The initialiser (it ran before this test) made the 2 MiB the heap was
// filling one huge page, and marked its chunk for huge pages.
func TestHeapStartsOnHugePage(t *testing.T) {
	if Outcome.Skipped != "" {
		t.Skip("left alone: " + Outcome.Skipped)
	}
	flags, err := smapstest.Field(Outcome.Region, "VmFlags")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the heap's mapping at %#x is not marked for huge pages: VmFlags %q", Outcome.Region, flags)
	}
	if Outcome.Err != nil {
		t.Skipf("the collapse failed (%v): an older kernel, or no huge page free", Outcome.Err)
	}
	kb, err := smapstest.HugePagesKB(Outcome.Region)
	if err != nil {
		t.Fatal(err)
	}
	if kb < hugePage>>10 {
		t.Errorf("the heap's mapping at %#x holds %d kB of huge pages, want at least the one collapsed (%d kB)", Outcome.Region, kb, hugePage>>10)
	}
}
