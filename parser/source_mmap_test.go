package parser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// withMapping runs f with files mapped (mapReader; small ones too) or
// read with read(2), windows of win bytes (at least a block and a page),
// calling hook before each mapped block is applied.
func withMapping(on bool, win int, hook func(*chunk), f func()) {
	ou, ow, oh, om := useMap, mapWindow, cutHook, minMapSize
	useMap, mapWindow, cutHook, minMapSize = on, win, hook, 0
	defer func() { useMap, mapWindow, cutHook, minMapSize = ou, ow, oh, om }()
	f()
}

// TestSmallFileNotMapped: a file decompress's buffer holds whole is read
// from it, not mapped.
func TestSmallFileNotMapped(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	p := cutLog(t, sniffBufSize/250, true)
	big := cutLog(t, sniffBufSize/250+1, true)
	for _, f := range []string{p, big} {
		blocks := 0
		old := minMapSize
		withMapping(true, mapWindow, func(*chunk) { blocks++ }, func() {
			minMapSize = old
			if _, errs := ParseAll([]string{f}, Options{}); len(errs) > 0 {
				t.Fatal(errs)
			}
		})
		if fi, _ := os.Stat(f); (blocks > 0) != (fi.Size() > int64(sniffBufSize)) {
			t.Errorf("%d bytes: %d blocks mapped", fi.Size(), blocks)
		}
	}
}

// TestMappedAgreesWithRead parses every awkward file (eachAwkwardFile)
// mapped and with read(2), in windows small enough that they are mapped
// again and again: the results and the progress are the same, the mapped
// blocks were used, and every window is unmapped once the file is read.
func TestMappedAgreesWithRead(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	eachAwkwardFile(t, func(bs int, f string, shipped bool) {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		parse := func(mapped bool) (r Result, blocks int) {
			var progress int64
			withMapping(mapped, 3*4096, func(*chunk) { blocks++ }, func() {
				rs, errs := ParseAll([]string{f}, Options{Progress: func(n int64) { progress += n }})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				r = rs[0]
			})
			if progress != fi.Size() {
				t.Errorf("%s (blocks of %d, mapped %v): progress %d bytes, want %d", f, bs, mapped, progress, fi.Size())
			}
			return r, blocks
		}
		read, _ := parse(false)
		mapped, blocks := parse(true)
		if shipped && blocks == 0 {
			t.Errorf("%s: no block was mapped", f)
		}
		// every window is unmapped: the comparison below would fault on
		// anything kept that points into one
		if n := liveWindows.Load(); n != 0 {
			t.Fatalf("%s (blocks of %d): %d windows still mapped", f, bs, n)
		}
		if !reflect.DeepEqual(*texttest.Canon(&read), *texttest.Canon(&mapped)) {
			t.Errorf("%s (blocks of %d): mapped result differs:\nread   %+v\nmapped %+v", f, bs, read.Input, mapped.Input)
		}
	})
}

