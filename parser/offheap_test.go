package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	"github.com/kcmtrace/kcmtrace/internal/loggen"
	"github.com/kcmtrace/kcmtrace/internal/offheap"
	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// TestOffHeapNames parses every shipped log and generated logs of the
// large shapes with the names and tuples off the collector's heap
// (internal/offheap, as the CLI does for a large input) and on it: the
// events must be the same, field by field (texttest.Canon), after
// collections have run and reused the heap's free memory, and every string of a tuple made off the heap must
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
	var want []Result
	for _, p := range paths {
		want = append(want, parseFile(t, p, Options{}))
	}

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
		if len(res.Events) != len(want[i].Events) {
			t.Fatalf("%s: %d events off the heap, %d on it", paths[i], len(res.Events), len(want[i].Events))
		}
		for k := range res.Events {
			ev := &res.Events[k]
			if got, w := *texttest.Canon(ev), *texttest.Canon(&want[i].Events[k]); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: event %d off the heap:\n  %+v\non it:\n  %+v", paths[i], k, got, w)
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
