package main

import (
	"bytes"
	"context"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRead traces a run that keeps every core busy for a while and then
// one goroutine alone, and checks that read accounts for the whole trace,
// puts the busy part under "all busy" and the lone part under "idle", and
// names the lone goroutine by the function it started in and the region
// it was in.
func TestRead(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	spin := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	var wg sync.WaitGroup
	for range cores {
		wg.Go(func() { spin(60 * time.Millisecond) })
	}
	wg.Wait()
	done := make(chan struct{})
	go spinAlone(spin, done) // alone: this goroutine waits
	<-done
	trace.Stop()
	elapsed := time.Since(start)

	data := buf.Bytes()
	if n, err := procs(bytes.NewReader(data)); err != nil || n != cores {
		t.Errorf("procs = %d, %v; the run had GOMAXPROCS %d", n, err, cores)
	}
	wins, alone, err := read(bytes.NewReader(data), 0, cores)
	if err != nil {
		t.Fatal(err)
	}
	if top := topAlone(alone, 1); cores > 1 && (len(top) == 0 || !strings.HasSuffix(top[0].name, ".spinAlone [lonely]") || top[0].d < 40*time.Millisecond) {
		t.Errorf("ran alone the longest: %+v; want spinAlone in its region, most of its 60 ms", top)
	}
	if len(wins) != 1 {
		t.Fatalf("%d windows for the whole run, want 1", len(wins))
	}
	u := wins[0]
	total := u.full + u.idleWaiting + u.idle + u.none
	if total < elapsed*8/10 || total > elapsed*11/10 {
		t.Errorf("accounted %v of a %v trace", total, elapsed)
	}
	if cores > 1 && u.full < 30*time.Millisecond {
		t.Errorf("all cores busy %v, want most of the 60 ms they spun together (%+v)", u.full, u)
	}
	if cores > 1 && u.idle < 40*time.Millisecond {
		t.Errorf("one goroutine alone %v, want most of the 60 ms it spun alone (%+v)", u.idle, u)
	}
}

// spinAlone spins for 60 ms, in a trace region, and closes done.
func spinAlone(spin func(time.Duration), done chan<- struct{}) {
	trace.WithRegion(context.Background(), "lonely", func() { spin(60 * time.Millisecond) })
	close(done)
}

// TestReadWindows checks that windows split the same time the whole run has.
func TestReadWindows(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	for t0 := time.Now(); time.Since(t0) < 50*time.Millisecond; {
	}
	trace.Stop()
	data := buf.Bytes()
	whole, _, err := read(bytes.NewReader(data), 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	wins, _, err := read(bytes.NewReader(data), 10*time.Millisecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(wins) < 5 {
		t.Fatalf("%d windows of 10 ms for a 50 ms run", len(wins))
	}
	var sum usage
	for _, w := range wins {
		sum = sum.plus(w)
	}
	if sum != whole[0] {
		t.Errorf("windows add up to %+v, the whole run is %+v", sum, whole[0])
	}
}
