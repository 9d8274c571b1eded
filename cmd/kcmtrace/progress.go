package main

// The progress bars shown on a terminal while inputs are read and while
// store sources are fetched.

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
	"github.com/kcmtrace/kcmtrace/parser"
	"github.com/schollz/progressbar/v3"
)

// progressMin is the input size from which a progress bar is worth showing.
const progressMin = 64 << 20

// progressSettle is how long a bar stays hidden after it starts: a rate
// measured over the first milliseconds is noise (a whole read buffer in
// no time), and an input read faster than this needs no bar.
const progressSettle = time.Second

// progress is a byte-count progress bar on stderr, counting the text read
// (decompressed bytes, Options.Progress); a nil *progress does nothing.
// max < 0 is a spinner: the size is unknown (stdin, a pipe).
type progress struct {
	bar       *progressbar.ProgressBar
	max, done int64
}

// inputSize is the text size of the inputs (inputs of unknown size aside):
// the decompressed size of regular files and of the log files a directory
// walk finds, estimated by parser.TextSize. known is false when an input's
// size cannot be known before it is read: stdin, or a pipe such as <(…).
// A path that is neither (a log-store URL, a missing file) counts nothing.
func inputSize(paths []string) (total int64, known bool) {
	for _, p := range paths {
		if p == "-" {
			return 0, false
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		files := []string{p}
		if st.IsDir() {
			files = parser.InputFiles(p)
		}
		n, ok := parser.TextSize(files)
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

// progressMax decides the bar for inputs of total text bytes (known
// false: unknown): -1 for a spinner, 0 for no bar (too small to be worth
// one, or stdin typed at the terminal, where the bar would draw over the
// text pasted), else the bar's total.
func progressMax(total int64, known, stdinTyped bool) int64 {
	switch {
	case !known && stdinTyped:
		return 0
	case !known:
		return -1
	case total < progressMin:
		return 0
	}
	return total
}

// newProgress returns a bar when stderr is a terminal, progress is not
// disabled and the inputs are large (progressMax), or a spinner with the
// bytes read when their size is unknown.
func newProgress(e env, paths []string, disabled bool) *progress {
	if disabled || !isTerminal(e.stderr) {
		return nil
	}
	total, known := inputSize(paths)
	max := progressMax(total, known, countStdin(paths) > 0 && e.stdinIsTerminal())
	if max == 0 {
		return nil
	}
	// schollz/progressbar: bytes, rate and ETA, throttled redraws, cleared on
	// finish; maintained and dependency-light, which is why it was chosen.
	opts := []progressbar.Option{
		progressbar.OptionSetWriter(&settleWriter{w: e.stderr, start: time.Now(), settle: progressSettle}),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionClearOnFinish(),
	}
	if max < 0 {
		opts = append(opts, progressbar.OptionSetDescription("reading stdin"), progressbar.OptionSpinnerType(14))
	} else {
		opts = append(opts, progressbar.OptionSetDescription("reading"), progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30))
	}
	return &progress{bar: progressbar.NewOptions64(max, opts...), max: max}
}

// add counts n bytes read. A total that was an estimate (compressed
// inputs) and falls short grows, so that the bar does not end early.
func (p *progress) add(n int64) {
	if p == nil {
		return
	}
	p.done += n
	if p.max > 0 && p.done >= p.max {
		p.max = growMax(p.done)
		p.bar.ChangeMax64(p.max)
	}
	_ = p.bar.Add64(n)
}

// growMax is the new total of a bar whose estimate done has reached: an
// eighth more, the margin the size estimates are off by.
func growMax(done int64) int64 { return done + done/8 + 1 }

func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}

// settleWriter drops what is written to it until settle has passed since
// start, then writes through: the bar's first frames, whose rate and ETA
// are measured over too short a time, are never shown.
type settleWriter struct {
	w      io.Writer
	start  time.Time
	settle time.Duration
	now    func() time.Time // nil: time.Now
	open   bool
}

func (s *settleWriter) Write(b []byte) (int, error) {
	if !s.open {
		now := time.Now
		if s.now != nil {
			now = s.now
		}
		if now().Sub(s.start) < s.settle {
			return len(b), nil
		}
		s.open = true
	}
	return s.w.Write(b)
}

// fetchCounter sums what the fetches of store sources report (one
// livesource.Progress per source and role, the latest of each): the
// records fetched and the windows done, and how much of each role's time
// window is covered. It is the bar's text, kept apart from the bar so that
// it is tested without a terminal.
type fetchCounter struct {
	mu    sync.Mutex
	last  map[string]livesource.Progress // by "SOURCE ROLE"
	order []string
}

// update takes one report of src and returns the line to show.
func (c *fetchCounter) update(src string, p livesource.Progress) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[string]livesource.Progress{}
	}
	key := src + " " + p.Role
	if _, ok := c.last[key]; !ok {
		c.order = append(c.order, key)
	}
	c.last[key] = p
	records, windows := 0, 0
	for _, k := range c.order {
		records += c.last[k].Records
		windows += c.last[k].Windows
	}
	pct := 0
	if p.Span > 0 {
		pct = int(100 * p.Covered / p.Span)
	}
	return fmt.Sprintf("fetching: %d records, %d windows done (%s %d%%)", records, windows, p.Role, pct)
}

// fetchProgress is a spinner on stderr saying what fetchCounter counts; a
// nil bar (not a terminal, or --no-progress) still counts.
type fetchProgress struct {
	counter fetchCounter
	bar     *progressbar.ProgressBar
}

// newFetchProgress returns the fetch progress; it draws only when stderr
// is a terminal and progress is not disabled.
func newFetchProgress(e env, disabled bool) *fetchProgress {
	p := &fetchProgress{}
	if !disabled && isTerminal(e.stderr) {
		p.bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(e.stderr),
			progressbar.OptionSetDescription("fetching"),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// report is the livesource.Options.Progress of one source.
func (p *fetchProgress) report(src string) func(livesource.Progress) {
	return func(pr livesource.Progress) {
		line := p.counter.update(src, pr)
		if p.bar != nil {
			p.bar.Describe(line)
			_ = p.bar.Add(1)
		}
	}
}

func (p *fetchProgress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
