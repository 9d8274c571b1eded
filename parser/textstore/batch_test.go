package textstore

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// batchLines makes n lines of realLines' kind, each of its own length,
// with a run of padding lines between some so that their texts lie more
// than batchGap apart, and one longer than batchSpan.
func batchLines(n int) []string {
	var lines []string
	for i := range n {
		switch {
		case i == n/2:
			lines = append(lines, strings.Repeat("L", batchSpan+100))
		case i%50 == 7:
			lines = append(lines, strings.Repeat("p", batchGap+1))
		default:
			lines = append(lines, realLines[i%len(realLines)]+" #"+strings.Repeat("y", i%97))
		}
	}
	return lines
}

// Strings returns what String does for every text it is given, in order:
// texts of two files, given in any order, some many times, beside texts
// held in memory, in compressed blocks and empty ones; read on one
// goroutine and on several.
func TestStringsReadsEveryText(t *testing.T) {
	linesA, linesB := batchLines(3000), batchLines(700)
	fa, offsA := originFile(t, linesA)
	fb, offsB := originFile(t, linesB)
	oa, ob := NewOrigin(fa, fa.Name()), NewOrigin(fb, fb.Name())
	var all []Text
	for i, l := range linesA {
		all = append(all, oa.Ref(offsA[i], l))
		if i%3 == 0 { // a text that starts where another does
			all = append(all, oa.Ref(offsA[i], l[:len(l)/2]))
		}
	}
	for i, l := range linesB {
		all = append(all, ob.Ref(offsB[i], l))
	}
	var bld Builder
	for _, l := range realLines {
		all = append(all, bld.AddString(l), TextOf(l+" (in memory)"))
	}
	bld.Seal()
	all = append(all, Text{})

	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name    string
		n       int // texts given
		workers int
	}{
		{"one", 1, 1},
		{"a few, one goroutine", 30, 4},
		{"every text and repeats", 3 * len(all), 1},
		{"every text and repeats, side by side", 3 * len(all), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := make([]Text, tc.n)
			for i := range ts {
				ts[i] = all[rng.IntN(len(all))]
			}
			got := Strings(ts, tc.workers)
			if len(got) != len(ts) {
				t.Fatalf("%d strings for %d texts", len(got), len(ts))
			}
			for i, tx := range ts {
				if want := tx.String(); got[i] != want {
					t.Fatalf("text %d: %.60q, want %.60q", i, got[i], want)
				}
			}
		})
	}
}

// The texts of a file that changed since it was read say so, as String
// does; those of another file are read.
func TestStringsOfAChangedFile(t *testing.T) {
	lines := batchLines(300)
	f, offs := originFile(t, lines)
	g, offsG := originFile(t, lines)
	o, og := NewOrigin(f, "kcm.log"), NewOrigin(g, "kubelet.log")
	var ts []Text
	for i, l := range lines {
		ts = append(ts, o.Ref(offs[i], l), og.Ref(offsG[i], l))
	}
	if err := os.WriteFile(f.Name(), []byte(strings.Repeat("z", 4096)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Strings(ts, 2)
	for i, s := range got {
		if i%2 == 1 {
			if s != lines[i/2] {
				t.Fatalf("text %d of the unchanged file: %.60q", i, s)
			}
			continue
		}
		if !strings.HasPrefix(s, "[text unavailable: kcm.log: ") || !strings.Contains(s, "changed after it was read") {
			t.Fatalf("text %d of the changed file: %.80q, want it unavailable", i, s)
		}
	}
}

// A file cut short after the check: the texts past its end say so, those
// before it are read.
func TestStringsOfAFileCutShort(t *testing.T) {
	lines := batchLines(400)
	f, offs := originFile(t, lines)
	o := NewOrigin(f, "kcm.log")
	var ts []Text
	for i, l := range lines {
		ts = append(ts, o.Ref(offs[i], l))
	}
	o.usable() // checked while whole
	cut := offs[len(lines)-3]
	if err := os.Truncate(f.Name(), cut); err != nil {
		t.Fatal(err)
	}
	for i, s := range Strings(ts, 1) {
		switch {
		case offs[i]+int64(len(lines[i])) <= cut && s != lines[i]:
			t.Fatalf("text %d before the cut: %.60q", i, s)
		case offs[i] >= cut && !strings.Contains(s, "shorter than when it was read"):
			t.Fatalf("text %d past the cut: %.80q, want it unavailable", i, s)
		}
	}
}

// Strings reads each extent once: neighbours together, texts farther
// apart than batchGap, or past batchSpan, in reads of their own.
func TestStringsReads(t *testing.T) {
	lines := batchLines(1000)
	f, offs := originFile(t, lines)
	o := NewOrigin(f, f.Name())
	var ts []Text
	for i, l := range lines {
		if !strings.HasPrefix(l, "p") { // the padding lines are the gaps
			ts = append(ts, o.Ref(offs[i], l), o.Ref(offs[i], l))
		}
	}
	var far []farText
	for i, tx := range ts {
		b := (*block)(tx.p)
		far = append(far, farText{org: b.org, off: b.base + int64(tx.off), n: tx.n, at: i})
	}
	reads := planReads(far)
	// each run of texts between two padding lines (gaps of more than
	// batchGap) is read in as few reads as batchSpan allows; the line
	// longer than batchSpan has one of its own
	gaps, long := 0, 0
	for _, l := range lines {
		gaps += b2i(strings.HasPrefix(l, "p"))
		long += b2i(len(l) > batchSpan)
	}
	var total int64
	for k, r := range reads {
		total += r.end - r.off
		if r.end-r.off > batchSpan && r.to-r.from != 2 {
			t.Errorf("read %d takes %d bytes for %d texts", k, r.end-r.off, r.to-r.from)
		}
		if k > 0 && reads[k-1].to != r.from {
			t.Fatalf("read %d starts at text %d, the one before ended at %d", k, r.from, reads[k-1].to)
		}
		for j := r.from + 1; j < r.to; j++ {
			if far[j].off < far[j-1].off || far[j].off > far[j-1].off+int64(far[j-1].n)+batchGap {
				t.Fatalf("read %d: texts %d and %d are out of order or too far apart", k, j-1, j)
			}
		}
	}
	if want := gaps + 1; len(reads) < want || len(reads) > want+2*long+int(total/batchSpan) {
		t.Errorf("%d reads of %d texts (%d gaps, %d bytes)", len(reads), len(ts), gaps, total)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
