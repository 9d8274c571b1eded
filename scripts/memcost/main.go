// Command memcost measures the two costs of the machine that move
// kcmtrace's run time against rg's from one hour to the next: what a
// fresh page of memory costs the first time it is written (a page fault
// and the zeroing of the page: on the Firecracker VMs this project is
// measured on it has ranged from ~0.15 to ~2 ms a MiB on 2 MiB pages, and
// ~3 ms on 4 KiB ones), and how fast read(2) copies a file from the page
// cache (0.05 to 0.10 s a GiB for one file as it was cached).
//
// kcmtrace's run pays the first for its peak RSS (tens of MiB) and both
// tools pay the second, rg's run being mostly that copy: when fresh memory
// is dear or the page cache is fast, the ratio of their times grows
// without either program changing. scripts/bench.sh prints this line above
// its tables so that runs of different hours can be compared.
//
//	go run ./scripts/memcost [FILE...]
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	mib := flag.Int("mib", 32, "fresh memory to write per measurement, in MiB")
	runs := flag.Int("runs", 5, "measurements of each: the median and the range are printed")
	flag.Parse()
	if err := run(os.Stdout, *mib, *runs, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "memcost:", err)
		os.Exit(1)
	}
}

// run prints one line: the fresh-memory costs, then the page cache's read
// speed over files (when any).
func run(w io.Writer, mib, runs int, files []string) error {
	if mib <= 0 || runs <= 0 {
		return errors.New("-mib and -runs must be positive")
	}
	var costs []string
	for _, huge := range []bool{true, false} {
		given := true
		ds, err := times(runs, func() (time.Duration, error) {
			d, ok, err := touchFresh(mib<<20, huge)
			given = given && ok
			return d, err
		})
		if errors.Is(err, errUnsupported) {
			costs = []string{"n/a on this platform"}
			break
		}
		if err != nil {
			return err
		}
		name := "4 KiB pages"
		if huge {
			name = "2 MiB pages"
			if !given {
				name = "2 MiB pages asked, not always given"
			}
		}
		perMiB := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(mib) }
		costs = append(costs, fmt.Sprintf("%s %.2f ms/MiB (%.2f–%.2f)", name, perMiB(ds[len(ds)/2]), perMiB(ds[0]), perMiB(ds[len(ds)-1])))
	}
	line := "fresh memory: " + strings.Join(costs, ", ")
	if len(files) > 0 {
		var bytes int64
		ds, err := times(runs, func() (time.Duration, error) {
			t0 := time.Now()
			n, err := readAll(files)
			bytes = n
			return time.Since(t0), err
		})
		if err != nil {
			return err
		}
		line += fmt.Sprintf("; page cache read(2): %.1f GB/s (%d MiB, 512 KiB reads)", float64(bytes)/ds[len(ds)/2].Seconds()/1e9, bytes>>20)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// times runs f n times and returns how long each took, sorted.
func times(n int, f func() (time.Duration, error)) ([]time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		d, err := f()
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds, nil
}

// readAll reads every file through one reused 512 KiB buffer, as
// kcmtrace's reader and rg --no-mmap do, and returns the bytes read.
func readAll(files []string) (int64, error) {
	buf := make([]byte, 512<<10)
	var total int64
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return total, err
		}
		for {
			n, err := f.Read(buf)
			total += int64(n)
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return total, fmt.Errorf("%s: %w", name, err)
			}
		}
		f.Close()
	}
	return total, nil
}
