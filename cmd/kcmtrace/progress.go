package main

// The progress bar shown on a terminal while large inputs are read.

import (
	"os"
	"time"

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
