// Command kcmgen generates large synthetic kube-controller-manager logs with
// planted attach/detach incidents, and checks kcmtrace's findings against the
// manifest of what was planted. It is a development tool for benchmarks.
//
//	kcmgen -size 1GiB -era legacy -shape default -seed 1 -o kcm.log [-kubelet kubelet.log] [-manifest planted.json]
//	kcmgen -flat 1000000 -o flat.log
//	kcmgen verify -manifest planted.json -report out.json [-strict] [-ignore RULE,…]
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "verify" {
		return verify(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("kcmgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", "128MiB", "KCM log size (bytes, or with KiB/MiB/GiB suffix)")
	era := fs.String("era", "legacy", "line format: legacy (1.19–1.21), structured (≥1.28), json")
	shape := fs.String("shape", "default", "traffic shape: default (~9.5k volumes/GiB), churn (~35k volumes/GiB, two events each), many-nodes (5000 nodes, 1000 volumes), storm (default plus an attach API outage over a tenth of the span: ~1000 volumes retrying)")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "KCM log output path (default stdout)")
	kubelet := fs.String("kubelet", "", "also write node B's kubelet log to this path")
	manifest := fs.String("manifest", "", "write the manifest of planted incidents (JSON) to this path")
	span := fs.Duration("span", 0, "time covered (default 24h per GiB, at least 2h)")
	flat := fs.Int("flat", 0, "write only this many volumes, two lines each (attach started, succeeded), every name distinct, over -span (default 2h); -size, -era, -shape, -seed and -kubelet do not apply")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *flat > 0 {
		return writeFlat(*flat, *out, *span, stdout, stderr)
	}
	n, err := ParseSize(*size)
	if err != nil {
		fmt.Fprintln(stderr, "kcmgen:", err)
		return 2
	}
	cfg := loggen.Config{Size: n, Era: loggen.Era(*era), Shape: loggen.Shape(*shape), Seed: *seed, Span: *span}
	var w io.Writer = stdout
	var closers []*os.File
	create := func(p string) (*os.File, error) {
		f, err := os.Create(p)
		if err == nil {
			closers = append(closers, f)
		}
		return f, err
	}
	if *out != "" && *out != "-" {
		f, err := create(*out)
		if err != nil {
			fmt.Fprintln(stderr, "kcmgen:", err)
			return 1
		}
		w = f
	}
	if *kubelet != "" {
		f, err := create(*kubelet)
		if err != nil {
			fmt.Fprintln(stderr, "kcmgen:", err)
			return 1
		}
		cfg.Kubelet = f
	}
	start := time.Now()
	m, err := loggen.Generate(w, cfg)
	for _, f := range closers {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "kcmgen:", err)
		return 1
	}
	if *manifest != "" {
		b, _ := json.MarshalIndent(m, "", "  ")
		if err := os.WriteFile(*manifest, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "kcmgen:", err)
			return 1
		}
	}
	el := time.Since(start)
	fmt.Fprintf(stderr, "kcmgen: %s era, %s shape, %d bytes, %d lines (%.2f%% volume lines), %s → %s, %d healthy lifecycles, %d incidents, %.1fs (%.0f MiB/s)\n",
		m.Era, *shape, m.Bytes, m.Lines, 100*float64(m.VolumeLines)/float64(max(m.Lines, 1)), m.Start.Format(time.RFC3339), m.End.Format(time.RFC3339),
		m.Lifecycles, len(m.Incidents), el.Seconds(), float64(m.Bytes)/(1<<20)/el.Seconds())
	return 0
}

// writeFlat is kcmgen -flat: loggen.Flat to out (stdout for "" or "-").
func writeFlat(volumes int, out string, span time.Duration, stdout, stderr io.Writer) int {
	w, f := stdout, (*os.File)(nil)
	if out != "" && out != "-" {
		var err error
		if f, err = os.Create(out); err != nil {
			fmt.Fprintln(stderr, "kcmgen:", err)
			return 1
		}
		w = f
	}
	n, err := loggen.Flat(w, volumes, time.Time{}, span)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "kcmgen:", err)
		return 1
	}
	fmt.Fprintf(stderr, "kcmgen: flat shape, %d volumes, %d bytes, %d lines\n", volumes, n, 2*volumes)
	return 0
}

func verify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kcmgen verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifest := fs.String("manifest", "", "manifest written by kcmgen -manifest")
	report := fs.String("report", "", "output of kcmtrace analyze --format json")
	strict := fs.Bool("strict", false, "also fail on findings on healthy (non-planted) volumes")
	ignore := fs.String("ignore", "", "comma-separated rules not to expect (e.g. mount-device-not-found when the kubelet log is left out)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *manifest == "" || *report == "" {
		fmt.Fprintln(stderr, "kcmgen verify: -manifest and -report are required")
		return 2
	}
	m, err := readWith(*manifest, loggen.ReadManifest)
	if err != nil {
		fmt.Fprintln(stderr, "kcmgen verify:", err)
		return 2
	}
	rep, err := readWith(*report, loggen.ReadReport)
	if err != nil {
		fmt.Fprintln(stderr, "kcmgen verify:", err)
		return 2
	}
	if *ignore != "" {
		drop := map[string]bool{}
		for _, r := range strings.Split(*ignore, ",") {
			drop[strings.TrimSpace(r)] = true
		}
		for i := range m.Incidents {
			var keep []string
			for _, r := range m.Incidents[i].ExpectRules {
				if !drop[r] {
					keep = append(keep, r)
				}
			}
			m.Incidents[i].ExpectRules = keep
		}
	}
	v := loggen.Verify(m, rep)
	v.Print(stdout)
	if !v.OK || (*strict && len(v.Other) > 0) {
		return 1
	}
	return 0
}

func readWith[T any](path string, read func(io.Reader) (*T, error)) (*T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// ParseSize reads "1GiB", "128MiB", "512KiB", "1000" (bytes); KB/MB/GB are
// read as their binary counterparts too.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSuffix(t, u.suf), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f <= 0 {
		return 0, errors.New("bad size " + strconv.Quote(s) + " (want e.g. 128MiB, 1GiB)")
	}
	return int64(f * float64(mult)), nil
}
