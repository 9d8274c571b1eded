package parser

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kcmtrace/kcmtrace/internal/texttest"
)

// TestReserveKeepsEveryEvent feeds an input of known size its events at
// several densities and checks where they land: in one reserved array
// when the estimate holds, spilling into pages when it does not, only in
// pages when the size is unknown; and that flattenAll then keeps every
// event in order, appending the next input's to the reserved array when
// there is room.
func TestReserveKeepsEveryEvent(t *testing.T) {
	const size = 1 << 30
	for _, c := range []struct {
		name      string
		sizeHint  int64
		events    int
		density   func(k int) int64 // bytes seen when event k is read
		direct    bool              // still appending to the reserved array at the end
		reserved  bool
		inPlace   bool // flattenAll kept the first input's array
		otherSize int
	}{
		{name: "uniform", sizeHint: size, events: 10 * eventPage, density: func(k int) int64 { return int64(k) * size / (10 * eventPage) },
			direct: true, reserved: true, inPlace: true, otherSize: 300},
		{name: "uniform-other-too-big", sizeHint: size, events: 10 * eventPage, density: func(k int) int64 { return int64(k) * size / (10 * eventPage) },
			direct: true, reserved: true, inPlace: false, otherSize: 3 * eventPage},
		{name: "denser-later", sizeHint: size, events: 12 * eventPage, density: func(k int) int64 {
			// the first 2 pages over half the input, the other 10 over the rest
			if k < 2*eventPage {
				return int64(k) * size / 2 / (2 * eventPage)
			}
			return size/2 + int64(k-2*eventPage)*size/2/(10*eventPage)
		}, direct: false, reserved: true, inPlace: false, otherSize: 5},
		{name: "unknown-size", events: 5 * eventPage, density: func(k int) int64 { return int64(k) * 100 },
			direct: false, reserved: false, inPlace: false, otherSize: 5},
		{name: "small", sizeHint: size, events: eventPage / 2, density: func(k int) int64 { return int64(k) * 1000 },
			direct: false, reserved: false, inPlace: false, otherSize: 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &inputState{sizeHint: c.sizeHint}
			for k := range c.events {
				st.seen = c.density(k)
				ev := Draft{Node: fmt.Sprint("a", k)}
				st.addEvent(&ev, evMeta{yoff: int32(k)}, "")
			}
			if st.direct != c.direct || st.reserved != c.reserved {
				t.Fatalf("direct %v reserved %v, want %v %v", st.direct, st.reserved, c.direct, c.reserved)
			}
			var first *Event
			if len(st.events) > 0 {
				first = &st.events[0]
			}
			other := &inputState{}
			for k := range c.otherSize {
				ev := Draft{Node: fmt.Sprint("b", k)}
				other.addEvent(&ev, evMeta{yoff: int32(k)}, "")
			}
			flattenAll([]*inputState{st, other})
			if inPlace := first != nil && &st.events[0] == first; inPlace != c.inPlace {
				t.Errorf("flattenAll kept the reserved array: %v, want %v", inPlace, c.inPlace)
			}
			for i, in := range []struct {
				st     *inputState
				prefix string
				n      int
			}{{st, "a", c.events}, {other, "b", c.otherSize}} {
				if len(in.st.events) != in.n || len(in.st.metas) != in.n {
					t.Fatalf("input %d: %d events %d metas, want %d", i, len(in.st.events), len(in.st.metas), in.n)
				}
				for k := range in.st.events {
					if in.st.events[k].Node != fmt.Sprint(in.prefix, k) || int(in.st.metas[k].yoff) != k {
						t.Fatalf("input %d event %d: %s meta %d", i, k, in.st.events[k].Node, in.st.metas[k].yoff)
					}
				}
			}
			total := c.events + c.otherSize
			if &st.events[:total][total-1] != &other.events[:c.otherSize][c.otherSize-1] || cap(st.events) != total || cap(other.events) != c.otherSize {
				t.Error("the inputs' windows do not share one array ending with the last input")
			}
		})
	}
}

