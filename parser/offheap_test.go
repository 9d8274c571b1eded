package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/offheap"
)

// TestOffHeapNames parses every shipped log and generated logs of the
// large shapes with the names and tuples off the collector's heap
// (internal/offheap, as the CLI does for a large input) and on it: the
// events must be the same after collections have run and reused the
// heap's free memory, and every string of a tuple made off the heap must
// be off the heap too — a tuple there is not scanned, so a string of the
// Go heap that only it held would be freed under it.
func TestOffHeapNames(t *testing.T) {
	paths := testInputs(t)
	dir := t.TempDir()
	for _, g := range []struct {
		shape loggen.Shape
		era   loggen.Era
	}{{loggen.ShapeChurn, loggen.Legacy}, {loggen.ShapeStorm, loggen.JSON}, {loggen.ShapeDefault, loggen.Structured}} {
		var kcm, kubelet bytes.Buffer
		if _, err := loggen.Generate(&kcm, loggen.Config{Size: 4 << 20, Era: g.era, Shape: g.shape, Seed: 7, Kubelet: &kubelet}); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"kcm": kcm.Bytes(), "kubelet": kubelet.Bytes()} {
			p := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.log", g.shape, g.era, name))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
		}
	}
	parse := func() [][]string {
		var all [][]string
		for _, p := range paths {
			var evs []string
			res := parseFile(t, p, Options{})
			for i := range res.Events {
				evs = append(evs, eventText(&res.Events[i]))
			}
			all = append(all, evs)
		}
		return all
	}
	want := parse()

	disable, ok := offheap.Enable()
	if !ok {
		t.Skip("no off-heap memory on this platform")
	}
	defer disable()
	var results []Result
	for _, p := range paths {
		results = append(results, parseFile(t, p, Options{}))
	}
	disable()
	for range 3 { // let the collector free and the heap reuse what it may
		runtime.GC()
		var garbage [][]byte
		for range 4096 {
			garbage = append(garbage, bytes.Repeat([]byte{0xA5}, 512))
		}
		runtime.KeepAlive(garbage)
	}

	offTuples := 0
	for i, res := range results {
		if len(res.Events) != len(want[i]) {
			t.Fatalf("%s: %d events off the heap, %d on it", paths[i], len(res.Events), len(want[i]))
		}
		for k := range res.Events {
			ev := &res.Events[k]
			if got := eventText(ev); got != want[i][k] {
				t.Fatalf("%s: event %d off the heap:\n  %s\non it:\n  %s", paths[i], k, got, want[i][k])
			}
			for _, tu := range []struct {
				p    unsafe.Pointer
				strs []string
			}{
				{unsafe.Pointer(ev.Ident), identStrings(ev)},
				{unsafe.Pointer(ev.Place), placeStrings(ev)},
				{unsafe.Pointer(ev.Cause), causeStrings(ev)},
			} {
				if tu.p == nil || !offheap.Owns(tu.p) {
					continue
				}
				offTuples++
				for _, s := range tu.strs {
					if s != "" && !offheap.Owns(unsafe.Pointer(unsafe.StringData(s))) {
						t.Fatalf("%s: event %d: a tuple off the heap holds %q, a string of the Go heap", paths[i], k, s)
					}
				}
			}
		}
	}
	if offTuples < 1000 {
		t.Fatalf("only %d tuples made off the heap", offTuples)
	}
}

// eventText is every field of an event the parse decides, its text read
// back, for comparing two parses (the Text reference differs).
func eventText(ev *Event) string {
	s := fmt.Sprintf("%v %v %v %v %v %d %d %q %q %q %q", ev.Time, ev.Kind, ev.Component, ev.Origin, ev.Level, ev.PID, ev.EchoOf, ev.Source,
		identStrings(ev), placeStrings(ev), causeStrings(ev))
	if ev.Cause != nil {
		s += fmt.Sprint(" ", ev.Age)
	}
	if ev.Repeat != nil {
		s += fmt.Sprintf(" %v %d %v %v", ev.Span, ev.Count, ev.Relative, ev.RWXKey)
		if ev.Retry != nil {
			s += fmt.Sprintf(" %+v", *ev.Retry)
		}
	}
	return s + " " + ev.Text.String()
}

func identStrings(ev *Event) []string {
	if ev.Ident == nil {
		return nil
	}
	return []string{ev.Volume, ev.PV, ev.Handle}
}

func placeStrings(ev *Event) []string {
	if ev.Place == nil {
		return nil
	}
	return []string{ev.Node, ev.Pod, ev.PodUID}
}

func causeStrings(ev *Event) []string {
	if ev.Cause == nil {
		return nil
	}
	return []string{ev.Error, ev.Code, ev.Detail, ev.Reason, ev.Attachment}
}
