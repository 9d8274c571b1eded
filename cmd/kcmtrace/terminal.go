package main

import (
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/hugeheap"
	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// useColor decides colour for --color: auto means a terminal, no NO_COLOR
// and a TERM that is not "dumb".
func useColor(mode string, w io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// defaultWidth is the layout width when the output is not a terminal.
const defaultWidth = 100

// outputWidth is the terminal's width, else $COLUMNS, else defaultWidth.
func outputWidth(w io.Writer, getenv func(string) string) int {
	if f, ok := w.(*os.File); ok && isTerminal(w) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			return cols
		}
	}
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return defaultWidth
}

// progressMin is the input size from which a progress bar is worth showing.
const progressMin = 64 << 20

// progress is a byte-count progress bar on stderr; a nil *progress does nothing.
type progress struct{ bar *progressbar.ProgressBar }

// newProgress returns a bar when stderr is a terminal, progress is not
// disabled and the regular files among paths add up to progressMin or more.
// Directories and stdin count nothing, so they show no bar of their own.
func newProgress(e env, paths []string, disabled bool) *progress {
	if disabled || !isTerminal(e.stderr) {
		return nil
	}
	var total int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			total += st.Size()
		}
	}
	if total < progressMin {
		return nil
	}
	// schollz/progressbar: bytes, rate and ETA, throttled redraws, cleared on
	// finish; maintained and dependency-light, which is why it was chosen.
	bar := progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription("reading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)
	return &progress{bar: bar}
}

func (p *progress) add(n int64) {
	if p != nil {
		_ = p.bar.Add64(n)
	}
}

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}

// Soft memory limit: the live heap grows with the relevant events, which
// grow with the input (about 54 MiB per GiB of KCM log with 1% volume lines
// at its largest, once the timeline is built; measured with
// internal/benchmark TestHeapStages). GOGC=100 lets the heap reach twice
// that before collecting; a soft limit of memBase + memPerGiB per GiB of
// input keeps it near the live size for large inputs, and is never reached
// by small ones. It is soft: when the live heap is larger the runtime
// collects more often (at most about half the CPU), it never fails. The
// per-GiB share leaves the live heap ~13% headroom: at 48 MiB per GiB a
// 4 GiB input sat at its limit and collected continuously (4.7 s against
// 3.8 s). The limit covers the Go heap (the parser's read buffers
// included); the binary, goroutine stacks and the runtime's own memory come
// on top (1 GiB of KCM log: peak RSS 90–97 MiB).
// Below memMinInput the default is kept: the heap is small anyway.
//
// From hugeMinInput on, the heap is also placed on huge pages (hugeheap):
// twice memBase + memPerGiB per GiB of address space is reserved for it,
// at most maxHugeReserve: on a VM where a 4 KiB fault costs ~10 µs that
// took 128 MiB of KCM log from 0.12 to 0.08 s, and 1 GiB from 0.54 to
// 0.40 s.
//
// Once the input is parsed, the limit grows by memModelRoom for building
// the model: the timeline's tables are then allocated on top of the
// parsed events, and a collection started by them ran on the part of the
// run that uses one core (1 GiB: 0.321/0.338 → 0.302/0.325 s best/median
// of 7, peak RSS 87 → 91–97 MiB).
const (
	memBase        = 15 << 20
	memPerGiB      = 61 << 20
	memModelRoom   = 10 << 20
	memMinInput    = 256 << 20
	hugeMinInput   = 16 << 20
	maxHugeReserve = 1 << 30
)

// prepareHeap reserves huge pages for the heap and sets the soft limit,
// from the sizes of the regular files among paths (inputBytes). It does
// nothing when a path is a directory or stdin (size unknown), or when the
// input is small; the limit is left alone when GOMEMLIMIT is set. parsed,
// to be called once the input is parsed, gives the model its room.
func prepareHeap(paths []string, getenv func(string) string) (parsed func()) {
	parsed = func() {}
	total, ok := inputBytes(paths)
	if !ok || total < hugeMinInput {
		return parsed
	}
	limit := memBase + int64(total/(1<<30)*memPerGiB)
	hugeheap.Reserve(int(min(2*limit, maxHugeReserve)))
	if total >= memMinInput && getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
		parsed = func() { debug.SetMemoryLimit(limit + memModelRoom) }
	}
	return parsed
}

// inputBytes estimates how many bytes of log the regular files among paths
// hold once decompressed; ok is false when a path is not a regular file.
// A gzip file says its size (ISIZE, gzipSize); otherwise a compressed file
// counts 8 times its size.
func inputBytes(paths []string) (total float64, ok bool) {
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue // reported when parsing
		}
		if !st.Mode().IsRegular() {
			return 0, false
		}
		n := float64(st.Size())
		switch {
		case strings.HasSuffix(p, ".gz"):
			if size, ok := gzipSize(p, st.Size()); ok {
				n = float64(size)
			} else {
				n *= 8
			}
		case strings.HasSuffix(p, ".zst"):
			n *= 8
		}
		total += n
	}
	return total, true
}

// gzipSize reads the uncompressed size a gzip file (magic 1f 8b) of size
// bytes records in its last four bytes (ISIZE, RFC 1952). That is the size modulo 4 GiB
// of its last member only, so it is believed only when it is at least
// twice the compressed size (logs compress 5-10 times; a smaller value is
// a wrapped or a partial count).
func gzipSize(path string, size int64) (int64, bool) {
	if size < 18 { // header and trailer
		return 0, false
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var magic, b [4]byte
	if _, err := f.ReadAt(magic[:2], 0); err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		return 0, false
	}
	if _, err := f.ReadAt(b[:], size-4); err != nil {
		return 0, false
	}
	isize := int64(binary.LittleEndian.Uint32(b[:]))
	return isize, isize >= 2*size
}

// atomicFile writes to a temporary file beside path and renames it into
// place on commit, so a reader never sees half a report.
type atomicFile struct {
	f    *os.File
	path string
}

func createAtomic(path string) (*atomicFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &atomicFile{f: f, path: path}, nil
}

func (a *atomicFile) Write(p []byte) (int, error) { return a.f.Write(p) }

// commit closes and renames; abort removes the temporary file.
func (a *atomicFile) commit() error {
	if err := a.f.Close(); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	if err := os.Chmod(a.f.Name(), 0o644); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return os.Rename(a.f.Name(), a.path)
}

func (a *atomicFile) abort() {
	a.f.Close()
	os.Remove(a.f.Name())
}
