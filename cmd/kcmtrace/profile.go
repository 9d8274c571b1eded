package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profileFlags are kubectl's hidden --profile and --profile-output: a
// runtime profile of the whole run, for measuring where the time and the
// memory go on a user's own logs (go tool pprof FILE).
type profileFlags struct {
	Profile       string `hidden:"" enum:"none,cpu,heap,allocs,trace" default:"none" help:"Write a profile of the run: none, cpu, heap, allocs or trace (go tool trace: which phase runs on which core, and the collector)."`
	ProfileOutput string `hidden:"" default:"profile.pprof" help:"Where --profile writes." type:"path"`
}

// defaultMemProfileRate is the runtime's own default sampling rate
// (runtime.MemProfileRate before main sets it to 0).
const defaultMemProfileRate = 512 * 1024

// start begins the profile; the returned function ends and writes it.
func (p profileFlags) start() (stop func() error, err error) {
	if p.Profile == "none" || p.Profile == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(p.ProfileOutput)
	if err != nil {
		return nil, fmt.Errorf("--profile-output: %v", err)
	}
	if p.Profile == "trace" {
		if err := trace.Start(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--profile trace: %v", err)
		}
		return func() error { trace.Stop(); return f.Close() }, nil
	}
	if p.Profile == "cpu" {
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--profile cpu: %v", err)
		}
		return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
	}
	switch p.Profile {
	case "heap":
		runtime.MemProfileRate = 4096 // the live heap in detail: the compact model is measured by it
	case "allocs":
		runtime.MemProfileRate = defaultMemProfileRate // main turned sampling off
	}
	return func() error {
		if p.Profile == "heap" {
			runtime.GC()
		}
		err := pprof.Lookup(p.Profile).WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// phase marks a phase of the run (parse, timeline, rules, render) in a
// --profile trace, where go tool trace shows it under "User-defined
// regions"; without a trace it costs a check of a flag.
func phase(name string) *trace.Region {
	return trace.StartRegion(context.Background(), name)
}
