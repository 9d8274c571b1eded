//go:build linux && (amd64 || arm64)

package earlyheap

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The initialiser (it ran before this test) made the 2 MiB the heap was
// filling one huge page, and marked its chunk for huge pages.
func TestHeapStartsOnHugePage(t *testing.T) {
	if Outcome.Skipped != "" {
		t.Skip("left alone: " + Outcome.Skipped)
	}
	m, err := mappingOf(Outcome.Region)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+m["VmFlags"]+" ", " hg ") {
		t.Errorf("the heap's mapping at %#x is not marked for huge pages: VmFlags %q", Outcome.Region, m["VmFlags"])
	}
	if Outcome.Err != nil {
		t.Skipf("the collapse failed (%v): an older kernel, or no huge page free", Outcome.Err)
	}
	kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(m["AnonHugePages"]), " kB"))
	if kb < hugePage>>10 {
		t.Errorf("the heap's mapping at %#x holds %d kB of huge pages, want at least the one collapsed (%d kB)", Outcome.Region, kb, hugePage>>10)
	}
}

// mappingOf returns the fields of /proc/self/smaps for the mapping that
// holds addr.
func mappingOf(addr uintptr) (map[string]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var fields map[string]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok && !strings.HasSuffix(lo, ":") {
			b, err1 := strconv.ParseUint(lo, 16, 64)
			e, err2 := strconv.ParseUint(hi, 16, 64)
			if fields != nil {
				return fields, nil
			}
			if err1 == nil && err2 == nil && uintptr(b) <= addr && addr < uintptr(e) {
				fields = map[string]string{}
			}
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok && fields != nil {
			fields[k] = strings.TrimSpace(v)
		}
	}
	if fields != nil {
		return fields, sc.Err()
	}
	return nil, fmt.Errorf("no mapping holds %#x", addr)
}