// TestReservedAgreesWithPages parses an input dense in events as a stream
// (pages) and as a file of known size (reserve), alone and followed by another
// input, once evenly dense (the estimate holds) and once with most events
// at its end (the estimate falls short and the rest spills into pages).
func TestReservedAgreesWithPages(t *testing.T) {
	vol := func(i int) string { return attachStartedLine(3, i) }
	noise := "I0812 03:10:00.000001       1 event.go:291] \"Event occurred\" object=\"ns/x\" kind=\"Pod\"\n"
	var even, skewed strings.Builder
	for i := range 10 * eventPage {
		even.WriteString(vol(i))
		even.WriteString(noise)
	}
	for i := range 5 * eventPage {
		if i < eventPage {
			skewed.WriteString(strings.Repeat(noise, 20))
		}
		skewed.WriteString(vol(i))
	}
	dir := t.TempDir()
	paths := map[string]string{}
	for name, text := range map[string]string{"even.log": even.String(), "skewed.log": skewed.String(), "other.log": vol(1) + noise + vol(2)} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	parse := func(known bool, ps ...string) []Result {
		var rs []Result
		withKnownSize(known, func() {
			var errs []error
			rs, errs = ParseAll(ps, Options{})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
		})
		return rs
	}
	for _, ps := range [][]string{
		{paths["even.log"]}, {paths["skewed.log"]},
		{paths["even.log"], paths["other.log"]}, {paths["skewed.log"], paths["other.log"]},
		{paths["other.log"], paths["even.log"]},
	} {
		stream, sized := parse(false, ps...), parse(true, ps...)
		if !reflect.DeepEqual(*texttest.Canon(&stream), *texttest.Canon(&sized)) {
			t.Errorf("%v: the result with the size known (reserve) differs from the stream's", ps)
		}
		if n := len(sized[0].Events); n == 0 {
			t.Fatalf("%v: no events", ps)
		}
	}
}

// TestReserveKeepsFolding: a storm of one volume's failures runs through
// an input, folding already when its events move into the array reserve
// makes. The move tells the storm's run where the event it folds into
// went, so the input parses as it does as a stream, whose events never
// move: the storm's first foldKeep events verbatim and one that counts
// the rest. (Until the run was told, it started again at the move, and
// the file kept foldKeep more of the storm's lines than the stream.)
func TestReserveKeepsFolding(t *testing.T) {
	const storm = 3000
	var b strings.Builder
	for i := range storm {
		b.WriteString(stormLine(i, "10.0.3.15"))
		b.WriteString(attachStartedLine(12, i)) // other volumes' events fill the pages
	}
	p := filepath.Join(t.TempDir(), "storm.log")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stream, sized := parseFileBothWays(t, p)
	if !reflect.DeepEqual(*texttest.Canon(&stream), *texttest.Canon(&sized)) {
		t.Errorf("the result with the size known (reserve) differs from the stream's")
	}
	n := 0
	for _, ev := range sized.Events {
		if ev.Node == "10.0.3.15" {
			n++
		}
	}
	if n != foldKeep+1 || sized.Input.Folded != storm-foldKeep-1 || len(sized.Events) != storm+n {
		t.Errorf("%d events of the storm (%d folded), %d in all; want %d (%d), %d", n, sized.Input.Folded, len(sized.Events), foldKeep+1, storm-foldKeep-1, storm+foldKeep+1)
	}
}

// attachStartedLine is the reconciler's line starting the attach of
// volume i, at minute and second i of hour h (one volume, node and line a
// second, the minutes wrapping).
func attachStartedLine(h, i int) string {
	return fmt.Sprintf(`I0812 %02d:%02d:%02d.000001       1 reconciler.go:288] attacherDetacher.AttachVolume started for volume "pvc-%d" (UniqueName: "kubernetes.io/csi/x^disk-%d") from node "n%d"`+"\n", h, i/60%60, i%60, i, i, i%7)
}
