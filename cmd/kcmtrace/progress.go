package main

// The progress bars shown on a terminal while large inputs are read and
// while store sources are fetched.

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kcmtrace/kcmtrace/livesource"
	"github.com/schollz/progressbar/v3"
)

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
