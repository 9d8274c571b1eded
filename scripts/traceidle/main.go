// Command traceidle reads a Go execution trace (kcmtrace analyze --profile
// trace --profile-output run.trace …) and says, per window of the run, how
// the cores were used: how long N goroutines were running (a goroutine in
// a system call counts as running: read(2)'s copy is CPU) while M more
// were runnable. Fewer running than the run had cores (its Ps, unless
// -cores says otherwise) while one was runnable is a core left idle while
// there was work: a wake-up not yet served, or a runnable goroutine queued
// on a P that a system call holds.
//
//	go -C scripts/traceidle run . "$PWD/run.trace"               # the whole run
//	go -C scripts/traceidle run . -window 20ms "$PWD/run.trace"  # by 20 ms
//
// After the table it names the goroutines that ran while a core idled
// with nothing runnable (by the function each started in, with the
// innermost trace region it was in — kcmtrace's phases are regions — and
// "in a system call" when it was in one): the stage the others were
// waiting for. On
// two cores, the block reader there in read(2) means the analysis had
// drained the blocks read; the scanner there, that the blocks wait for it.
//
// It is a module of its own (golang.org/x/exp/trace), so that kcmtrace
// does not depend on it.
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"golang.org/x/exp/trace"
)

// usage is the time spent in each state of the run, by window.
type usage struct {
	full        time.Duration // every core running
	idleWaiting time.Duration // a core idle while a goroutine was runnable
	idle        time.Duration // a core idle, none runnable
	none        time.Duration // nothing running
}

// plus is u and o added up.
func (u usage) plus(o usage) usage {
	return usage{full: u.full + o.full, idleWaiting: u.idleWaiting + o.idleWaiting, idle: u.idle + o.idle, none: u.none + o.none}
}

func main() {
	window := flag.Duration("window", 0, "report each window of this length (0: the whole run)")
	cores := flag.Int("cores", 0, "the cores the run had (0: its Ps, as the trace records them)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: traceidle [-window D] [-cores N] run.trace")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "traceidle:", err)
		os.Exit(1)
	}
	if *cores <= 0 {
		if *cores, err = procs(bytes.NewReader(data)); err != nil {
			fmt.Fprintf(os.Stderr, "traceidle: %s: %v\n", flag.Arg(0), err)
			os.Exit(1)
		}
	}
	wins, alone, err := read(bytes.NewReader(data), *window, *cores)
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
		total = total.plus(u)
	}
	fmt.Printf("%-12s %12s %12s %12s %12s\n", "whole run", ms(total.full), ms(total.idleWaiting), ms(total.idle), ms(total.none))
	if len(alone) > 0 {
		fmt.Println("\nrunning while a core idled with nothing runnable:")
		for _, a := range topAlone(alone, 10) {
			fmt.Printf("%12s  %s\n", ms(a.d), a.name)
		}
	}
}

// aloneTime is how long goroutines that started in one function ran
// while a core idled with nothing runnable.
type aloneTime struct {
	name string
	d    time.Duration
}

// topAlone is the n longest of alone, longest first.
func topAlone(alone map[string]time.Duration, n int) []aloneTime {
	var out []aloneTime
	for name, d := range alone {
		out = append(out, aloneTime{name, d})
	}
	slices.SortFunc(out, func(a, b aloneTime) int { return cmp.Or(cmp.Compare(b.d, a.d), cmp.Compare(a.name, b.name)) })
	return out[:min(n, len(out))]
}

// procs is how many Ps the traced run had: the distinct ones its events
// name.
func procs(r io.Reader) (int, error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return 0, err
	}
	seen := map[trace.ProcID]bool{}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return max(1, len(seen)), nil
		}
		if err != nil {
			return 0, err
		}
		if p := ev.Proc(); p != trace.NoProc {
			seen[p] = true
		}
	}
}

// read walks the trace's goroutine state changes, adding the time between
// two events to the state the run was in; alone adds the time a core
// idled with nothing runnable to each goroutine running then, by the
// function it started in (its stack's outermost frame).
func read(r io.Reader, window time.Duration, cores int) (wins []usage, alone map[string]time.Duration, err error) {
	tr, err := trace.NewReader(r)
	if err != nil {
		return nil, nil, err
	}
	var (
		start, prev   trace.Time
		begun         bool
		running, wait int
		state         = map[trace.GoID]trace.GoState{}
		label         = map[trace.GoID]string{}
		busyGs        = map[trace.GoID]bool{}     // running or in a system call
		regions       = map[trace.GoID][]string{} // the regions open on each goroutine, innermost last
	)
	alone = map[string]time.Duration{}
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
				for id := range busyGs {
					name := cmp.Or(label[id], "(no stack in the trace)")
					if rs := regions[id]; len(rs) > 0 {
						name += " [" + rs[len(rs)-1] + "]"
					}
					if state[id] == trace.GoSyscall {
						name += " (in a system call)"
					}
					alone[name] += d
				}
			}
			from = end
		}
	}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return wins, alone, nil
		}
		if err != nil {
			return wins, alone, err
		}
		if !begun {
			start, prev, begun = ev.Time(), ev.Time(), true
		}
		add(prev, ev.Time())
		prev = ev.Time()
		switch ev.Kind() {
		case trace.EventRegionBegin:
			g := ev.Goroutine()
			regions[g] = append(regions[g], ev.Region().Type)
			continue
		case trace.EventRegionEnd:
			g := ev.Goroutine()
			if rs := regions[g]; len(rs) > 0 {
				regions[g] = rs[:len(rs)-1]
			}
			continue
		case trace.EventStateTransition:
		default:
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		id := st.Resource.Goroutine()
		_, to := st.Goroutine()
		if _, ok := label[id]; !ok {
			for f := range st.Stack.Frames() {
				label[id] = f.Func // the outermost frame comes last
			}
		}
		old := state[id]
		if busy(old) {
			running--
		}
		if old == trace.GoRunnable {
			wait--
		}
		if busy(to) {
			running++
			busyGs[id] = true
		} else {
			delete(busyGs, id)
		}
		if to == trace.GoRunnable {
			wait++
		}
		state[id] = to
	}
}
