// Command traceidle reads a Go execution trace (kcmtrace analyze --profile
// trace --profile-output run.trace …) and says, per window of the run, how
// the cores were used: how long N goroutines were running (a goroutine in
// a system call counts as running: read(2)'s copy is CPU) while M more
// were runnable. "1 running, ≥1 runnable" on a 2-core machine is a core
// left idle while there was work: a wake-up not yet served, or a runnable
// goroutine queued on a P that a system call holds.
//
//	go -C scripts/traceidle run . "$PWD/run.trace"               # the whole run
//	go -C scripts/traceidle run . -window 20ms "$PWD/run.trace"  # by 20 ms
//
// It is a module of its own (golang.org/x/exp/trace), so that kcmtrace
// does not depend on it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/exp/trace"
)

// usage is the time spent in each state of the run, by window.
type usage struct {
	idleWaiting, idle, full time.Duration // 1 running and ≥1 runnable; 1 running, none; ≥2 running
	none                    time.Duration // nothing running
}

func main() {
	window := flag.Duration("window", 0, "report each window of this length (0: the whole run)")
	cores := flag.Int("cores", 2, "the cores the run had")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: traceidle [-window D] [-cores N] run.trace")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "traceidle:", err)
		os.Exit(1)
	}
	defer f.Close()
	wins, err := read(f, *window, *cores)
	if err != nil {
		fmt.Fprintf(os.Stderr, "traceidle: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	fmt.Printf("%-12s %12s %12s %12s %12s\n", "from", "all busy", "idle+waiting", "idle", "none running")
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }
	var total usage
	for i, u := range wins {
		if *window > 0 {
			fmt.Printf("%-12s %12s %12s %12s %12s\n", time.Duration(i)**window, ms(u.full), ms(u.idleWaiting), ms(u.idle), ms(u.none))
		}
		total.full += u.full
		total.idleWaiting += u.idleWaiting
		total.idle += u.idle
		total.none += u.none
	}
	fmt.Printf("%-12s %12s %12s %12s %12s\n", "whole run", ms(total.full), ms(total.idleWaiting), ms(total.idle), ms(total.none))
}

// read walks the trace's goroutine state changes, adding the time between
// two events to the state the run was in.
func read(r io.Reader, window time.Duration, cores int) ([]usage, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, err
	}
	var (
		wins          []usage
		start, prev   trace.Time
		begun         bool
		running, wait int
		state         = map[trace.GoID]trace.GoState{}
	)
	busy := func(s trace.GoState) bool { return s == trace.GoRunning || s == trace.GoSyscall }
	add := func(from, to trace.Time) {
		for from < to {
			k, end := 0, to
			if window > 0 {
				k = int(time.Duration(from-start) / window)
				end = min(to, start+trace.Time(time.Duration(k+1)*window))
			}
			for len(wins) <= k {
				wins = append(wins, usage{})
			}
			d, u := time.Duration(end-from), &wins[k]
			switch {
			case running >= cores:
				u.full += d
			case running == 0:
				u.none += d
			case wait > 0:
				u.idleWaiting += d
			default:
				u.idle += d
			}
			from = end
		}
	}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return wins, nil
		}
		if err != nil {
			return wins, err
		}
		if !begun {
			start, prev, begun = ev.Time(), ev.Time(), true
		}
		add(prev, ev.Time())
		prev = ev.Time()
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := st.Resource.Goroutine()
		_, to := st.Goroutine()
		old := state[id]
		if busy(old) {
			running--
		}
		if old == trace.GoRunnable {
			wait--
		}
		if busy(to) {
			running++
		}
		if to == trace.GoRunnable {
			wait++
		}
		state[id] = to
	}
}