// cutLog writes n lines of 250 bytes: each an event of its own volume
// (events), or another controller's line.
func cutLog(t *testing.T, n int, events bool) string {
	var b strings.Builder
	for i := range n {
		l := fmt.Sprintf("I0812 03:10:%02d.%06d       1 event.go:291] some other controller's line %d", i/60000%60, i%1000000, i)
		if events {
			l = fmt.Sprintf("I0812 03:10:%02d.%06d       1 reconciler.go:224] attacherDetacher.AttachVolume started for volume \"pvc-%d\" (UniqueName: \"kubernetes.io/csi/x^vol-%d\") from node \"n1\"", i/60000%60, i%1000000, i, i)
		}
		b.WriteString(l + strings.Repeat(" ", 249-len(l)) + "\n")
	}
	p := filepath.Join(t.TempDir(), "kcm.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMappedFileCut: a file cut shorter (copytruncate) while the scanner is
// applying its mapped blocks does not crash on the pages gone: the input
// ends at the cut with the problem read(2) gives a shrunk file, keeps every
// event before it and accounts for every line. The cut is at a page
// boundary in the middle of a line, which is not read; another
// controller's lines are counted from the analysis of the block, done
// before the cut, so up to the block's end.
func TestMappedFileCut(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	const lines, lineLen = 4096, 250
	for _, events := range []bool{true, false} {
		p := cutLog(t, lines, events)
		cut := int64(600 << 10) // a page boundary inside the tenth block, in line 2458
		var res Result
		hooked, blockEnd := false, int64(0)
		withBlockSize(64<<10, func() {
			withMapping(true, 128<<10, func(c *chunk) {
				if start := c.end - int64(len(c.data)); !hooked && start < cut && c.end > cut {
					hooked, blockEnd = true, c.end
					if err := os.Truncate(p, cut); err != nil {
						t.Error(err)
					}
				}
			}, func() {
				rs, errs := ParseAll([]string{p}, Options{})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				res = rs[0]
			})
		})
		if !hooked {
			t.Fatal("no block spanned the cut")
		}
		in := res.Input
		want := fmt.Sprintf("the file shrank while it was read (truncated or rotated?): %d of its %d bytes read; the lines read are kept", cut, lines*lineLen)
		if len(in.Problems) != 1 || in.Problems[0].Message != want || !in.Truncated {
			t.Errorf("events %v: problems %+v, truncated %v: want only %q", events, in.Problems, in.Truncated, want)
		}
		n, upTo, evs := int(cut/lineLen), int(cut/lineLen), 0
		if events {
			evs = n
		} else {
			upTo = int(blockEnd / lineLen)
		}
		if in.Lines < n || in.Lines > upTo || in.EventLines != evs || len(res.Events) != evs || in.Unaccounted() != 0 {
			t.Errorf("events %v: lines %d, event lines %d, events %d, unaccounted %d: want the %d–%d lines before the cut, %d events", events, in.Lines, in.EventLines, len(res.Events), in.Unaccounted(), n, upTo, evs)
		}
	}
}

// TestMappedFileCutAhead: a file cut under a block the reader is cutting
// at its last newline, or one handed out and not yet analysed, faults on
// the reader's or an analysis goroutine: the input ends at the block
// (recovered, never a crash), with every line and event before it and the
// problem of a shrunk file.
func TestMappedFileCutAhead(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	const lines, lineLen = 4096, 250
	for _, searched := range []bool{false, true} {
		p := cutLog(t, lines, true)
		cut := int64(-1)
		var res Result
		withBlockSize(64<<10, func() {
			withMapping(true, 128<<10, nil, func() {
				readHook = func(start, end int64, s bool) {
					if s == searched && cut < 0 && start >= 300<<10 {
						cut = start // the page it starts in stays, the rest is gone
						if err := os.Truncate(p, cut); err != nil {
							t.Error(err)
						}
					}
				}
				defer func() { readHook = nil }()
				rs, errs := ParseAll([]string{p}, Options{})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				res = rs[0]
			})
		})
		in := res.Input
		want := fmt.Sprintf("the file shrank while it was read (truncated or rotated?): %d of its %d bytes read; the lines read are kept", cut, lines*lineLen)
		if len(in.Problems) != 1 || in.Problems[0].Message != want || !in.Truncated {
			t.Errorf("searched %v: problems %+v, truncated %v: want only %q", searched, in.Problems, in.Truncated, want)
		}
		if n := int(cut / lineLen); in.Lines != n || in.EventLines != n || len(res.Events) != n || in.Unaccounted() != 0 {
			t.Errorf("searched %v: lines %d, event lines %d, events %d, unaccounted %d: want the %d lines before the cut, each an event", searched, in.Lines, in.EventLines, len(res.Events), in.Unaccounted(), n)
		}
	}
}

// TestMappedFallsBack: when a window cannot be mapped, the file is read on
// from there with read(2): the result and the progress are those of a
// file read with read(2) throughout.
func TestMappedFallsBack(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	p := cutLog(t, 4096, true)
	parse := func(mapped bool, failFrom int) (Result, int64) {
		var progress int64
		var res Result
		withBlockSize(64<<10, func() {
			withMapping(mapped, 128<<10, nil, func() {
				maps, old := 0, mapWin
				mapWin = func(f *os.File, off int64, n int) ([]byte, error) {
					if maps++; maps > failFrom {
						return nil, errors.New("no mapping")
					}
					return old(f, off, n)
				}
				defer func() { mapWin = old }()
				rs, errs := ParseAll([]string{p}, Options{Progress: func(n int64) { progress += n }})
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				res = rs[0]
			})
		})
		return res, progress
	}
	want, _ := parse(false, 0)
	for _, failFrom := range []int{0, 1, 3} {
		got, progress := parse(true, failFrom)
		if !reflect.DeepEqual(*texttest.Canon(&want), *texttest.Canon(&got)) {
			t.Errorf("mapping failed from window %d: result differs:\nread   %+v\nmapped %+v", failFrom+1, want.Input, got.Input)
		}
		if progress != 4096*250 {
			t.Errorf("mapping failed from window %d: progress %d bytes, want %d", failFrom+1, progress, 4096*250)
		}
	}
}

// TestMappedFileGrows: a file that grows while it is read is read on to
// its end, as read(2) reads it; a file that says it is empty (/proc) is
// read with read(2).
func TestMappedFileGrows(t *testing.T) {
	if !canMap {
		t.Skip("files are not mapped on this system")
	}
	p := cutLog(t, 4096, true)
	more, err := os.ReadFile(cutLog(t, 100, false))
	if err != nil {
		t.Fatal(err)
	}
	var res Result
	grown := false
	withBlockSize(64<<10, func() {
		withMapping(true, 128<<10, func(*chunk) {
			if !grown {
				grown = true
				f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.Write(more)
				f.Close()
			}
		}, func() {
			rs, errs := ParseAll([]string{p}, Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			res = rs[0]
		})
	})
	if in := res.Input; in.Lines != 4196 || in.EventLines != 4096 || in.Bytes != 4196*250 || len(in.Problems) != 0 {
		t.Errorf("lines %d, event lines %d, bytes %d, problems %+v: want the 4096 event lines and the 100 appended", in.Lines, in.EventLines, in.Bytes, in.Problems)
	}
	withMapping(true, mapWindow, nil, func() {
		rs, errs := ParseAll([]string{"/proc/self/status"}, Options{})
		if len(errs) > 0 || rs[0].Input.Lines < 5 {
			t.Errorf("/proc/self/status: %d lines, errors %v: want it read", rs[0].Input.Lines, errs)
		}
	})
}

// TestFileTextsReadBack: the texts of a regular file's one-line entries
// are read back from the file (textstore.Origin), whether it was read with
// read(2) or from mappings of it, and say so when it was cut since; texts
// that are not the file's bytes as they stand (a CRI wrapper removed) are
// kept, and read the same after the cut.
func TestFileTextsReadBack(t *testing.T) {
	ways := []bool{false}
	if canMap {
		ways = append(ways, true)
	}
	for _, mapped := range ways {
		t.Run(map[bool]string{false: "read", true: "mapped"}[mapped], func(t *testing.T) {
			testFileTextsReadBack(t, mapped)
		})
	}
}

func testFileTextsReadBack(t *testing.T, mapped bool) {
	plain := cutLog(t, 400, true)
	raw, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var cri strings.Builder
	for _, l := range strings.SplitAfter(string(raw), "\n") {
		if l != "" {
			cri.WriteString("2024-08-12T03:10:00.000000000Z stderr F " + l)
		}
	}
	wrapped := filepath.Join(t.TempDir(), "kcm-cri.log")
	if err := os.WriteFile(wrapped, []byte(cri.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var rs []Result
	var blocks atomic.Int64 // the two inputs are read at once
	withMapping(mapped, 3*4096, func(*chunk) { blocks.Add(1) }, func() {
		var errs []error
		rs, errs = ParseAll([]string{plain, wrapped}, Options{Year: 2024})
		if len(errs) > 0 {
			t.Fatal(errs)
		}
	})
	if n := blocks.Load(); mapped != (n > 0) {
		t.Fatalf("mapping on: %v, but %d blocks mapped", mapped, n)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	for _, r := range rs {
		if len(r.Events) != len(lines) {
			t.Fatalf("%s: %d events, want %d", r.Input.Path, len(r.Events), len(lines))
		}
		for i, ev := range r.Events {
			if s := ev.Text.String(); s != lines[i] {
				t.Fatalf("%s: event %d's text %.60q, want %.60q", r.Input.Path, i, s, lines[i])
			}
		}
	}
	for _, p := range []string{plain, wrapped} {
		if err := os.Truncate(p, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i, ev := range rs[0].Events {
		if s := ev.Text.String(); !strings.HasPrefix(s, "[text unavailable: "+plain+": the file is shorter") {
			t.Fatalf("cut %s: event %d's text %.80q, want it unavailable", plain, i, s)
		}
	}
	for i, ev := range rs[1].Events {
		if s := ev.Text.String(); s != lines[i] {
			t.Fatalf("cut %s: event %d's text %.60q, want it as read", wrapped, i, s)
		}
	}
}
