package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// guardedMap is mapFile with an inaccessible page right after the
// mapping (left reserved when the window is unmapped: tests only).
func guardedMap(f *os.File, off int64, n int) ([]byte, error) {
	page := os.Getpagesize()
	span := (n + page - 1) &^ (page - 1)
	base, err := unix.MmapPtr(-1, 0, nil, uintptr(span+page), unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	if _, err := unix.MmapPtr(int(f.Fd()), off, base, uintptr(n), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_FIXED|unix.MAP_POPULATE); err != nil {
		return nil, err
	}
	return unsafe.Slice((*byte)(base), n), nil
}

// TestMappedPageEnd: a file that ends exactly at a page boundary maps to
// nothing past its last byte, so a kernel reading past a block's end
// (Teddy, the klog and JSON run kernels) would fault there; guardedMap
// makes sure the page after each window faults (another mapping could
// sit there otherwise). Every era's
// lines, the last one an event with and without its newline, over one to
// three pages, give what read(2) gives.
func TestMappedPageEnd(t *testing.T) {
	page := os.Getpagesize()
	old := mapWin
	mapWin = guardedMap
	defer func() { mapWin = old }()
	eras := map[string]string{
		"legacy":     `I0812 03:10:00.%06d       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume "pvc-%d" (UniqueName: "kubernetes.io/csi/x^vol-1") from node "n1"`,
		"structured": `I0812 03:10:00.%06d       1 reconciler.go:224] "attacherDetacher.AttachVolume started" volumeName="kubernetes.io/csi/x^vol-%d" nodeName="n1"`,
		"json":       `{"ts":1723432200%03d.5,"caller":"reconciler/reconciler.go:224","msg":"attacherDetacher.AttachVolume started","volumeName":"kubernetes.io/csi/x^vol-%d","nodeName":"n1","v":0}`,
		"irrelevant": `I0812 03:10:00.%06d       1 event.go:291] some other controller's line %d`,
	}
	for name, tmpl := range eras {
		for pages := 1; pages <= 3; pages++ {
			for _, newline := range []bool{true, false} {
				var b strings.Builder
				for i := 0; b.Len() < pages*page-400; i++ {
					b.WriteString(fmt.Sprintf(tmpl, i%1000, i) + "\n")
				}
				// pad the last line (an event) to end on the page
				last := fmt.Sprintf(eras["legacy"], 999, 7)
				pad := pages*page - b.Len() - len(last)
				if newline {
					pad--
				}
				b.WriteString(strings.Replace(last, "from node", strings.Repeat(" ", pad)+"from node", 1))
				if newline {
					b.WriteString("\n")
				}
				if b.Len() != pages*page {
					t.Fatalf("built %d bytes, want %d", b.Len(), pages*page)
				}
				p := filepath.Join(t.TempDir(), "kcm.log")
				if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				parse := func(mapped bool) (r Result, blocks int) {
					withMapping(mapped, page, func(*chunk) { blocks++ }, func() {
						rs, _ := ParseAll([]string{p}, Options{})
						r = rs[0]
					})
					return r, blocks
				}
				read, _ := parse(false)
				mapped, blocks := parse(true)
				if blocks == 0 {
					t.Errorf("%s, %d pages: not mapped", name, pages)
				}
				if len(read.Events) == 0 {
					t.Errorf("%s, %d pages: no event", name, pages)
				}
				if !reflect.DeepEqual(*texttest.Canon(&read), *texttest.Canon(&mapped)) {
					t.Errorf("%s, %d pages, newline %v: mapped result differs:\nread   %+v\nmapped %+v", name, pages, newline, read.Input, mapped.Input)
				}
			}
		}
	}
}
