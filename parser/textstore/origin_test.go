package textstore

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// originFile writes the lines (each followed by a newline) to a file and
// returns it open, with each line's offset.
func originFile(t *testing.T, lines []string) (*os.File, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kcm.log")
	var b strings.Builder
	offs := make([]int64, len(lines))
	for i, l := range lines {
		offs[i] = int64(b.Len())
		b.WriteString(l + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, offs
}

func TestOriginReadsBack(t *testing.T) {
	lines := append([]string{strings.Repeat("x", 3*readWindow)}, realLines[:3]...)
	f, offs := originFile(t, lines)
	o := NewOrigin(f, f.Name())
	if o.Used() {
		t.Fatal("a new Origin says it is used")
	}
	texts := make([]Text, len(lines))
	for i, l := range lines {
		texts[i] = o.Ref(offs[i], l)
	}
	if !o.Used() {
		t.Fatal("an Origin with Texts says it is not used")
	}
	if o.Ref(12, "") != (Text{}) {
		t.Error("Ref of an empty text is not the zero Text")
	}
	// in any order, from several goroutines: each text as written
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range len(texts) {
				i := (k + g) % len(texts)
				if s := texts[i].String(); s != lines[i] {
					t.Errorf("text %d: %.60q, want %.60q", i, s, lines[i])
				}
				if texts[i].Len() != len(lines[i]) {
					t.Errorf("text %d: Len %d, want %d", i, texts[i].Len(), len(lines[i]))
				}
			}
		})
	}
	wg.Wait()
	if !Equal(texts[1], TextOf(lines[1])) || Equal(texts[1], texts[2]) {
		t.Error("Equal does not compare an Origin's texts by their bytes")
	}
}

func TestOriginSegments(t *testing.T) {
	f, _ := originFile(t, []string{"a"})
	o := NewOrigin(f, f.Name())
	defer o.Release()
	// offsets past 4 GiB (a Text's offset is 32 bits): each segment's
	// base plus the offset within it
	for _, off := range []int64{0, segSize - 3, segSize, 5*segSize + 7} {
		tx := o.Ref(off, "abc")
		b := (*block)(tx.p)
		if got := b.base + int64(tx.off); got != off || b.org != o {
			t.Errorf("Ref at %d: block base %d + %d = %d", off, b.base, tx.off, got)
		}
	}
	// a text across a segment's end is kept as a string
	if tx := o.Ref(segSize-1, "abc"); tx.off != plainOff {
		t.Errorf("a text across a segment's end is a reference (off %d)", tx.off)
	}
}

func TestOriginChanged(t *testing.T) {
	lines := realLines[:3]
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
		want   string
	}{
		{"unchanged", func(*testing.T, string) {}, ""},
		{"appended to", func(t *testing.T, path string) {
			g, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			g.WriteString("I0812 03:14:17.000000       1 reconciler.go:1] more\n")
			g.Close()
		}, ""},
		{"renamed (rotated)", func(t *testing.T, path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(path, []byte("a new file\n"), 0o644)
		}, ""},
		{"cut (copytruncate)", func(t *testing.T, path string) {
			os.Truncate(path, 0)
		}, "shorter than when it was read"},
		{"cut and written again", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(strings.Repeat("z", 4096)), 0o644)
		}, "changed after it was read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, offs := originFile(t, lines)
			o := NewOrigin(f, "kcm.log")
			texts := make([]Text, len(lines))
			for i, l := range lines {
				texts[i] = o.Ref(offs[i], l)
			}
			tc.change(t, f.Name())
			for i, tx := range texts {
				s := tx.String()
				switch {
				case tc.want == "" && s != lines[i]:
					t.Errorf("text %d: %.60q, want the line", i, s)
				case tc.want != "" && (!strings.HasPrefix(s, "[text unavailable: kcm.log: ") || !strings.Contains(s, tc.want)):
					t.Errorf("text %d: %.80q, want it unavailable: %s", i, s, tc.want)
				}
			}
		})
	}
}

func TestOriginLimit(t *testing.T) {
	f, _ := originFile(t, []string{"a"})
	before := openOrigins.Load()
	var got []*Origin
	for o := NewOrigin(f, "x"); o != nil; o = NewOrigin(f, "x") {
		got = append(got, o)
	}
	if n := int(before) + len(got); n != maxOrigins {
		t.Errorf("%d Origins open at once, want %d", n, maxOrigins)
	}
	for _, o := range got {
		o.Release() // unused: released at once
	}
	if openOrigins.Load() != before {
		t.Errorf("%d Origins count as open after Release, want %d", openOrigins.Load(), before)
	}
	if o := NewOrigin(f, "x"); o == nil {
		t.Error("no Origin after the others were released")
	} else {
		o.Release()
	}
}

// Texts far apart are read on their own: a reader in file order keeps its
// window while others read evidence elsewhere, and the far reads (many,
// side by side) return the texts as written.
func TestOriginFarReadsKeepTheWindow(t *testing.T) {
	var lines []string
	for i := range 2000 {
		lines = append(lines, realLines[i%len(realLines)]+" #"+strings.Repeat("y", i%97))
	}
	f, offs := originFile(t, lines)
	o := NewOrigin(f, f.Name())
	texts := make([]Text, len(lines))
	for i, l := range lines {
		texts[i] = o.Ref(offs[i], l)
	}
	if s := texts[0].String(); s != lines[0] {
		t.Fatalf("text 0: %.60q", s)
	}
	win := o.winOff
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := 1000 + g; k < len(texts); k += 37 {
				if s := texts[k].String(); s != lines[k] {
					t.Errorf("text %d: %.60q, want %.60q", k, s, lines[k])
				}
			}
		})
	}
	wg.Wait()
	if o.winOff != win {
		t.Errorf("far reads moved the window from %d to %d", win, o.winOff)
	}
	// the next texts in order are read through the window, which moves on
	for i := 1; i < 200; i++ {
		if s := texts[i].String(); s != lines[i] {
			t.Fatalf("text %d: %.60q, want %.60q", i, s, lines[i])
		}
	}
	if o.winOff == win {
		t.Error("the window did not follow a reader in file order")
	}
}
